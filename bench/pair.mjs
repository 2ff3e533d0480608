// `node bench/pair.mjs [-n RUNS] -- 'COMMAND A' 'COMMAND B'`: two shell
// commands timed in turn (A B A B ...) as whole processes, with GNU time
// (`/usr/bin/time`, Debian's package `time`) for each run's user and system
// seconds. Prints min / median / max of wall and cpu (user + system) for
// each, and the median of the pairwise ratios A/B: pairing keeps the ratio
// meaningful when the machine's speed drifts during the run. One warm-up
// pair is not counted. Used by bench/export.sh and bench/nested-walk.sh.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const MAX_RUNS = 100
const args = process.argv.slice(2)
const nAt = args.indexOf('-n')
const runs = nAt >= 0 ? Number(args[nAt + 1]) : 10
const sep = args.indexOf('--')
const [a, b] = sep >= 0 ? args.slice(sep + 1) : []
if (!a || !b || !Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
  console.error(`usage: node bench/pair.mjs [-n RUNS (1..${MAX_RUNS})] -- 'COMMAND A' 'COMMAND B'`)
  process.exit(2)
}
if (!fs.existsSync('/usr/bin/time')) {
  console.error('skipped: /usr/bin/time (GNU time) is not installed (Debian: apt-get install time)')
  process.exit(0)
}

const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wave-pair-')), 'time')
function once(cmd) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', out, 'sh', '-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 })
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${cmd}\n${r.stderr}`)
  const [user, sys] = fs.readFileSync(out, 'utf8').trim().split('\n').at(-1).split(' ').map(Number)
  return { wall, cpu: user + sys }
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const row = (name, xs) => `| ${name} | ${Math.min(...xs).toFixed(3)} | ${median(xs).toFixed(3)} | ${Math.max(...xs).toFixed(3)} |`

once(a)
once(b)
const A = []
const B = []
for (let i = 0; i < runs; i++) {
  A.push(once(a))
  B.push(once(b))
}
console.log(`${runs} pairs, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log('| seconds | min | median | max |\n| --- | --- | --- | --- |')
console.log(row('A wall', A.map((r) => r.wall)))
console.log(row('A cpu', A.map((r) => r.cpu)))
console.log(row('B wall', B.map((r) => r.wall)))
console.log(row('B cpu', B.map((r) => r.cpu)))
const ratio = (k) => median(A.map((r, i) => r[k] / Math.max(B[i][k], 1e-9))).toFixed(2)
console.log(`A/B, median of the pairs: wall ${ratio('wall')}x, cpu ${ratio('cpu')}x`)
console.log(`A: ${a}\nB: ${b}`)
