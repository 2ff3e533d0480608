// Portable installs from the npm tarballs: `npm pack` of the main package and
// of this host's platform package (the addon and the native `wave-rules`),
// installed into a fresh git project (no install script: the bin is a shell
// script that execs the native executable); `init` (when this build has it), `hook
// install` and `mcp install` for every client; committed; then a second
// clone at another path with another HOME and its own `npm install`: the
// installs there change no committed byte, and every installed hook and MCP
// server starts from the clone, as each client would start it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { hostPlatform } from './rust-bin.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))

const platform = hostPlatform()
const addon = `${pkg.napi.binaryName}.${platform}.node`
const exeName = process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules'
const builtAddon = [path.join(root, addon), path.join(root, 'npm', platform, addon)].find((f) => fs.existsSync(f))
const builtExe = [path.join(root, 'npm', platform, exeName), path.join(root, 'target/release', exeName)].find((f) => fs.existsSync(f))
const skip =
  process.platform === 'win32'
    ? 'the portable commands are tested on Linux and macOS'
    : !builtAddon
      ? `no ${addon} built (npm run build)`
      : !builtExe
        ? `no ${exeName} built (npm run build:exe)`
        : spawnSync('git', ['--version']).status !== 0
          ? 'no git'
          : false

const CLIENTS = ['claude', 'cursor', 'vscode', 'codex', 'opencode', 'gemini']
const FILES = {
  claude: '.mcp.json',
  cursor: '.cursor/mcp.json',
  vscode: '.vscode/mcp.json',
  codex: '.codex/config.toml',
  opencode: 'opencode.json',
  gemini: '.gemini/settings.json',
}

const npmDir = path.dirname(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim())
let work
let project
let clone
let homeA
let homeB
let hasInit = false
const tarballs = []

