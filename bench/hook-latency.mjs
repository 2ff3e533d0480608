// `node bench/hook-latency.mjs [--runs N]`: the wall time of one Claude Code
// hook process, start to exit, spawned from Node as Claude Code spawns it, at
// 100 rules (a real project's mix: path, topic and always-on rules, in the
// root and subdirectories). Every event, for the Rust binary
// (target/release/wave-rules), the npm bin run by node, and `npx wave-rules`.
// Prints a Markdown table of p50 / p95 in milliseconds; /bin/true is the
// floor (what spawning alone costs on this machine).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 100
const RULES = 100

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-hook-bench-'))
const work = path.join(root, 'work')
const home = path.join(root, 'home')
fs.mkdirSync(home, { recursive: true })
for (let i = 0; i < RULES; i++) {
  const kind = i % 4
  const fm =
    kind === 0 ? `paths: ["src/mod${i}/**/*.ts", "!**/*.test.ts"]`
    : kind === 1 ? `topics: [topic${i}, "phrase ${i}"]`
    : kind === 2 ? `paths: "**/*.py"\ntopics: kw${i}`
    : `priority: ${i % 7}`
  const dir = path.join(work, '.wave/rules', i % 2 ? `group${i % 5}` : '')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `rule${String(i).padStart(3, '0')}.md`), `---\n${fm}\ndescription: rule ${i}\n---\nRule ${i}: first line.\nSecond line of rule ${i}.\n`)
}
// Rule files are as old as in a working repository.
const old = new Date(Date.now() - 3600_000)
for (const f of fs.readdirSync(path.join(work, '.wave/rules'), { recursive: true })) fs.utimesSync(path.join(work, '.wave/rules', f), old, old)

// The package installed in the project, as `npm install wave-memory-rules` does, so
// `npx wave-rules` finds its bin.
fs.mkdirSync(path.join(work, 'node_modules/.bin'), { recursive: true })
fs.symlinkSync(repo, path.join(work, 'node_modules/wave-memory-rules'), 'dir')
fs.symlinkSync('../wave-memory-rules/bin/wave-rules.js', path.join(work, 'node_modules/.bin/wave-rules'))

const env = { ...process.env, WAVE_RULES_STATE_DIR: path.join(root, 'state'), CLAUDE_PROJECT_DIR: work }
const events = [
  ['SessionStart', { source: 'startup' }],
  ['UserPromptSubmit', { prompt: 'please fix topic5 and the phrase 9 handler' }],
  ['PostToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(work, 'src/mod4/a.ts') } }],
  ['Stop', { stop_hook_active: false }],
]

function time(cmd, args, input, runs = RUNS) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(cmd, args, { cwd: work, env, input, encoding: 'utf8' })
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`)
  }
  times.sort((a, b) => a - b)
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))]
  return { p50: at(0.5), p95: at(0.95) }
}

const rust = path.join(repo, 'target/release/wave-rules')
const forms = [
  ['Rust binary (target/release/wave-rules)', rust, []],
  ['node bin/wave-rules.js (the addon)', process.execPath, [path.join(repo, 'bin/wave-rules.js')]],
  ['npx wave-rules', 'npx', ['--no-install', 'wave-rules']],
]
const floor = time('/bin/true', [], '')
console.log(`${RUNS} runs per cell, ${RULES} rules, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}`)
const version = fs.existsSync(rust) ? time(rust, ['--version'], '') : null
console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log(`spawn floor (/bin/true): p50 ${floor.p50.toFixed(1)} ms, p95 ${floor.p95.toFixed(1)} ms`)
if (version) console.log(`the binary doing nothing (wave-rules --version): p50 ${version.p50.toFixed(1)} ms, p95 ${version.p95.toFixed(1)} ms`)
console.log('')
console.log(`| form | ${events.map(([e]) => e).join(' | ')} |`)
console.log(`| --- |${events.map(() => ' --- |').join('')}`)
for (const [name, cmd, args] of forms) {
  if (cmd === rust && !fs.existsSync(rust)) {
    console.log(`| ${name} | not built (cargo build --release -p wave-rules) |`)
    continue
  }
  const cells = []
  for (const [event, extra] of events) {
    const input = JSON.stringify({ session_id: `bench-${name.length}`, cwd: work, hook_event_name: event, ...extra })
    // npx costs hundreds of ms a run: fewer runs.
    const t = time(cmd, [...args, 'hook', event], input, cmd === 'npx' ? Math.max(10, Math.floor(RUNS / 5)) : RUNS)
    cells.push(`${t.p50.toFixed(1)} / ${t.p95.toFixed(1)}`)
  }
  console.log(`| ${name} | ${cells.join(' | ')} |`)
}
console.log('\ncells: p50 / p95 in ms, one process each, spawned from Node (spawnSync), stdin = the event JSON')
fs.rmSync(root, { recursive: true, force: true })

