// Installs that no package manager refuses: the packed package (and this
// platform's package, as an optional dependency the manager picks itself)
// from a registry on 127.0.0.1, into a fresh project, with npm, pnpm 10,
// pnpm 11, Yarn 4 (node-modules and Plug'n'Play) and Bun, each with its
// default settings. Each install exits 0 with no word about our install
// scripts (there are none); `hook install`, run the way that manager's users
// run a bin, writes a hook that runs the native executable: the hook is run
// as Claude Code runs it (sh -c, $CLAUDE_PROJECT_DIR) with a `node` first on
// PATH that records every start, and none is recorded. And a project whose
// manager put no platform package (npm --omit=optional) gets the Node
// fallback and its clear message.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MANAGERS, builtArtifacts, freshEnv, install, runAsync, startRegistry, repo } from '../bench/package-managers.mjs'

const built = builtArtifacts()
const skip =
  process.platform === 'win32'
    ? 'the shell hooks are tested on Linux and macOS'
    : process.env.NAPI_RS_FORCE_WASI || process.env.npm_lifecycle_event === 'test:node22'
      ? 'the package managers install the native packages once, in `npm test` (not again for the WASI or Node 22 runs)'
      : (built.reason ?? false)

let work
let registry
const started = Date.now()

before(async () => {
  if (skip) return
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wave-pm-')))
  registry = await startRegistry(work)
})

after(async () => {
  await registry?.close()
  if (work) fs.rmSync(work, { recursive: true, force: true })
  if (!skip) console.log(`# package-managers: ${((Date.now() - started) / 1000).toFixed(1)} s`)
})

/**
 * A directory with a `node` and a `readlink` (the launcher's one possible
 * fork) that record their start, then run the real ones.
 */
function nodeSpy(dir) {
  fs.mkdirSync(dir, { recursive: true })
  const log = path.join(dir, 'node-started')
  const links = path.join(dir, 'readlink-started')
  fs.writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho "$$ $*" >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 })
  const readlink = spawnSync('sh', ['-c', 'command -v readlink'], { encoding: 'utf8' }).stdout.trim()
  fs.writeFileSync(path.join(dir, 'readlink'), `#!/bin/sh\necho "$$ $*" >> '${links}'\nexec '${readlink}' "$@"\n`, { mode: 0o755 })
  const lines = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n') : [])
  return { dir, log, starts: () => lines(log), readlinks: () => lines(links) }
}

// What a package manager says when it held back or ran an install script.
const SCRIPT_WARNING = /install[ -]?scripts?|lifecycle script|postinstall|approve-builds|ignored build|allowScripts|onlyBuiltDependencies|trustedDependencies|untrusted|blocked \d+/i

function rules(project) {
  const dir = path.join(project, '.wave/rules')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'always.md'), '---\ndescription: always\n---\nPM-ALWAYS: run the formatter before committing.\n')
}

const hookCommand = (project, event) => {
  const settings = JSON.parse(fs.readFileSync(path.join(project, '.claude/settings.json'), 'utf8'))
  return settings.hooks[event][0].hooks[0].command
}