function env(home, extra = {}) {
  const e = {
    PATH: [...new Set([path.dirname(process.execPath), npmDir, '/usr/bin', '/bin'])].join(path.delimiter),
    HOME: home,
    npm_config_cache: path.join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.invalid',
    ...extra,
  }
  for (const k of ['LANG', 'TMPDIR']) if (process.env[k]) e[k] = process.env[k]
  return e
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, ...opts })
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}\n${r.stdout}\n${r.stderr}${r.error ?? ''}`)
  return r.stdout
}

const bin = (dir) => path.join(dir, 'node_modules/.bin/wave-rules')

function committedFiles(dir) {
  const out = {}
  for (const f of ['.claude/settings.json', ...Object.values(FILES)]) {
    const file = path.join(dir, f)
    if (fs.existsSync(file)) out[f] = fs.readFileSync(file, 'utf8')
  }
  return out
}

function installAll(dir, home) {
  const e = env(home)
  const outs = [run(bin(dir), ['hook', 'install'], { cwd: dir, env: e })]
  for (const client of CLIENTS) outs.push(run(bin(dir), ['mcp', 'install', '--client', client], { cwd: dir, env: e }))
  return outs
}

before(() => {
  if (skip) return
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wave-install-')))
  homeA = path.join(work, 'home-a')
  homeB = path.join(work, 'elsewhere', 'home-b')
  fs.mkdirSync(homeA, { recursive: true })
  fs.mkdirSync(homeB, { recursive: true })
  const platDir = path.join(work, 'platform')
  fs.cpSync(path.join(root, 'npm', platform), platDir, { recursive: true })
  fs.copyFileSync(builtAddon, path.join(platDir, addon))
  fs.copyFileSync(builtExe, path.join(platDir, exeName))
  fs.chmodSync(path.join(platDir, exeName), 0o755)
  for (const dir of [root, platDir]) {
    const [info] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: dir, env: env(homeA) }))
    tarballs.push(path.join(work, info.filename))
  }
  project = path.join(work, 'team', 'project')
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'team-project', private: true }, null, 2) + '\n')
  fs.writeFileSync(path.join(project, '.gitignore'), 'node_modules/\n.claude/settings.local.json\n')
  run('git', ['init', '-q'], { cwd: project, env: env(homeA) })
  // Offline: the other platforms' optional packages are skipped.
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: project, env: env(homeA) })
  const init = spawnSync(bin(project), ['init'], { cwd: project, env: env(homeA), encoding: 'utf8' })
  hasInit = init.status === 0
  const rules = path.join(project, '.wave/rules')
  fs.mkdirSync(rules, { recursive: true })
  fs.writeFileSync(path.join(rules, 'team-always.md'), '---\ndescription: always\n---\nTEAM-ALWAYS: run the formatter before committing.\n')
  fs.writeFileSync(path.join(rules, 'team-sql.md'), '---\npaths: ["src/**/*.sql"]\n---\nTEAM-SQL: migrations are append-only.\n')
})

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true })
})

test('the installed bin execs the native executable with no Node, and `npx wave-memory-rules` runs the CLI through Node', { skip }, () => {
  // A `node` first on PATH that records its starts.
  const spy = path.join(work, 'spy')
  fs.mkdirSync(spy, { recursive: true })
  const log = path.join(spy, 'started')
  fs.writeFileSync(path.join(spy, 'node'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 })
  const e = env(homeA)
  const out = run(bin(project), ['--version'], { cwd: project, env: { ...e, PATH: `${spy}:${e.PATH}` } })
  assert.equal(out.trim(), `wave-rules ${pkg.version}`)
  assert.ok(!fs.existsSync(log), 'no node started for node_modules/.bin/wave-rules')
  // The same file run by Node (as Yarn runs bins) is the CLI through the addon.
  const viaNode = run(process.execPath, [bin(project), '--version'], { cwd: project, env: e })
  assert.equal(viaNode.trim(), `wave-rules ${pkg.version}`)
  const npx = run('npx', ['--no-install', 'wave-memory-rules', '--version'], { cwd: project, env: e })
  assert.equal(npx.trim(), `wave-rules ${pkg.version}`)
})

test('init, hook install and mcp install for every client write entries safe to commit', { skip }, (t) => {
  if (!hasInit) t.diagnostic('`wave-rules init` is not in this build (the cli branch adds it): rules written by the test')
  const outs = installAll(project, homeA)
  for (const out of outs) assert.match(out, /safe to commit/, out)
  const files = committedFiles(project)
  assert.deepEqual(Object.keys(files).sort(), ['.claude/settings.json', ...Object.values(FILES)].sort())
  for (const [f, text] of Object.entries(files)) {
    assert.ok(!text.includes(work), `${f} names no path of this machine:\n${text}`)
    assert.ok(!text.includes(homeA), f)
    assert.match(text, /node_modules\/\.bin\/wave-rules/, f)
  }
  assert.ok(!fs.existsSync(path.join(homeA, '.codex/config.toml')), 'Codex: the project, not the user')
  assert.ok(!fs.existsSync(path.join(project, '.claude/settings.local.json')))
  const doctor = spawnSync(bin(project), ['doctor'], { cwd: project, env: env(homeA), encoding: 'utf8' })
  assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr)
  assert.match(doctor.stdout, /no problems found/)
  // Seven hooks (every Claude Code event we answer), one entry per client, and Copilot CLI's view of Claude Code's .mcp.json (it reads that file too).
  assert.equal((doctor.stdout.match(/ok, portable/g) ?? []).length, 7 + CLIENTS.length + 1, doctor.stdout)
  assert.match(doctor.stdout, /mcp +copilot +\.mcp\.json: ok, portable/)
})

/** Sends initialize and one rules_for_files call; resolves with the answer's text. */
function mcpAnswer(command, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command}: no answer in 30 s\n${err}`))
    }, 30_000)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.stderr.on('data', (d) => (err += d))
    child.stdout.on('data', (d) => {
      out += d
      const lines = out.split('\n').filter(Boolean).map((l) => JSON.parse(l))
      const answer = lines.find((m) => m.id === 2)
      if (answer) {
        clearTimeout(timer)
        child.stdin.end()
        child.kill()
        resolve(JSON.stringify(answer.result))
      }
    })
    const send = (m) => child.stdin.write(JSON.stringify(m) + '\n')
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'rules_for_files', arguments: { paths: ['src/db/1.sql'] } } })
  })
}

/** How the client starts the server it reads from `dir`: [command, args, cwd, env]. */
function serverOf(client, dir, home) {
  const text = fs.readFileSync(path.join(dir, FILES[client]), 'utf8')
  let command
  let args
  if (client === 'codex') {
    const m = text.match(/\[mcp_servers\.wave-rules\]\ncommand = "([^"]+)"\nargs = (\[[^\]]*\])/)
    assert.ok(m, text)
    command = m[1]
    args = JSON.parse(m[2])
  } else {
    const json = JSON.parse(text)
    const entry = (json.mcpServers ?? json.servers ?? json.mcp)['wave-rules']
    ;[command, ...args] = Array.isArray(entry.command) ? entry.command : [entry.command, ...(entry.args ?? [])]
  }
  // The clients' own variables; every client starts the server in the project.
  const expand = (s) => s.replaceAll('${workspaceFolder}', dir).replaceAll('${CLAUDE_PROJECT_DIR:-.}', '.')
  return [expand(command), args.map(expand), dir, env(home)]
}

