// `npm run build:exe [-- TARGET]`: builds the `wave-rules` executable in
// release (`cargo build --release -p wave-rules`, for TARGET when given) and
// copies it into its platform package, npm/<platform>/wave-rules (.exe on
// Windows), beside the addon: what the npm bin (bin/wave-rules) execs.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const target = process.argv.slice(2).find((a) => !a.startsWith('--'))
const platforms = {
  'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
  'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
  'x86_64-unknown-linux-musl': 'linux-x64-musl',
  'aarch64-unknown-linux-musl': 'linux-arm64-musl',
  'x86_64-apple-darwin': 'darwin-x64',
  'aarch64-apple-darwin': 'darwin-arm64',
  'x86_64-pc-windows-msvc': 'win32-x64-msvc',
  'aarch64-pc-windows-msvc': 'win32-arm64-msvc',
}
function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report?.getReport()?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}
const platform = target ? platforms[target] : hostPlatform()
if (!platform) throw new Error(`no platform package for ${target}`)
const args = ['build', '--release', '-q', '-p', 'wave-rules', ...(target ? ['--target', target] : [])]
if (!process.argv.includes('--no-build')) {
  const r = spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
const exe = platform.startsWith('win32') ? 'wave-rules.exe' : 'wave-rules'
// Cargo's build directory: CARGO_TARGET_DIR when set (relative to the root), else target/.
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target')
const built = path.join(targetDir, ...(target ? [target] : []), 'release', exe)
const dest = path.join(root, 'npm', platform, exe)
fs.copyFileSync(built, dest)
fs.chmodSync(dest, 0o755)
console.log(`${path.relative(root, built)} -> ${path.relative(root, dest)}`)
