// `node bench/packs.mjs [--runs N]`: the same 500 rules kept in the project
// (`.wave/rules`) and shipped as an npm pack (`node_modules/@bench/rules`,
// named in `.wave/config.toml`, pinned in `.wave/packs.lock` by `packs
// sync`), side by side, interleaved (A B A B ...) so the shared machine's
// load falls on both alike. Three costs:
//
// - a hook: one `wave-rules hook PostToolUse` process, start to exit, warm
//   (its rules snapshot saved by the previous run), as Claude Code runs it;
// - a discovery: `RuleEngine.discover()` from nothing (the packs' config,
//   lock and package.json are read on top of the rule files);
// - per message: `RuleEngine.active(files, prompt)` on the discovered set.
//
// Prints medians and the median of the pairwise ratios pack / local; the
// issue's bound is 1.1x (a report, never a test assertion).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const { RuleEngine } = require('../index.js')
const runsAt = process.argv.indexOf('--runs')
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 40
const RULES = 500
const rust = path.resolve(repo, process.env.WAVE_RULES_BIN ?? 'target/release/wave-rules')
if (!fs.existsSync(rust)) {
  console.log(`skipped: ${path.relative(repo, rust)} is not built (cargo build --release -p wave-rules)`)
  process.exit(0)
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-packs-bench-'))
const home = path.join(root, 'home')
fs.mkdirSync(home)
const old = new Date(Date.now() - 3600_000)

function ruleText(i) {
  const kind = i % 4
  const fm =
    kind === 0 ? `paths: ["src/mod${i}/**/*.ts", "!**/*.test.ts"]`
    : kind === 1 ? `topics: [topic${i}, "phrase ${i}"]`
    : kind === 2 ? `paths: "**/*.py"\ntopics: kw${i}`
    : `paths: "lib/m${i}/**"`
  return `---\n${fm}\ndescription: rule ${i}\n---\nRule ${i}: first line.\nSecond line of rule ${i}.\n`
}

function writeRules(dir) {
  for (let i = 0; i < RULES; i++) {
    const sub = path.join(dir, i % 2 ? `group${i % 5}` : '')
    fs.mkdirSync(sub, { recursive: true })
    const file = path.join(sub, `rule${String(i).padStart(3, '0')}.md`)
    fs.writeFileSync(file, ruleText(i))
    fs.utimesSync(file, old, old)
  }
}

// A: the rules in the project.
const local = path.join(root, 'local')
fs.mkdirSync(path.join(local, '.git'), { recursive: true })
writeRules(path.join(local, '.wave/rules'))
// B: the same rules in an npm pack the project names and locks.
const packed = path.join(root, 'packed')
fs.mkdirSync(path.join(packed, '.git'), { recursive: true })
const pkg = path.join(packed, 'node_modules/@bench/rules')
fs.mkdirSync(pkg, { recursive: true })
fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@bench/rules', version: '1.0.0', waveRules: { rules: 'rules' } }))
writeRules(path.join(pkg, 'rules'))
fs.mkdirSync(path.join(packed, '.wave'), { recursive: true })
fs.writeFileSync(path.join(packed, '.wave/config.toml'), 'packs = ["@bench/rules@^1"]\n')
const sync = spawnSync(rust, ['packs', 'sync', '--home', home, '--workdir', packed], { encoding: 'utf8' })
if (sync.status !== 0) throw new Error(`packs sync: ${sync.stderr}`)

const env = { ...process.env, WAVE_POLICY_DIR: path.join(root, 'no-policy') }
function hook(work) {
  const input = JSON.stringify({ session_id: 'bench', cwd: work, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: path.join(work, 'src/mod8/a.ts') } })
  const t0 = process.hrtime.bigint()
  const r = spawnSync(rust, ['hook', 'PostToolUse', '--home', home], { cwd: work, input, env: { ...env, WAVE_RULES_STATE_DIR: path.join(work, '.state'), CLAUDE_PROJECT_DIR: work }, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`hook: ${r.stderr}`)
  return ms
}

const options = (work) => ({ workdir: work, homeDir: home, policyDir: path.join(root, 'no-policy') })
async function discover(work) {
  const engine = new RuleEngine(options(work))
  const t0 = process.hrtime.bigint()
  await engine.discover()
  return [Number(process.hrtime.bigint() - t0) / 1e6, engine]
}

const files = Array.from({ length: 50 }, (_, i) => `src/mod${i * 4}/file${i}.ts`).concat(['lib/m3/a.js', 'app/x.py'])
const prompt = 'please fix topic5 and the phrase 9 handler, then kw10'
function perMessage(engine) {
  const n = 2000
  const t0 = process.hrtime.bigint()
  let count = 0
  for (let i = 0; i < n; i++) count += engine.active(files, prompt).length
  if (count === 0) throw new Error('no rule active: the bench measures nothing')
  return Number(process.hrtime.bigint() - t0) / 1e3 / n
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

// Same rules on both sides, or the comparison means nothing.
const [, eA] = await discover(local)
const [, eB] = await discover(packed)
if (eA.rules().length !== RULES || eB.rules().length !== RULES) throw new Error(`rules: local ${eA.rules().length}, pack ${eB.rules().length}`)
if (eB.rules()[0].origin?.layer !== 'pack') throw new Error('the pack side has no pack rules')
hook(local)
hook(packed)

const rows = { hook: [[], []], discover: [[], []], message: [[], []] }
for (let i = 0; i < RUNS; i++) {
  rows.hook[0].push(hook(local))
  rows.hook[1].push(hook(packed))
  const [dA, a] = await discover(local)
  const [dB, b] = await discover(packed)
  rows.discover[0].push(dA)
  rows.discover[1].push(dB)
  rows.message[0].push(perMessage(a))
  rows.message[1].push(perMessage(b))
}

console.log(`${RULES} rules, local (.wave/rules) vs an npm pack; ${RUNS} interleaved runs, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log('| cost | local | pack | pack / local (median of pairs) |\n| --- | --- | --- | --- |')
const unit = { hook: 'ms', discover: 'ms', message: 'µs' }
const name = { hook: 'hook PostToolUse (process, warm)', discover: 'RuleEngine.discover()', message: 'per message: active(52 files, prompt)' }
let worst = 0
for (const k of Object.keys(rows)) {
  const [A, B] = rows[k]
  const ratio = median(B.map((b, i) => b / Math.max(A[i], 1e-9)))
  worst = Math.max(worst, ratio)
  console.log(`| ${name[k]} | ${median(A).toFixed(k === 'message' ? 2 : 1)} ${unit[k]} | ${median(B).toFixed(k === 'message' ? 2 : 1)} ${unit[k]} | ${ratio.toFixed(2)}x |`)
}
console.log(`worst ratio ${worst.toFixed(2)}x (the issue's bound: 1.10x)`)
fs.rmSync(root, { recursive: true, force: true })