test('a second clone at another path, with another HOME: the installs change nothing, every hook and server starts', { skip, timeout: 300_000 }, async () => {
  installAll(project, homeA)
  const committed = committedFiles(project)
  run('git', ['add', '-A'], { cwd: project, env: env(homeA) })
  run('git', ['commit', '-qm', 'rules and agent settings'], { cwd: project, env: env(homeA) })
  clone = path.join(work, 'elsewhere', 'checkout', 'teammate-copy')
  run('git', ['clone', '-q', project, clone], { cwd: work, env: env(homeB) })
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: clone, env: env(homeB) })
  // The package.json of the clone now lists the tarballs; the settings files are the committed ones.
  assert.deepEqual(committedFiles(clone), committed)
  for (const out of installAll(clone, homeB)) assert.match(out, /already installed/, out)
  assert.deepEqual(committedFiles(clone), committed, 'the clone\'s installs change no committed byte')
  const doctor = spawnSync(bin(clone), ['doctor'], { cwd: clone, env: env(homeB), encoding: 'utf8' })
  assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr)

  // Every hook, as Claude Code runs it: the command through sh, with
  // $CLAUDE_PROJECT_DIR set to the clone, the event JSON on stdin.
  const settings = JSON.parse(committed['.claude/settings.json'])
  const events = Object.keys(settings.hooks)
  assert.deepEqual(events.sort(), ['InstructionsLoaded', 'PostToolUse', 'PreToolUse', 'SessionStart', 'Stop', 'SubagentStart', 'SubagentStop', 'UserPromptSubmit'])
  for (const event of events) {
    for (const h of settings.hooks[event].flatMap((g) => g.hooks)) {
      const input = JSON.stringify({
        session_id: 'clone-session',
        cwd: clone,
        hook_event_name: event,
        source: 'startup',
        prompt: 'hello',
        tool_name: 'Read',
        tool_input: { file_path: path.join(clone, 'src/db/1.sql') },
      })
      const r = spawnSync('sh', ['-c', h.command], { cwd: clone, env: env(homeB, { CLAUDE_PROJECT_DIR: clone }), input, encoding: 'utf8', timeout: 30_000 })
      assert.equal(r.status, 0, `${h.command}: ${r.stderr}`)
      assert.equal(r.stderr, '', `${event}: ${r.stderr}`)
      if (event === 'SessionStart') assert.match(r.stdout, /TEAM-ALWAYS/)
      if (event === 'PostToolUse') assert.match(r.stdout, /TEAM-SQL/)
    }
  }
  // Every MCP server, as its client starts it.
  for (const client of CLIENTS) {
    const [command, args, cwd, e] = serverOf(client, clone, homeB)
    const answer = await mcpAnswer(command, args, { cwd, env: e })
    assert.match(answer, /TEAM-SQL/, `${client}: ${answer}`)
  }
  // Claude Code with $CLAUDE_PROJECT_DIR set expands it instead of the default
  // (and starts the server in the project, whose rules it serves).
  const entry = JSON.parse(committed['.mcp.json']).mcpServers['wave-rules']
  const expanded = entry.command.replace('${CLAUDE_PROJECT_DIR:-.}', clone)
  assert.ok(path.isAbsolute(expanded))
  const viaVar = await mcpAnswer(expanded, entry.args, { cwd: clone, env: env(homeB, { CLAUDE_PROJECT_DIR: clone }) })
  assert.match(viaVar, /TEAM-SQL/)
})

test('doctor in the clone flags a machine path committed by hand, and a stale one', { skip }, () => {
  const dir = clone ?? project
  const file = path.join(dir, '.cursor/mcp.json')
  const before = fs.readFileSync(file, 'utf8')
  try {
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { 'wave-rules': { command: path.join(work, 'gone/wave-rules'), args: ['mcp'] } } }))
    const r = spawnSync(bin(dir), ['doctor'], { cwd: dir, env: env(homeB), encoding: 'utf8' })
    assert.equal(r.status, 1, r.stdout)
    assert.match(r.stdout, /stale: .*gone\/wave-rules does not exist/)
    assert.match(r.stdout, /non-portable/)
    const json = JSON.parse(spawnSync(bin(dir), ['doctor', '--json'], { cwd: dir, env: env(homeB), encoding: 'utf8' }).stdout)
    assert.equal(json.version, pkg.version)
    // The team's two rules, and init's examples when init wrote them.
    assert.equal(json.rules, fs.readdirSync(path.join(dir, '.wave/rules')).filter((f) => f.endsWith('.md')).length)
    assert.ok(json.installed.find((e) => e.client === 'cursor').problems.length >= 2)
    assert.ok(json.memory.every((m) => path.isAbsolute(m.dir)))
  } finally {
    fs.writeFileSync(file, before)
  }
})
