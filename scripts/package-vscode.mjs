// npm run package:vscode [-- --target T] [--binary FILE] [--universal] [--out FILE.vsix]
//
// The VS Code extension (vscode-extension/) bundled with esbuild
// (vscode-languageclient inside, `vscode` left to the editor) and packaged
// with @vscode/vsce, in a temp copy so the checkout stays clean.
//
// By default the platform-specific package of this machine, carrying the
// `wave-rules` binary as server/wave-rules: dist/wave-rules-linux-x64.vsix
// on Linux x64 with glibc (VS Code's target names: linux-x64, linux-arm64,
// alpine-x64, alpine-arm64 for musl, darwin-x64, darwin-arm64, win32-x64,
// win32-arm64). The binary is npm/<platform>/wave-rules, as `npm run
// build:exe` leaves it (built here when missing, for this machine only), or
// --binary FILE. --universal: no binary and no target (the package for the
// platforms without one; it runs the project's or PATH's wave-rules).
// --ls: list what the package holds (`vsce ls` on the staged folder), build nothing.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')

/** VS Code's target -> the npm platform package that holds its binary. */
const TARGETS = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'alpine-x64': 'linux-x64-musl',
  'alpine-arm64': 'linux-arm64-musl',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64-msvc',
  'win32-arm64': 'win32-arm64-msvc',
}

/** This machine's VS Code target: glibc Linux is linux-*, musl alpine-*. */
function hostTarget() {
  const { platform, arch } = process
  if (platform === 'linux') return `${process.report?.getReport()?.header?.glibcVersionRuntime ? 'linux' : 'alpine'}-${arch}`
  return `${platform}-${arch}`
}

function option(name) {
  const at = process.argv.indexOf(name)
  return at > 0 ? process.argv[at + 1] : undefined
}

function fail(message) {
  console.error(`package:vscode: ${message}`)
  process.exit(1)
}

/** The binary to bundle for `target`, built for this machine when missing. */
function serverBinary(target) {
  const exe = target.startsWith('win32') ? 'wave-rules.exe' : 'wave-rules'
  const given = option('--binary')
  if (given) return fs.existsSync(given) ? path.resolve(given) : fail(`--binary ${given}: no such file`)
  const file = path.join(root, 'npm', TARGETS[target], exe)
  if (fs.existsSync(file)) return file
  if (target !== hostTarget()) fail(`${path.relative(root, file)} is missing: build it on a ${target} machine (npm run build:exe) or pass --binary FILE`)
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/platform-exe.mjs')], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
  return file
}

async function stage(work, binary, target) {
  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'icon.png', '.vscodeignore']) {
    fs.copyFileSync(path.join(root, 'vscode-extension', f), path.join(work, f))
  }
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(work, 'LICENSE'))
  await build({
    entryPoints: [path.join(root, 'vscode-extension/extension.js')],
    outfile: path.join(work, 'dist/extension.js'),
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'error',
  })
  if (binary) {
    const dest = path.join(work, 'server', target.startsWith('win32') ? 'wave-rules.exe' : 'wave-rules')
    fs.mkdirSync(path.dirname(dest), { recursive: true })
    fs.copyFileSync(binary, dest)
    fs.chmodSync(dest, 0o755)
  }
}

const universal = process.argv.includes('--universal')
const target = universal ? null : (option('--target') ?? hostTarget())
if (target && !TARGETS[target]) fail(`unknown target ${target}; one of ${Object.keys(TARGETS).join(', ')}`)
const out = path.resolve(option('--out') ?? path.join(root, 'dist', target ? `wave-rules-${target}.vsix` : 'wave-rules.vsix'))
const binary = target ? serverBinary(target) : null
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-vscode-'))
try {
  await stage(work, binary, target)
  fs.mkdirSync(path.dirname(out), { recursive: true })
  const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce')
  if (process.argv.includes('--ls')) {
    const r = spawnSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: work, stdio: 'inherit' })
    process.exitCode = r.status ?? 1
  } else pack(vsce, work)
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}

function pack(vsce, work) {
  const args = [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out, ...(target ? ['--target', target] : [])]
  const r = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8' })
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr)
    process.exit(r.status ?? 1)
  }
  const size = (fs.statSync(out).size / 1024 / 1024).toFixed(1)
  console.log(`packaged ${path.relative(process.cwd(), out) || out} (${target ?? 'universal'}, ${size} MiB)`)
}
