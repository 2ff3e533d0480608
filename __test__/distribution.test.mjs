// The package as a user gets it: `npm pack` of the main package and of this
// host's platform package (npm/<platform>/ with the built binary), installed
// into a fresh project from the tarballs with no Rust toolchain on PATH; then
// a program bundled with esbuild (the "Bundling" recipe of docs/platforms.md) run from a
// directory where no node_modules can be reached.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))

// This host's napi platform name, as the generated loader spells it.
function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const glibc = process.report?.getReport()?.header?.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

const platform = hostPlatform()
const binary = `${pkg.napi.binaryName}.${platform}.node`
const builtBinary = [path.join(root, binary), path.join(root, 'npm', platform, binary)].find((f) => fs.existsSync(f))

// No cargo, no rustc on PATH: for npm, npm's own directory and the system
// ones (npm runs on the `node` it finds there); for the programs, this
// test's Node first (Node 22 in the Node 22 run).
const npmDir = path.dirname(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())
const noRust = (...dirs) => [...new Set([...dirs, '/usr/bin', '/bin'])].join(path.delimiter)
const env = { PATH: noRust(path.dirname(process.execPath)), HOME: '', npm_config_cache: '', npm_config_update_notifier: 'false' }
for (const k of ['LANG', 'TMPDIR', 'SYSTEMROOT']) if (process.env[k]) env[k] = process.env[k]
const npmEnv = () => ({ ...env, PATH: noRust(npmDir) })

let work
let project
const tarballs = []

