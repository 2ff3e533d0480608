// `node bench/hook-latency.mjs [--runs N] [--events-only] [--instructions]`:
// first every hook event against `wave-rules --version` of the same binary,
// at 100 and 1,000 rules, as ratios (bench/hook-events.mjs; `--events-only`
// stops there, `--instructions` adds callgrind's instruction counts,
// `WAVE_RULES_BASE=path` a second binary side by side). Then the wall time of one Claude Code
// hook process, start to exit, spawned from Node as Claude Code spawns it, at
// 100 rules (a real project's mix: path, topic and always-on rules, one in
// ten enforcing a folder or commands, in the root and subdirectories). Every event, for the Rust binary
// (target/release/wave-rules); the hook `hook install` writes from an npm
// install of the tarballs (`"$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules`,
// run through sh as Claude Code runs it, beside the bare binary through sh);
// the npm bin run by node (the addon), and `npx wave-rules`.
// Prints a Markdown table of p50 / p95 in milliseconds; /bin/true is the
// floor (what spawning alone costs on this machine). A second table: the
// Rust binary's PostToolUse per agent dialect (`hook --agent NAME`), each
// reading the file through its shell tool, so the shell parser is in it. A
// third: the same PostToolUse as each agent runs it once installed: the
// command `hook install --agent NAME` writes in a project with the package
// (node_modules/.bin/wave-rules: the npm install above, else a link to the
// Rust binary), through the agent's shell (Codex: sh -lc, Gemini CLI and
// Copilot CLI: bash -c, Cursor: sh -c) in the project with the variables it
// sets (Gemini CLI's $GEMINI_PROJECT_DIR replaced in the text, as it does).
// After the first table, the same events with telemetry off and on
// (`--no-telemetry` leaves it out).
// A fourth: the Claude Code hook as each package manager installs the
// package (npm, pnpm 10, pnpm 11, Yarn 4 node-modules and Plug'n'Play, Bun,
// from a registry on 127.0.0.1, default settings: bench/package-managers.mjs),
// the command `hook install` wrote run through sh, against the bare binary
// through sh; `--no-managers` leaves it out.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { installFromTarballs } from './npm-install.mjs'
import { writeMemory } from './memory-corpus.mjs'
import { createHash } from 'node:crypto'
import { MANAGERS, freshEnv, install, startRegistry } from './package-managers.mjs'
import { eventTable } from './hook-events.mjs'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 100
const RULES = 100

/**
 * Telemetry's cost (issue 54: within 1.1x at 100 rules): every event of this
 * build with telemetry off and on (WAVE_RULES_TELEMETRY=1, the endpoint a
 * closed port on 127.0.0.1: the records go to the spool, and the detached
 * shipper a start and a stop start finds nobody), in the same rounds.
 */
