// The `wave-rules` executable the Node tests run, and the platform package
// it ships in (npm/<platform>/).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const exeName = process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules'

/** This machine's platform package name (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`). */
export function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report?.getReport()?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

/** The newest modification time (ms) of the Rust sources and manifests. */
function newestRustSource() {
  let newest = 0
  const see = (f) => (newest = Math.max(newest, fs.statSync(f).mtimeMs))
  for (const f of ['Cargo.toml', 'Cargo.lock']) see(path.join(repo, f))
  for (const dir of ['src', 'crates/memory-rules', 'crates/wave-rules']) {
    for (const f of fs.readdirSync(path.join(repo, dir), { recursive: true })) {
      if (/\.(rs|toml)$/.test(f) && !String(f).includes('target')) see(path.join(repo, dir, f))
    }
  }
  return newest
}

let cached
/**
 * The Rust CLI: the release executable `npm run build:exe` put in
 * npm/<platform>/ (what ships; `npm test` builds it before the Node tests)
 * when it is newer than every Rust source, else a debug build
 * (`cargo build -p wave-rules`; after `cargo test --workspace`, whose
 * features differ, that is a build of its own: a minute or two).
 */
export function rustBin() {
  if (cached) return cached
  const shipped = path.join(repo, 'npm', hostPlatform(), exeName)
  if (fs.existsSync(shipped) && fs.statSync(shipped).mtimeMs >= newestRustSource()) return (cached = shipped)
  const build = spawnSync('cargo', ['build', '-q', '-p', 'wave-rules'], { cwd: repo, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`cargo build -p wave-rules failed: ${build.stderr}`)
  return (cached = path.join(repo, 'target/debug', exeName))
}