for (const manager of MANAGERS) {
  const why = skip || manager.missing?.() || false
  test(`${manager.name}: installs with default settings, no script, and its hook runs the native executable`, { skip: why }, async () => {
    const home = path.join(work, manager.name.replaceAll(' ', '-'), 'home')
    const project = path.join(work, manager.name.replaceAll(' ', '-'), 'project')
    fs.mkdirSync(home, { recursive: true })
    const env = freshEnv(home)
    const t0 = Date.now()
    const r = await install(manager, project, registry.url, env)
    const seconds = ((Date.now() - t0) / 1000).toFixed(1)
    const said = r.stdout + r.stderr
    assert.equal(r.status, 0, `${manager.name} install failed:\n${said}`)
    assert.doesNotMatch(said, SCRIPT_WARNING, `${manager.name} warned about scripts:\n${said}`)

    // `hook install` as this manager's users run the package's bin.
    rules(project)
    const [cmd, ...pre] = manager.exec(manager)
    const installed = await runAsync(cmd, [...pre, 'hook', 'install'], { cwd: project, env })
    assert.equal(installed.status, 0, installed.stdout + installed.stderr)
    assert.match(installed.stdout, /safe to commit/, installed.stdout)
    const command = hookCommand(project, 'SessionStart')
    assert.match(command, /^"\$CLAUDE_PROJECT_DIR"\/\S+ hook SessionStart$/, command)
    assert.ok(!command.includes(work), `the command names no path of this machine: ${command}`)

    // The hook as Claude Code runs it, with a `node` on PATH that tells.
    const spy = nodeSpy(path.join(work, manager.name.replaceAll(' ', '-'), 'spy'))
    const hook = spawnSync('sh', ['-c', command], {
      cwd: project,
      env: { ...env, PATH: `${spy.dir}:${env.PATH}`, CLAUDE_PROJECT_DIR: project, WAVE_RULES_STATE_DIR: path.join(home, 'state') },
      input: JSON.stringify({ session_id: 's1', cwd: project, hook_event_name: 'SessionStart', source: 'startup' }),
      encoding: 'utf8',
    })
    assert.equal(hook.status, 0, hook.stdout + hook.stderr)
    assert.match(hook.stdout, /PM-ALWAYS/, `the hook delivered the rule:\n${hook.stdout}\n${hook.stderr}`)
    assert.deepEqual(spy.starts(), [], `no node process for a hook (${command})`)
    // The bin named relative to the project, as Copilot CLI's hooks name it:
    // the launcher finds the package from the name, with no fork.
    const bin = command.replace('"$CLAUDE_PROJECT_DIR"/', '').replace(/ hook SessionStart$/, '')
    const relative = spawnSync('sh', ['-c', `${bin} --version`], { cwd: project, env: { ...env, PATH: `${spy.dir}:${env.PATH}` }, encoding: 'utf8' })
    assert.equal(relative.status, 0, relative.stdout + relative.stderr)
    assert.deepEqual([spy.starts(), spy.readlinks()], [[], []], 'the relative bin started neither node nor readlink')
    console.log(`# ${manager.name}: installed in ${seconds} s; hook: ${command}`)
  })
}

test('npm --omit=optional: no platform package, the Node fallback and its clear message', { skip }, async () => {
  const home = path.join(work, 'omit', 'home')
  const project = path.join(work, 'omit', 'project')
  fs.mkdirSync(home, { recursive: true })
  const env = freshEnv(home)
  const npm = MANAGERS.find((m) => m.name === 'npm')
  const r = await install({ ...npm, add: (reg) => [...npm.add(reg), '--omit=optional'] }, project, registry.url, env)
  assert.equal(r.status, 0, r.stdout + r.stderr)
  assert.ok(!fs.existsSync(path.join(project, 'node_modules/wave-memory-rules-linux-x64-gnu')))
  const spy = nodeSpy(path.join(work, 'omit', 'spy'))
  const out = spawnSync(path.join(project, 'node_modules/.bin/wave-rules'), ['--version'], {
    cwd: project,
    env: { ...env, PATH: `${spy.dir}:${env.PATH}` },
    encoding: 'utf8',
  })
  assert.equal(spy.starts().length, 1, 'the bin fell back to Node')
  assert.equal(out.status, 2, out.stdout + out.stderr)
  assert.match(out.stderr, /could not load the engine on/)
  assert.match(out.stderr, /install with optional dependencies on/)
  assert.doesNotMatch(out.stderr, /\n\s+at /, 'a message, not a stack trace')
})

test('the bin is both a shell script and a Node script', () => {
  const file = path.join(repo, 'bin/wave-rules')
  const text = fs.readFileSync(file, 'utf8')
  assert.ok(text.startsWith('#!/bin/sh\n'), 'run as a program: the shell')
  const shell = text.slice(0, text.indexOf('\n*/\n'))
  assert.ok(!shell.slice(shell.indexOf('/*') + 2).includes('*/'), 'the shell part keeps the comment open for Node')
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' })
  assert.equal(check.status, 0, check.stderr)
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  assert.equal(pkg.scripts.postinstall, undefined, 'no install script')
  assert.equal(pkg.scripts.install, undefined, 'no install script')
  assert.equal(pkg.scripts.preinstall, undefined, 'no install script')
  assert.equal(pkg.preferUnplugged, true, "Yarn PnP unplugs the package: its bin is a file on disk")
})