function telemetryTable(bin, dir) {
  const on = { WAVE_RULES_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }
  const lines = eventTable([['telemetry off', bin], ['telemetry on', bin, on]], dir, RUNS, false)
  console.log(`Telemetry off and on, this build, ${RUNS} interleaved rounds; p50 ms and its ratio to \`--version\` (with the same variables)\n`)
  console.log(lines.join('\n'))
  console.log('')
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-hook-bench-'))
{
  const bin = path.resolve(repo, process.env.WAVE_RULES_BIN ?? 'target/release/wave-rules')
  const bins = [...(process.env.WAVE_RULES_BASE ? [['before', path.resolve(process.env.WAVE_RULES_BASE)]] : []), ['this build', bin]]
  if (fs.existsSync(bin)) {
    const load = os.loadavg()
    const lines = eventTable(bins, path.join(root, 'events'), RUNS, process.argv.includes('--instructions'))
    console.log(`Every event against \`--version\` of the same binary (${bins.map(([l, b]) => `${l}: ${path.relative(repo, b) || b}`).join(', ')}), ${RUNS} interleaved rounds, load ${load.map((l) => l.toFixed(1)).join(' ')} -> ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; p50 ms and its ratio to \`--version\`\n`)
    console.log(lines.join('\n'))
    console.log('')
    if (!process.argv.includes('--no-telemetry')) telemetryTable(bin, path.join(root, 'telemetry'))
  }
  if (process.argv.includes('--events-only')) {
    fs.rmSync(root, { recursive: true, force: true })
    process.exit(0)
  }
}
const work = path.join(root, 'work')
const home = path.join(root, 'home')
fs.mkdirSync(home, { recursive: true })
for (let i = 0; i < RULES; i++) {
  const kind = i % 4
  // One in ten enforces: a guarded folder, or forbidden commands.
  const fm =
    i % 20 === 3 ? `paths: "gen/mod${i}/**"\nenforce: block`
    : i % 20 === 13 ? `commands: ["git push --force*", "rm -rf /*", "psql*prod${i}*"]\nenforce: block`
    : kind === 0 ? `paths: ["src/mod${i}/**/*.ts", "!**/*.test.ts"]`
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

// The package installed in the project from its tarballs, as `npm install
// wave-memory-rules` does: node_modules/.bin/wave-rules execs the native
// executable, the hook command is what `hook install` writes.
const npm = installFromTarballs(work)
if (npm.reason) console.log(`npm-installed hook: not measured (${npm.reason})`)
const addonBin = path.join(work, 'node_modules/wave-memory-rules/bin/wave-rules.js')

const env = { ...process.env, WAVE_RULES_STATE_DIR: path.join(root, 'state'), CLAUDE_PROJECT_DIR: work }
const events = [
  ['SessionStart', { source: 'startup' }],
  ['UserPromptSubmit', { prompt: 'please fix topic5 and the phrase 9 handler' }],
  // Before a write the rules allow (the usual case): the enforced rules are checked.
  ['PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(work, 'src/mod4/a.ts'), content: 'x' } }],
  ['PostToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(work, 'src/mod4/a.ts') } }],
  ['Stop', { stop_hook_active: false }],
]

function once(cmd, args, input, extraEnv, cwd = work) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { cwd, env: extraEnv ? { ...env, ...extraEnv } : env, input, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`)
  return ms
}

function quantiles(times) {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { p50: at(0.5), p95: at(0.95) }
}

// A home whose project memory holds 10,000 entries (bench/memory-corpus.mjs):
// the Rust binary's hooks with memory recall on, beside the same hooks with
// the bench's home (no memory).
const MEMORY_ENTRIES = 10_000
const memHome = path.join(root, 'memhome')
const projectHash = createHash('sha256').update(fs.realpathSync(work)).digest('hex').slice(0, 16)
writeMemory(path.join(memHome, '.wave/projects', projectHash, 'memory'), MEMORY_ENTRIES)
const memEvents = [
  ['SessionStart', { source: 'startup' }],
  ['UserPromptSubmit', { prompt: 'Run the loom tests for the oneshot channel with tokio_unstable' }],
  ['PostToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(work, 'src/mod4/a.ts') } }],
]

// WAVE_RULES_BIN=path measures another build (e.g. target/debug/wave-rules).
const rust = path.resolve(repo, process.env.WAVE_RULES_BIN ?? 'target/release/wave-rules')
const sh = (cmd) => ['sh', ['-c', `${cmd} "$@"`, 'sh']]
const forms = [
  [`Rust binary (${path.relative(repo, rust)})`, rust, []],
  ['sh -c: the bare binary', ...sh(rust)],
  ...(npm.bin ? [['sh -c: "$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules (npm install, as installed)', ...sh('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules')]] : []),
  ...(npm.bin ? [['node node_modules/wave-memory-rules/bin/wave-rules.js (the addon)', process.execPath, [addonBin]]] : [['node bin/wave-rules.js (the addon)', process.execPath, [path.join(repo, 'bin/wave-rules.js')]]]),
  ...(npm.bin ? [['npx wave-memory-rules', 'npx', ['--no-install', 'wave-memory-rules']]] : []),
]
// Every cell is measured in one interleaved loop, so a change in the
// machine's load (it is shared) falls on every form alike.
const cells = []
cells.push({ name: 'floor', cmd: '/bin/true', args: [], input: '', every: 1, times: [] })
if (fs.existsSync(rust)) cells.push({ name: 'version', cmd: rust, args: ['--version'], input: '', every: 1, times: [] })
if (fs.existsSync(rust)) {
  for (const [event, extra] of memEvents) {
    // A new session each round: every prompt recalls (nothing was given yet).
    const input = (tag) => (round) => JSON.stringify({ session_id: `bench-${tag}-${round}`, cwd: work, hook_event_name: event, ...extra })
    cells.push({ name: 'memory', event, cmd: rust, args: ['hook', event], input: input('memory'), env: { HOME: memHome }, every: 1, times: [] })
    cells.push({ name: 'memory-off', event, cmd: rust, args: ['hook', event, '--memory', 'off'], input: input('off'), env: { HOME: memHome }, every: 1, times: [] })
  }
}
for (const [name, cmd, args] of forms) {
  if (cmd === rust && !fs.existsSync(rust)) continue
  for (const [event, extra] of events) {
    const input = JSON.stringify({ session_id: `bench-${name.length}`, cwd: work, hook_event_name: event, ...extra })
    // npx costs a second a run: every fifth round only.
    cells.push({ name, event, cmd, args: [...args, 'hook', event], input, every: cmd === 'npx' ? 5 : 1, times: [] })
  }
}
// Per agent: its payload of a shell read of one file (parsed by the core's shell).
const command = 'cd src && sed -n 1,80p mod4/a.ts | grep -n export'
const agentPayloads = [
  ['claude', { session_id: 'bench-a-claude', cwd: work, tool_name: 'Bash', tool_input: { command } }],
  ['codex', { session_id: 'bench-a-codex', cwd: work, tool_name: 'Bash', tool_input: { command } }],
  ['gemini', { session_id: 'bench-a-gemini', cwd: work, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command } }],
  ['copilot', { sessionId: 'bench-a-copilot', cwd: work, toolName: 'bash', toolArgs: { command } }],
  ['cursor', { conversation_id: 'bench-a-cursor', workspace_roots: [work], hook_event_name: 'afterShellExecution', command }],
]
// Per agent as installed: the command `hook install --agent NAME` wrote.
const installedAgents = []
if (fs.existsSync(rust)) {
  for (const [agent, payload] of agentPayloads) {
    cells.push({ name: `agent:${agent}`, event: 'PostToolUse', cmd: rust, args: ['hook', '--agent', agent, 'PostToolUse'], input: JSON.stringify(payload), every: 1, times: [] })
  }
  const projectBin = path.join(work, 'node_modules/.bin/wave-rules')
  const linked = !fs.existsSync(projectBin)
  if (linked) {
    fs.mkdirSync(path.dirname(projectBin), { recursive: true })
    fs.symlinkSync(rust, projectBin)
  }
  const quoted = `'${work.replaceAll("'", "'\\''")}'`
  const runs = {
    codex: { file: '.codex/hooks.json', shell: ['sh', '-lc'], vars: {} },
    gemini: { file: '.gemini/settings.json', shell: ['bash', '-c'], vars: { GEMINI_PROJECT_DIR: work, GEMINI_CWD: work, CLAUDE_PROJECT_DIR: work }, text: (c) => c.replaceAll('$GEMINI_PROJECT_DIR', quoted) },
    copilot: { file: '.github/hooks/wave-rules.json', shell: ['bash', '-c'], vars: {} },
    cursor: { file: '.cursor/hooks.json', shell: ['sh', '-c'], vars: { CURSOR_PROJECT_DIR: work } },
  }
  for (const [agent, payload] of agentPayloads) {
    const how = runs[agent]
    if (!how) continue
    const r = spawnSync(rust, ['hook', 'install', '--agent', agent], { cwd: work, env, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`hook install --agent ${agent}: ${r.stderr}`)
    const doc = JSON.parse(fs.readFileSync(path.join(work, how.file), 'utf8'))
    const commands = Object.values(doc.hooks).flat().flatMap((item) => item.hooks ?? [item]).map((h) => h.command ?? h.bash)
    const written = commands.find((c) => c.endsWith(`hook --agent ${agent} PostToolUse`))
    installedAgents.push([agent, written, linked])
    const command = how.text ? how.text(written) : written
    cells.push({ name: `installed:${agent}`, event: 'PostToolUse', cmd: how.shell[0], args: [how.shell[1], command], input: JSON.stringify(payload), env: how.vars, every: 1, times: [] })
    // The bare binary through the same shell: what the agent's way of running a hook costs anyway.
    cells.push({ name: `shell:${agent}`, event: 'PostToolUse', cmd: how.shell[0], args: [how.shell[1], `${rust} hook --agent ${agent} PostToolUse`], input: JSON.stringify(payload), env: how.vars, every: 1, times: [] })
  }
}
// Per package manager: a project of the same rules with the package
// installed by that manager; the hook command `hook install` writes there.
const managed = []
if (fs.existsSync(rust) && !process.argv.includes('--no-managers')) {
  const registry = await startRegistry(fs.mkdtempSync(path.join(root, 'registry-')))
  try {
    for (const manager of MANAGERS) {
      const why = manager.missing?.()
      if (why) {
        managed.push({ manager: manager.name, reason: why })
        continue
      }
      const dir = path.join(root, `pm-${manager.name.replaceAll(' ', '-')}`)
      const r = await install(manager, dir, registry.url, freshEnv(path.join(dir, '.home')))
      if (r.status !== 0) {
        managed.push({ manager: manager.name, reason: `install failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}` })
        continue
      }
      fs.cpSync(path.join(work, '.wave'), path.join(dir, '.wave'), { recursive: true, preserveTimestamps: true })
      const inst = spawnSync(rust, ['hook', 'install'], { cwd: dir, env, encoding: 'utf8' })
      if (inst.status !== 0) throw new Error(`hook install (${manager.name}): ${inst.stderr}`)
      const settings = JSON.parse(fs.readFileSync(path.join(dir, '.claude/settings.json'), 'utf8'))
      const command = settings.hooks.SessionStart[0].hooks[0].command.replace(/ hook SessionStart$/, '')
      managed.push({ manager: manager.name, command })
      for (const [event, extra] of events) {
        const input = (who) => JSON.stringify({ session_id: `bench-pm-${who}-${manager.name}`, cwd: dir, hook_event_name: event, ...extra })
        cells.push({ name: `pm:${manager.name}`, event, cmd: 'sh', args: ['-c', `${command} hook ${event}`], input: input('installed'), env: { CLAUDE_PROJECT_DIR: dir }, cwd: dir, every: 1, times: [] })
        // The bare binary through sh in the same project, right after: the pair's ratio.
        cells.push({ name: `pm-bare:${manager.name}`, event, cmd: 'sh', args: ['-c', `${rust} hook ${event}`], input: input('bare'), env: { CLAUDE_PROJECT_DIR: dir }, cwd: dir, every: 1, times: [] })
      }
    }
  } finally {
    await registry.close()
  }
}
// `--managers-only`: the managers' table alone (more rounds in the same time).
const managersOnly = process.argv.includes('--managers-only')
if (managersOnly) {
  const keep = (c) => c.name === 'floor' || c.name === 'version' || c.name.startsWith('pm')
  cells.splice(0, cells.length, ...cells.filter(keep))
}
const load = os.loadavg()
for (let round = 0; round < RUNS; round++) {
  for (const c of cells) if (round % c.every === 0) c.times.push(once(c.cmd, c.args, typeof c.input === 'function' ? c.input(round) : c.input, c.env, c.cwd))
}
const cell = (name, event) => cells.find((c) => c.name === name && c.event === event)
const fmt = (t) => `${t.p50.toFixed(1)} / ${t.p95.toFixed(1)}`
console.log(`${RUNS} rounds (npx: ${Math.ceil(RUNS / 5)}), ${RULES} rules, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}`)
console.log(`load average before ${load.map((l) => l.toFixed(1)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log(`${npm.bin ? `npm-installed: ${fs.realpathSync(npm.bin)}\n` : ''}spawn floor (/bin/true): ${fmt(quantiles(cells[0].times))} ms`)
if (fs.existsSync(rust)) console.log(`the binary doing nothing (wave-rules --version): ${fmt(quantiles(cells[1].times))} ms`)
if (!managersOnly) {
  console.log('')
  console.log(`| form | ${events.map(([e]) => e).join(' | ')} |`)
  console.log(`| --- |${events.map(() => ' --- |').join('')}`)
  for (const [name, cmd] of forms) {
    if (cmd === rust && !fs.existsSync(rust)) {
      console.log(`| ${name} | not built (cargo build --release -p wave-rules) |`)
      continue
    }
    console.log(`| ${name} | ${events.map(([e]) => fmt(quantiles(cell(name, e).times))).join(' | ')} |`)
  }
  if (npm.bin) {
    const ratio = (a, b) => events.map(([e]) => (quantiles(cell(a, e).times).p50 / quantiles(cell(b, e).times).p50).toFixed(2)).join(' | ')
    const installed = forms[2][0]
    console.log(`| p50 ratio: npm-installed hook / bare binary, both through sh | ${ratio(installed, 'sh -c: the bare binary')} |`)
    console.log(`| p50 ratio: npm-installed hook / bare binary spawned directly | ${ratio(installed, forms[0][0])} |`)
  }
  if (fs.existsSync(rust)) {
    console.log(`\nPostToolUse per agent (Rust binary, \`hook --agent NAME\`, a shell read: \`${command}\`)\n`)
    console.log(`| agent | p50 / p95 |\n| --- | --- |`)
    for (const [agent] of agentPayloads) console.log(`| ${agent} | ${fmt(quantiles(cell(`agent:${agent}`, 'PostToolUse').times))} |`)
    console.log(`\nPostToolUse per agent as installed (\`hook install --agent NAME\` in the project, the command run as the agent runs it${installedAgents[0]?.[2] ? '; node_modules/.bin/wave-rules links to the Rust binary' : ''})\n`)
    console.log(`| agent | installed command | as installed | the bare binary through the same shell | p50 ratio: installed / same shell | p50 ratio: installed / bare binary spawned directly |\n| --- | --- | --- | --- | --- | --- |`)
    for (const [agent, written] of installedAgents) {
      const mine = quantiles(cell(`installed:${agent}`, 'PostToolUse').times)
      const shell = quantiles(cell(`shell:${agent}`, 'PostToolUse').times)
      const bare = quantiles(cell(`agent:${agent}`, 'PostToolUse').times)
      console.log(`| ${agent} | \`${written.replaceAll('|', '\\|')}\` | ${fmt(mine)} | ${fmt(shell)} | ${(mine.p50 / shell.p50).toFixed(2)} | ${(mine.p50 / bare.p50).toFixed(2)} |`)
    }
  }
}
if (fs.existsSync(rust) && !managersOnly) {
  console.log(`\nMemory recall (Rust binary; the project memory holds ${MEMORY_ENTRIES.toLocaleString('en')} entries; each run is a new session's event, so every prompt recalls)\n`)
  console.log(`| hook | ${memEvents.map(([e]) => e).join(' | ')} |`)
  console.log(`| --- |${memEvents.map(() => ' --- |').join('')}`)
  for (const [name, label] of [['memory', 'recall on (default)'], ['memory-off', '--memory off']]) {
    console.log(`| ${label} | ${memEvents.map(([e]) => fmt(quantiles(cell(name, e).times))).join(' | ')} |`)
  }
  console.log(`| p50 ratio on / off | ${memEvents.map(([e]) => (quantiles(cell('memory', e).times).p50 / quantiles(cell('memory-off', e).times).p50).toFixed(2)).join(' | ')} |`)
}
if (managed.length) {
  console.log('\nThe Claude Code hook as each package manager installs the package (default settings; the command `hook install` wrote, through sh)\n')
  console.log(`| package manager | hook command | ${events.map(([e]) => e).join(' | ')} | p50 ratio to the bare binary through sh in the same project, run right after (${events.map(([e]) => e).join(', ')}) |`)
  console.log(`| --- | --- |${events.map(() => ' --- |').join('')} --- |`)
  for (const m of managed) {
    if (m.reason) {
      console.log(`| ${m.manager} | not measured: ${m.reason} |`)
      continue
    }
    const times = events.map(([e]) => quantiles(cell(`pm:${m.manager}`, e).times))
    const ratios = events.map(([e], i) => (times[i].p50 / quantiles(cell(`pm-bare:${m.manager}`, e).times).p50).toFixed(2))
    console.log(`| ${m.manager} | \`${m.command}\` | ${times.map(fmt).join(' | ')} | ${ratios.join(' / ')} |`)
  }
}
console.log('\ncells: p50 / p95 in ms, one process each, spawned from Node (spawnSync), stdin = the event JSON')
fs.rmSync(root, { recursive: true, force: true })

