// For the benches: the package as npm users get it. `npm pack` of the main
// package and of this host's platform package (the built addon and the
// native `wave-rules`, as `npm run build` and `npm run build:exe` leave
// them), installed with `npm install` into `project` (the bin execs the
// native executable; no install script). Returns the project's
// node_modules/.bin/wave-rules, or a reason it could not be set up.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report?.getReport()?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

export function installFromTarballs(project) {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  const platform = hostPlatform()
  const addon = `${pkg.napi.binaryName}.${platform}.node`
  const exe = process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules'
  const builtAddon = [path.join(repo, addon), path.join(repo, 'npm', platform, addon)].find((f) => fs.existsSync(f))
  const builtExe = [path.join(repo, 'npm', platform, exe), path.join(repo, 'target/release', exe)].find((f) => fs.existsSync(f))
  if (!builtAddon) return { reason: `no ${addon} (npm run build)` }
  if (!builtExe) return { reason: `no ${exe} (npm run build:exe)` }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-bench-pack-'))
  try {
    const platDir = path.join(work, 'platform')
    fs.cpSync(path.join(repo, 'npm', platform), platDir, { recursive: true })
    fs.copyFileSync(builtAddon, path.join(platDir, addon))
    fs.copyFileSync(builtExe, path.join(platDir, exe))
    fs.chmodSync(path.join(platDir, exe), 0o755)
    const tarballs = []
    for (const dir of [repo, platDir]) {
      const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: dir, encoding: 'utf8' })
      if (r.status !== 0) return { reason: `npm pack failed: ${r.stderr}` }
      tarballs.push(path.join(work, JSON.parse(r.stdout)[0].filename))
    }
    if (!fs.existsSync(path.join(project, 'package.json'))) fs.writeFileSync(path.join(project, 'package.json'), '{"name":"bench-project","private":true}\n')
    const r = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: project, encoding: 'utf8' })
    if (r.status !== 0) return { reason: `npm install failed: ${r.stderr}` }
    return { bin: path.join(project, 'node_modules/.bin/wave-rules') }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