// The launcher's choice among the layouts package managers make, with a
// stand-in executable per platform package that says its own name.
test('the bin execs the platform package a layout holds: nested before hoisted, one of several by the host, from any name', { skip: process.platform === 'win32' && 'the shell launcher runs on Linux and macOS' }, (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wave-launcher-')))
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const layout = (name, platforms) => {
    const nm = path.join(root, name, 'node_modules')
    const pkg = path.join(nm, 'wave-memory-rules')
    fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true })
    fs.copyFileSync(path.join(repo, 'bin/wave-rules'), path.join(pkg, 'bin/wave-rules'))
    fs.writeFileSync(path.join(pkg, 'bin/wave-rules.js'), '')
    fs.mkdirSync(path.join(nm, '.bin'))
    fs.symlinkSync('../wave-memory-rules/bin/wave-rules', path.join(nm, '.bin/wave-rules'))
    for (const [where, platform] of platforms) {
      const dir = where === 'nested' ? path.join(pkg, 'node_modules', `wave-memory-rules-${platform}`) : path.join(nm, `wave-memory-rules-${platform}`)
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'wave-rules'), `#!/bin/sh\necho ${where} ${platform} "$@"\n`, { mode: 0o755 })
    }
    return path.join(root, name)
  }
  const said = (cwd, bin) => {
    const r = spawnSync('sh', ['-c', `${bin} --version`], { cwd, encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    return r.stdout.trim()
  }
  const host = `${process.platform === 'darwin' ? 'darwin' : 'linux'}-${process.arch === 'arm64' ? 'arm64' : 'x64'}`
  const libc = process.platform === 'darwin' ? '' : fs.existsSync('/lib/ld-musl-x86_64.so.1') || fs.existsSync('/lib/ld-musl-aarch64.so.1') ? '-musl' : '-gnu'
  const hoisted = layout('hoisted', [['hoisted', 'linux-x64-gnu']])
  assert.equal(said(hoisted, 'node_modules/.bin/wave-rules'), 'hoisted linux-x64-gnu --version', 'named relative to the project')
  assert.equal(said(root, `"${hoisted}/node_modules/.bin/wave-rules"`), 'hoisted linux-x64-gnu --version', 'named from the root')
  assert.equal(said(root, `"${hoisted}/node_modules/wave-memory-rules/bin/wave-rules"`), 'hoisted linux-x64-gnu --version', "the package's own path (pnpm's shim)")
  // The version this package needs, nested because another is hoisted: Node's resolution takes it first too.
  const nested = layout('nested', [['hoisted', 'linux-x64-gnu'], ['nested', 'linux-x64-gnu']])
  assert.equal(said(nested, 'node_modules/.bin/wave-rules'), 'nested linux-x64-gnu --version')
  // Yarn Plug'n'Play: both packages unplugged, named from the root or relative to the project.
  const pnp = path.join(root, 'pnp')
  const unplugged = path.join(pnp, '.yarn/unplugged')
  const ours = path.join(unplugged, 'wave-memory-rules-npm-1.0.0-abc/node_modules/wave-memory-rules')
  fs.mkdirSync(path.join(ours, 'bin'), { recursive: true })
  fs.copyFileSync(path.join(repo, 'bin/wave-rules'), path.join(ours, 'bin/wave-rules'))
  fs.writeFileSync(path.join(ours, 'bin/wave-rules.js'), '')
  const exe = path.join(unplugged, 'wave-memory-rules-linux-x64-gnu-npm-1.0.0-def/node_modules/wave-memory-rules-linux-x64-gnu')
  fs.mkdirSync(exe, { recursive: true })
  fs.writeFileSync(path.join(exe, 'wave-rules'), '#!/bin/sh\necho unplugged "$@"\n', { mode: 0o755 })
  const rel = path.relative(pnp, path.join(ours, 'bin/wave-rules'))
  assert.equal(said(pnp, rel), 'unplugged --version', 'relative to the project')
  assert.equal(said(root, `"${path.join(pnp, rel)}"`), 'unplugged --version', 'from the root')
  if (process.platform === 'linux' || process.platform === 'darwin') {
    const several = layout('several', [['hoisted', 'linux-x64-gnu'], ['hoisted', 'linux-x64-musl'], ['hoisted', 'linux-arm64-gnu'], ['hoisted', 'darwin-arm64'], ['hoisted', 'darwin-x64']])
    const want = process.platform === 'darwin' ? host : `${host}${libc}`
    assert.equal(said(several, 'node_modules/.bin/wave-rules'), `hoisted ${want} --version`, 'the host, by uname and the C library')
  }
})
