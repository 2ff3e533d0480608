// `npm run build:exe [-- TARGET]`: builds the `wave-rules` executable in
// release (`cargo build --release -p wave-rules --target TARGET`, this
// machine's triple when none is given: the triple `napi build` passes, so
// the dependencies the addon's build compiled are reused, not built again)
// and copies it into its platform package, npm/<platform>/wave-rules (.exe
// on Windows), beside the addon: what the npm bin (bin/wave-rules) execs.
// A build for this machine is copied to target/release/ too, where the
// benches and scripts that take `cargo build --release`'s binary look.
// `--no-build` copies only: `npm run build:all` built it with the addon.
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
const triple = target ?? /^host: (\S+)$/m.exec(spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout ?? '')?.[1]
if (!triple) throw new Error('rustc -vV names no host triple (is Rust installed?)')
const args = ['build', '--release', '-q', '-p', 'wave-rules', '--target', triple]
if (!process.argv.includes('--no-build')) {
  const r = spawnSync('cargo', args, { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
const exe = platform.startsWith('win32') ? 'wave-rules.exe' : 'wave-rules'
// Cargo's build directory: CARGO_TARGET_DIR when set (relative to the root), else target/.
const targetDir = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target')
const built = path.join(targetDir, triple, 'release', exe)
const dests = [path.join(root, 'npm', platform, exe), ...(target ? [] : [path.join(targetDir, 'release', exe)])]
for (const dest of dests) {
  fs.mkdirSync(path.dirname(dest), { recursive: true })
  fs.rmSync(dest, { force: true }) // cargo hard-links target/release/wave-rules to its own copy
  fs.copyFileSync(built, dest)
  fs.chmodSync(dest, 0o755)
}
console.log(`${path.relative(root, built)} -> ${dests.map((d) => path.relative(root, d)).join(', ')}`)
