// `npm run bench`: the addon side by side with the pure-JS algorithm it
// replaces, in one process, on the same inputs. Prints a Markdown table of
// medians and ratios (ours / JS; below 1 means we are faster).
//
// Inputs: generated rule sets (10 .. 10,000 rules; patterns built from the
// real directory names of ../shared/corpus/trees) and files in context taken
// from those real repository file lists (10 .. 10,000 paths). Rule files are
// dated an hour back, as rule files in a working repository are; see
// docs/PERFORMANCE.md.
//
//   node bench/bench.mjs            full run (about two minutes)
//   node bench/bench.mjs --quick    fewer sizes, shorter timing budget
//   node bench/bench.mjs --wasm      the WASI fallback / native (npm run bench:wasm)
//   node bench/bench.mjs --glue     only the per-message glue cost by conversation length
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { JsManager } from './jsmanager.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const { RuleManager, memoryRulesMiddleware, contextFilesFromMessages, lastUserText, planRules } = require('..')
const { RuleEngine } = require('../index.js')
const corpus = process.env.WAVE_CORPUS ?? path.resolve(here, '../../shared/corpus')
const quick = process.argv.includes('--quick')
const BUDGET_MS = quick ? 300 : 1000

// ---- inputs -----------------------------------------------------------------

/** A small deterministic generator (mulberry32), so every run has the same inputs. */
function rng(seed) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function treePaths() {
  const dir = path.join(corpus, 'trees')
  const all = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean))
  const rand = rng(7)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[all[i], all[j]] = [all[j], all[i]]
  }
  return all
}

const WORDS = ['customer', 'deploy', 'migration', 'billing', 'auth', 'cache', 'release', 'schema', 'webhook', 'queue', 'search', 'metrics']

/** `n` rule files: {id, text}, with realistic patterns over real directories. */
function makeRules(n, paths) {
  const rand = rng(n)
  const pick = (a) => a[Math.floor(rand() * a.length)]
  const dirs = [...new Set(paths.map((p) => p.split('/')[0]).filter((d) => !d.includes('.')))]
  const deep = [...new Set(paths.map((p) => p.split('/').slice(0, 2).join('/')).filter((d) => d.includes('/') && !/\.\w+$/.test(d)))]
  const exts = ['ts', 'tsx', 'js', 'rs', 'md', 'json', 'py', 'cs']
  const templates = [
    () => [`${pick(dirs)}/**/*.${pick(exts)}`],
    () => [`{${pick(dirs)},${pick(dirs)}}/**/*.{ts,tsx}`],
    () => ['packages/*/tests/**/*'],
    () => ['**/*.md'],
    () => [`${pick(deep)}/**`, '!**/*.test.ts'],
    () => [`${pick(deep)}/**/*.${pick(exts)}`],
    () => [`**/*.${pick(exts)}`, `!${pick(dirs)}/**`],
  ]
  const rules = []
  for (let i = 0; i < n; i++) {
    const kind = rand()
    const lines = ['---']
    if (kind < 0.85) {
      lines.push('paths:', ...pick(templates)().map((p) => `  - "${p}"`))
    }
    if (kind >= 0.6 && kind < 0.95) lines.push(`topics: [${pick(WORDS)}${i % 7}, ${pick(WORDS)}]`)
    lines.push(`priority: ${Math.floor(rand() * 5)}`, '---', `Rule ${i}: ${pick(WORDS)} conventions.`, '- Keep it short.', '- Test it.')
    rules.push({ id: `group${i % 10}/rule${String(i).padStart(5, '0')}.md`, text: lines.join('\n') + '\n' })
  }
  return rules
}

function writeTree(rules) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-bench-'))
  const workdir = path.join(root, 'work')
  const homeDir = path.join(root, 'home')
  const hourAgo = new Date(Date.now() - 3600_000)
  for (const r of rules) {
    const file = path.join(workdir, '.wave/rules', r.id)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, r.text)
    fs.utimesSync(file, hourAgo, hourAgo)
  }
  fs.mkdirSync(homeDir, { recursive: true })
  return { root, workdir, homeDir }
}

// ---- timing -----------------------------------------------------------------

