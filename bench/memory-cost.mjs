// `node bench/memory-cost.mjs [--runs N] [--entries N]`: what searching a
// large memory costs, as a whole process and through the addon. Part of
// `npm run bench`.
//
// A temp home's project memory holds 10,000 entries (bench/memory-corpus.mjs:
// the retrieval set's 316, the rest drawn from their vocabulary, 200
// topics). The search index is built once (the first search), then:
//
// - `wave-rules memory search PROMPT` against `wave-rules --version`, both
//   the release binary spawned from here, in turn (A B A B ...), the prompts
//   of the retrieval set in rotation: p50 of each and the median of the
//   pairwise ratios (goal: within 1.5x; the index is mapped, not re-read);
// - `NativeMemoryStore.search` in this process: p50 per prompt (an AsyncTask:
//   the libuv pool's hop included; the Rust-only figure is `cargo bench -p
//   memory-rules --bench memory`).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { prompts, writeMemory } from './memory-corpus.mjs'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}
const RUNS = arg('--runs', 60)
const ENTRIES = arg('--entries', 10_000)
const rust = path.resolve(repo, process.env.WAVE_RULES_BIN ?? 'target/release/wave-rules')
if (!fs.existsSync(rust)) {
  const r = spawnSync('cargo', ['build', '--release', '-q', '-p', 'wave-rules'], { cwd: repo, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('cargo build --release -p wave-rules failed')
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-memory-cost-'))
const home = path.join(root, 'home')
const work = path.join(root, 'work')
fs.mkdirSync(path.join(work, '.git'), { recursive: true })
const hash = createHash('sha256').update(fs.realpathSync(work)).digest('hex').slice(0, 16)
writeMemory(path.join(home, '.wave/projects', hash, 'memory'), ENTRIES)
const qs = prompts()
const env = { ...process.env, HOME: home }

function run(args) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(rust, args, { cwd: work, env, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}\n${r.stderr}`)
  return { ms, out: r.stdout }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  // The first search builds and saves the index; a second settles its scan time.
  const first = run(['memory', 'search', 'warm up', '--json'])
  const searched = JSON.parse(first.out).searched
  run(['memory', 'search', 'warm up again'])
  const version = []
  const search = []
  const ratios = []
  for (let i = 0; i < RUNS + 1; i++) {
    const q = qs[i % qs.length]
    const v = run(['--version']).ms
    const s = run(['memory', 'search', q.prompt, '--limit', '5', ...(q.files.length ? ['--files', ...q.files] : [])]).ms
    if (i === 0) continue
    version.push(v)
    search.push(s)
    ratios.push(s / v)
  }
  const require = createRequire(import.meta.url)
  const { NativeMemoryStore } = require(path.join(repo, 'index.js'))
  const store = new NativeMemoryStore({ workdir: work, homeDir: home })
  const inProcess = []
  for (let round = 0; round < 3; round++) {
    for (const q of qs) {
      const t0 = process.hrtime.bigint()
      await store.search(q.prompt, q.files, 5)
      inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  console.log(`\nMemory search cost: ${searched.toLocaleString('en')} entries in 200 topics, ${RUNS} pairs, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  console.log('| what | p50 ms | ')
  console.log('| --- | --- |')
  console.log(`| wave-rules --version (process) | ${median(version).toFixed(2)} |`)
  console.log(`| wave-rules memory search PROMPT (process) | ${median(search).toFixed(2)} |`)
  console.log(`| median ratio search / --version | ${median(ratios).toFixed(2)}x (goal: at most 1.5x) |`)
  console.log(`| NativeMemoryStore.search (addon, in process, ${inProcess.length} calls) | ${median(inProcess).toFixed(3)} |`)
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