const sh = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 180_000, ...opts })
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}\n${r.stdout}\n${r.stderr}${r.error ?? ''}`)
  return r.stdout
}

const PROGRAM = `
const { RuleManager } = require('wave-memory-rules')
const path = require('node:path')
async function main() {
  const workdir = process.argv[2]
  const rules = new RuleManager({ workdir, homeDir: path.join(workdir, 'home') })
  await rules.discoverRules()
  const active = rules.getActiveRules(['src/db/customer.sql'], 'add a customer column').map((r) => r.id)
  console.log(JSON.stringify({ active, diagnostics: rules.getDiagnostics().map((d) => d.code) }))
}
main()
`

function rulesTree(dir) {
  const rules = path.join(dir, '.wave/rules')
  fs.mkdirSync(rules, { recursive: true })
  fs.writeFileSync(path.join(rules, 'sql.md'), '---\npaths: ["src/**/*.sql"]\n---\nMigrations only.')
  fs.writeFileSync(path.join(rules, 'customer.md'), '---\ntopics: [customer]\npriority: 5\n---\nThe customer table is read-only.')
  fs.writeFileSync(path.join(rules, 'react.md'), '---\npaths: ["**/*.tsx"]\n---\nHooks.')
  fs.writeFileSync(path.join(rules, 'broken.md'), '---\npaths: [src/**\n---\nbroken')
  return dir
}
const EXPECTED = { active: ['customer.md', 'sql.md'], diagnostics: ['yaml-syntax'] }

before(() => {
  if (!builtBinary) return
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-dist-'))
  env.HOME = path.join(work, 'home')
  env.npm_config_cache = path.join(work, 'npm-cache')
  fs.mkdirSync(env.HOME)
  // The platform package as `npm run build:targets` / `napi artifacts` leave it.
  const platDir = path.join(work, 'platform')
  fs.cpSync(path.join(root, 'npm', platform), platDir, { recursive: true })
  fs.copyFileSync(builtBinary, path.join(platDir, binary))
  for (const dir of [root, platDir]) {
    const [info] = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: dir, env: npmEnv() }))
    tarballs.push(path.join(work, info.filename))
  }
  project = path.join(work, 'project')
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true }))
  // Offline: the other platforms' optional packages are not fetched (npm
  // skips an optional dependency it cannot get), nothing is built.
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: project, env: npmEnv() })
  fs.writeFileSync(path.join(project, 'app.js'), PROGRAM)
})

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true })
})

test('the packed main package holds no binary; the platform package holds exactly its own', { skip: !builtBinary && `no ${binary} built` }, () => {
  const list = (tgz) => execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).trim().split('\n')
  assert.deepEqual(list(tarballs[0]).filter((f) => /\.(node|wasm)$/.test(f)), [])
  const platformFiles = list(tarballs[1]).filter((f) => f !== 'package/package.json' && !/^package\/README(\.md)?$/i.test(f))
  // The addon, and the CLI's native executable when it was built (npm run build:exe).
  const exe = path.join(root, 'npm', platform, process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules')
  assert.deepEqual(platformFiles.sort(), [`package/${binary}`, ...(fs.existsSync(exe) ? [`package/${path.basename(exe)}`] : [])].sort())
})

test('a fresh project installs the tarballs and runs with no Rust toolchain on PATH', { skip: !builtBinary && `no ${binary} built` }, () => {
  for (const e of [env, npmEnv()]) assert.equal(spawnSync('cargo', ['--version'], { env: e }).error?.code, 'ENOENT', 'cargo is not reachable')
  assert.ok(fs.existsSync(path.join(project, 'node_modules', `${pkg.name}-${platform}`, binary)))
  assert.ok(!fs.existsSync(path.join(project, 'node_modules', pkg.name, binary)))
  const out = sh(process.execPath, ['app.js', rulesTree(path.join(work, 'tree'))], { cwd: project, env: { ...env } })
  assert.deepEqual(JSON.parse(out), EXPECTED)
  // The bin as a shell runs it: it execs the platform package's native executable.
  const bin = spawnSync(path.join(project, 'node_modules/.bin/wave-rules'), ['list', '--json', '--home', env.HOME], { cwd: path.join(work, 'tree'), env, encoding: 'utf8' })
  assert.equal(bin.status, 0, bin.stderr)
  assert.deepEqual(JSON.parse(bin.stdout).rules.map((r) => r.id).sort(), ['customer.md', 'react.md', 'sql.md'])
  assert.match(bin.stderr, /1 problem kept rules from loading/)
})

test('an esbuild bundle runs where no node_modules is reachable (docs/platforms.md "Bundling")', { skip: !builtBinary && `no ${binary} built` }, async () => {
  const esbuild = await import('esbuild')
  const outdir = path.join(work, 'bundle-out')
  // The recipe: bundle everything; the `.node` binary is copied next to the
  // bundle and the bundle requires it by a relative path.
  const result = await esbuild.build({
    entryPoints: [path.join(project, 'app.js')],
    absWorkingDir: project,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outdir,
    loader: { '.node': 'copy' },
    logLevel: 'silent',
  })
  assert.deepEqual(result.errors, [])
  const files = fs.readdirSync(outdir).sort()
  assert.equal(files.filter((f) => f.endsWith('.node')).length, 1, files.join(', '))
  assert.ok(files.includes('app.js'))
  // Ship it: a directory with no node_modules above it.
  const shipped = path.join(work, 'shipped')
  fs.cpSync(outdir, shipped, { recursive: true })
  for (let d = shipped; d !== path.dirname(d); d = path.dirname(d)) assert.ok(!fs.existsSync(path.join(d, 'node_modules')), `${d}/node_modules`)
  const run = spawnSync(process.execPath, [path.join(shipped, 'app.js'), rulesTree(path.join(work, 'tree2'))], { cwd: shipped, env, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  assert.deepEqual(JSON.parse(run.stdout), EXPECTED)
  // Without the copied binary the bundle fails with the package's clear error.
  for (const f of files) if (f.endsWith('.node')) fs.rmSync(path.join(shipped, f))
  const broken = spawnSync(process.execPath, [path.join(shipped, 'app.js'), path.join(work, 'tree2')], { cwd: shipped, env, encoding: 'utf8' })
  assert.notEqual(broken.status, 0)
  assert.match(broken.stderr, /could not load the engine on /)
})