/** Median milliseconds of `fn` over repeated runs within the time budget. */
async function median(fn, { min = 5, max = 2000, budget = BUDGET_MS } = {}) {
  const times = []
  const start = performance.now()
  while (times.length < max && (times.length < min || performance.now() - start < budget)) {
    const t = performance.now()
    await fn()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

const fmt = (ms) => (ms === undefined ? '-' : ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`)
const ratio = (ours, js) => (ours === undefined || js === undefined ? '-' : `${(ours / js).toFixed(4)} (${(js / ours).toFixed(js / ours >= 10 ? 0 : 1)}x faster)`)

// ---- glue per message, by conversation length ----------------------------------

/**
 * A conversation of `n` messages in the AI SDK's prompt shape: a system
 * message, then turns of a user message followed by tool calls that read
 * files from `pool` (a session touches a bounded set of files) and their
 * results.
 */
function conversation(n, pool) {
  const messages = [{ role: 'system', content: 'You are a coding agent.' }]
  if (n <= 1) return messages.slice(0, n)
  let k = 0
  while (messages.length < n) {
    if (messages.length % 20 === 1) {
      messages.push({ role: 'user', content: [{ type: 'text', text: 'Fix the customer handling, then deploy' }] })
      continue
    }
    const file = pool[k++ % pool.length]
    const id = `call_${messages.length}`
    messages.push(toolCall(id, file))
    if (messages.length < n) messages.push(toolResult(id, file))
  }
  return messages.slice(0, n)
}

const toolCall = (id, file) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: file } }] })
const toolResult = (id, file) => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: `contents of ${file}` } }] })

/**
 * Per-message cost of the AI SDK middleware at a conversation length: each
 * sample warms a fresh middleware on the first n - 2 messages (untimed), then
 * times the call that brings the two new messages (a tool call reading a file
 * not seen before, and its result), as a tool loop does at every step. Message objects are rebuilt as
 * the SDK rebuilds them for every call (the first and the last seen one, all
 * the reader looks at). The old glue, for comparison, read the whole
 * conversation every time (contextFilesFromMessages + lastUserText + match).
 */
async function glueBench(log) {
  const paths = treePaths()
  const rules = 50
  const tree = writeTree(makeRules(rules, paths))
  const manager = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await manager.discoverRules()
  const pool = paths.slice(0, 200)
  const sizes = [10, 1000, 10000]
  const result = {}
  log('## Glue per message, by conversation length')
  log('')
  log(`The AI SDK middleware's \`transformParams\` for one new step (a tool call and its result) at each conversation`)
  log(`length, ${rules} rules, files from a pool of ${pool.length} real paths; \`rescan\` is the old glue's way (read the whole`)
  log('conversation every message). Target: at 10,000 messages within 2x of 10.')
  log('')
  log('| messages | system-prompt mode | reminder mode | rescan (old glue) | system-prompt: x of 10 | reminders: x of 10 | rescan: x of 10 |')
  log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  const rebuilt = (m) => structuredClone(m)
  // Warm the JIT in both modes first, so the first size measured does not pay for it.
  for (const n of [10, 1000]) {
    const c = conversation(n, pool)
    for (const mode of ['system-prompt', 'reminders']) {
      for (let i = 0; i < 300; i++) {
        const mw = memoryRulesMiddleware({ manager, workdir: tree.workdir, mode, reloadIntervalMs: Infinity })
        await mw.transformParams({ type: 'generate', params: { prompt: c.slice(0, n - 2) } })
        await mw.transformParams({ type: 'generate', params: { prompt: [...c.slice(0, n - 2), toolCall('w', paths[pool.length + i]), toolResult('w', paths[pool.length + i])] } })
      }
    }
  }
  for (const n of sizes) {
    const base = conversation(n - 2, pool)
    // What the SDK passes for the new step: the same messages as rebuilt
    // objects (only the first and the last seen one matter to the reader),
    // then the two new ones. Built once; the two new ones change per sample.
    const history = [...base, null, null]
    history[0] = rebuilt(base[0])
    history[n - 3] = rebuilt(base[n - 3])
    const samples = 200
    const timed = {}
    for (const mode of ['system-prompt', 'reminders']) {
      const times = []
      for (let i = 0; i < samples; i++) {
        // The new step reads a file the conversation has not seen.
        const fresh = paths[pool.length + i]
        history[n - 2] = toolCall('new', fresh)
        history[n - 1] = toolResult('new', fresh)
        const mw = memoryRulesMiddleware({ manager, workdir: tree.workdir, mode, reloadIntervalMs: Infinity })
        await mw.transformParams({ type: 'generate', params: { prompt: base } })
        const t = performance.now()
        await mw.transformParams({ type: 'generate', params: { prompt: history } })
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      timed[mode] = times[times.length >> 1]
    }
    const rescan = await median(() => {
      const files = contextFilesFromMessages(history, { workdir: tree.workdir })
      const prompt = lastUserText(history)
      planRules(manager.getActiveRules(files, prompt), { topicRuleIds: manager.getTopicRules(prompt).map((r) => r.id) })
    }, { min: 5, max: 500 })
    result[n] = { ...timed, rescan }
    const x = (v, base) => (v / base).toFixed(2)
    log(`| ${n} | ${fmt(timed['system-prompt'])} | ${fmt(timed.reminders)} | ${fmt(rescan)} | ${x(timed['system-prompt'], result[10]['system-prompt'])} | ${x(timed.reminders, result[10].reminders)} | ${x(rescan, result[10].rescan)} |`)
  }
  log('')
  fs.rmSync(tree.root, { recursive: true, force: true })
  return result
}

// ---- the run ------------------------------------------------------------------

async function main() {
  const paths = treePaths()
  const prompt = 'Please deploy the customer migration and check the billing webhook'
  const ruleSizes = quick ? [10, 1000] : [10, 100, 1000, 10000]
  const fileSizes = quick ? [10, 1000] : [10, 100, 1000, 10000]
  const rows = []
  const row = (...cells) => rows.push(cells)
  const trees = {}
  const managers = {}
  const natives = {}
  const js = {}
  const lines = []
  const log = (s) => {
    lines.push(s)
    console.log(s)
  }
  log(`# wave-memory-rules benchmark`)
  log('')
  log(`Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}; Node ${process.version}; minimatch 10.`)
  log(`Command: node bench/bench.mjs${quick ? ' --quick' : ''} (medians over repeated runs, ${BUDGET_MS} ms budget per cell).`)
  log('')

  // Discovery and reload.
  log('## Discovery and reload')
  log('')
  log('| case | rules | ours | JS | ours / JS |')
  log('| --- | ---: | ---: | ---: | ---: |')
  for (const n of ruleSizes) {
    const rules = makeRules(n, paths)
    const tree = (trees[n] = writeTree(rules))
    const cold = await median(async () => {
      const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
      await m.discoverRules()
    }, { min: 3, max: 50 })
    const jsCold = await median(async () => {
      const m = new JsManager(tree.workdir, tree.homeDir)
      await m.discoverRules()
    }, { min: 3, max: 50 })
    const m = (managers[n] = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir }))
    await m.discoverRules()
    const engine = (natives[n] = new RuleEngine({ workdir: tree.workdir, homeDir: tree.homeDir }))
    await engine.discover()
    const jm = (js[n] = new JsManager(tree.workdir, tree.homeDir))
    await jm.discoverRules()
    const idle = await median(() => m.reload())
    const jsReload = await median(() => jm.discoverRules(), { min: 3, max: 50 })
    // One file changed each time: alternate between two versions of it.
    const changed = path.join(tree.workdir, '.wave/rules', rules[0].id)
    let flip = false
    const oneChanged = await median(async () => {
      flip = !flip
      fs.writeFileSync(changed, rules[0].text.replace('- Keep it short.', flip ? '- Keep it shorter.' : '- Keep it short.'))
      await m.reload()
    }, { min: 3, max: 200 })
    log(`| cold discovery | ${n} | ${fmt(cold)} | ${fmt(jsCold)} | ${ratio(cold, jsCold)} |`)
    log(`| reload, nothing changed | ${n} | ${fmt(idle)} | ${fmt(jsReload)} | ${ratio(idle, jsReload)} |`)
    log(`| reload, one file changed | ${n} | ${fmt(oneChanged)} | ${fmt(jsReload)} | ${ratio(oneChanged, jsReload)} |`)
  }
  log('')

  // Per message.
  log('## getActiveRules per message')
  log('')
  log('`ours` is the package call (`RuleManager.getActiveRules`) with a new list of files each call (all sent')
  log('across); `ours, same files` is the call when the files are those of the previous message (the engine keeps them,')
  log('so only the prompt crosses); `Rust` is the same match timed inside Rust (no boundary). All three alternate in one')
  log('loop. JS cells whose estimated cost (rules x files minimatch calls) is over 3 s per call are not run.')
  log('')
  log('| rules | files | ours | JS | ours / JS | ours, same files | Rust | ours / Rust | same / Rust |')
  log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  const perMessage = {}
  const cases = [[20, 10], ...ruleSizes.flatMap((r) => fileSizes.map((f) => [r, f]))]
  for (const [n, f] of cases) {
    if (!managers[n]) {
      const tree = (trees[n] = writeTree(makeRules(n, paths)))
      managers[n] = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
      await managers[n].discoverRules()
      natives[n] = new RuleEngine({ workdir: tree.workdir, homeDir: tree.homeDir })
      await natives[n].discover()
      js[n] = new JsManager(tree.workdir, tree.homeDir)
      await js[n].discoverRules()
    }
    const files = paths.slice(0, f)
    const m = managers[n]
    // The package call and the same match timed inside Rust, alternating in
    // one loop so all run under the same conditions. The engine keeps the
    // previous message's files, so the package call is timed twice: with a
    // new list (differs from the last one at its first path: everything is
    // sent again) and with the same files as the last message.
    const other = [paths[paths.length - 1 - f] ?? 'other', ...files.slice(1)]
    const newSamples = []
    const sameSamples = []
    const rustSamples = []
    const time = (fn) => {
      const t = performance.now()
      fn()
      return performance.now() - t
    }
    await median(() => {
      newSamples.push(time(() => m.getActiveRules(other, prompt)))
      newSamples.push(time(() => m.getActiveRules(files, prompt)))
      sameSamples.push(time(() => m.getActiveRules(files, prompt)))
      rustSamples.push(natives[n].measureActive(files, prompt, 1) / 1e6)
    })
    const mid = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]
    const ours = mid(newSamples)
    const same = mid(sameSamples)
    const rust = mid(rustSamples)
    const estimate = n * f * 1.5 * 0.0005 // ms, at ~0.5 µs per minimatch call
    const jsTime = estimate <= 3000 ? await median(() => js[n].getActiveRules(files, prompt), { min: 3, max: 500 }) : undefined
    // Same answer from both implementations (ids differ in form: compare counts).
    if (jsTime !== undefined && estimate < 300) {
      const a = m.getActiveRules(files, prompt).length
      const b = js[n].getActiveRules(files, prompt).length
      if (a !== b) log(`<!-- note: ${n} rules x ${f} files: ours ${a} active, JS ${b} -->`)
    }
    perMessage[`${n}x${f}`] = { ours, jsTime, rust }
    log(`| ${n} | ${f} | ${fmt(ours)} | ${fmt(jsTime)} | ${ratio(ours, jsTime)} | ${fmt(same)} | ${fmt(rust)} | ${(ours / rust).toFixed(2)} | ${(same / rust).toFixed(2)} |`)
  }
  log('')

  await glueBench(log)

  // Growth with rules, at 1,000 files.
  if (!quick) {
    const g = (n) => perMessage[`${n}x1000`].ours
    log(`Growth: from 10 to 10,000 rules at 1,000 files, ours goes from ${fmt(g(10))} to ${fmt(g(10000))} (x${(g(10000) / g(10)).toFixed(2)}).`)
    const h = (f) => perMessage[`1000x${f}`].ours
    log(`With files: at 1,000 rules, from 10 to 10,000 files, ours goes from ${fmt(h(10))} to ${fmt(h(10000))} (x${(h(10000) / h(10)).toFixed(1)}).`)
    log('')
    log('Memory per rule: `node bench/memory.mjs` (also part of `npm run bench`).')
  }
  for (const t of Object.values(trees)) fs.rmSync(t.root, { recursive: true, force: true })
  if (process.env.BENCH_OUT) fs.writeFileSync(process.env.BENCH_OUT, lines.join('\n') + '\n')
}

/** `--growth`: only our per-message time as rules grow (no JS baseline). */
async function growth() {
  const paths = treePaths()
  const files = paths.slice(0, 1000)
  console.log('| rules | files | ours | Rust |')
  console.log('| ---: | ---: | ---: | ---: |')
  for (const n of [10, 100, 1000, 10000]) {
    const tree = writeTree(makeRules(n, paths))
    const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
    await m.discoverRules()
    const engine = new RuleEngine({ workdir: tree.workdir, homeDir: tree.homeDir })
    await engine.discover()
    // A new list each call (the worst case for the package call).
    const other = ['other', ...files.slice(1)]
    const ours = []
    const rust = []
    await median(() => {
      for (const list of [other, files]) {
        const t = performance.now()
        m.getActiveRules(list, 'deploy the customer migration')
        ours.push(performance.now() - t)
      }
      rust.push(engine.measureActive(files, 'deploy the customer migration', 1) / 1e6)
    })
    const mid = (a) => a.sort((x, y) => x - y)[a.length >> 1]
    console.log(`| ${n} | ${files.length} | ${fmt(mid(ours))} | ${fmt(mid(rust))} |`)
    fs.rmSync(tree.root, { recursive: true, force: true })
  }
}

/**
 * `--wasm` (`npm run bench:wasm`): the WebAssembly fallback against the
 * native addon on the main cells, both loaded in this one process (the
 * generated WASI loader beside the native one) and timed alternately through
 * the same `RuleEngine` API. Needs `npm run build` and `npm run build:wasm`.
 */
async function wasmRatio() {
  const wasi = require('../wave-memory-rules.wasi.cjs')
  const bindings = { native: RuleEngine, wasi: wasi.RuleEngine }
  const paths = treePaths()
  const prompt = 'Please deploy the customer migration and check the billing webhook'
  console.log(`Node ${process.version}, ${os.cpus().length} cores; medians, ${BUDGET_MS} ms budget per cell; WASI / native above 1 means the fallback is slower.`)
  console.log('')
  console.log('| case | rules | files | native | WASI | WASI / native |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
  const line = (name, n, f, a, b) => console.log(`| ${name} | ${n} | ${f} | ${fmt(a)} | ${fmt(b)} | ${(b / a).toFixed(2)} |`)
  for (const n of quick ? [100, 1000] : [100, 1000, 10000]) {
    const tree = writeTree(makeRules(n, paths))
    const opts = { workdir: tree.workdir, homeDir: tree.homeDir }
    const t = {}
    const engines = {}
    for (const [k, Engine] of Object.entries(bindings)) {
      t[k] = await median(async () => {
        await new Engine(opts).discover()
      }, { min: 3, max: 50 })
      engines[k] = new Engine(opts)
      await engines[k].discover()
    }
    line('cold discovery', n, '-', t.native, t.wasi)
    for (const k of Object.keys(bindings)) t[k] = await median(() => engines[k].reload(), { min: 3, max: 200 })
    line('reload, nothing changed', n, '-', t.native, t.wasi)
    for (const f of [10, 1000]) {
      const files = paths.slice(0, f)
      for (const k of Object.keys(bindings)) t[k] = await median(() => engines[k].active(files, prompt), { min: 3, max: 2000 })
      line('active (call from JS)', n, f, t.native, t.wasi)
      for (const k of Object.keys(bindings)) t[k] = engines[k].measureActive(files, prompt, quick ? 21 : 101) / 1e6
      line('match inside the engine', n, f, t.native, t.wasi)
    }
    fs.rmSync(tree.root, { recursive: true, force: true })
  }
}

if (process.argv.includes('--growth')) await growth()
else if (process.argv.includes('--wasm')) await wasmRatio()
else if (process.argv.includes('--glue')) await glueBench(console.log)
else await main()
