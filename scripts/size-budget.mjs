// `node scripts/size-budget.mjs [BIN]`: the release binary's size against
// its budget (docs/PERFORMANCE.md, "Binary size"); exits 1 over it. BIN
// defaults to target/release/wave-rules (`cargo build --release -p
// wave-rules`). `--crates UNSTRIPPED` also lists what each crate's code
// adds, from the symbol sizes of an unstripped build of the same sources
// (`CARGO_PROFILE_RELEASE_STRIP=false`; `nm -S -C`, grouped by the crate
// that names the function, as cargo-bloat --crates does).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The budget in bytes: today's size (16.89 MiB, with eval's TLS client and the LSP) and about 10% of room. */
export const BUDGET_BYTES = 18.5 * 1024 * 1024

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const cratesAt = args.indexOf('--crates')
const unstripped = cratesAt >= 0 ? args.splice(cratesAt, 2)[1] : null
const bin = path.resolve(repo, args[0] ?? 'target/release/wave-rules')
const mib = (n) => `${(n / 1024 / 1024).toFixed(2)} MiB`

if (!fs.existsSync(bin)) {
  console.error(`${path.relative(repo, bin)}: not built (cargo build --release -p wave-rules)`)
  process.exit(2)
}
const size = fs.statSync(bin).size
const within = size <= BUDGET_BYTES
console.log(`${path.relative(repo, bin) || bin}: ${mib(size)} (${size} bytes); budget ${mib(BUDGET_BYTES)}: ${within ? 'within' : 'OVER'}`)

if (unstripped) {
  const nm = spawnSync('nm', ['-S', '--size-sort', '-C', unstripped], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  if (nm.status !== 0) {
    console.error(`nm ${unstripped}: ${nm.stderr}`)
    process.exit(2)
  }
  const byCrate = new Map()
  let total = 0
  for (const line of nm.stdout.split('\n')) {
    const m = line.match(/^[0-9a-f]+ ([0-9a-f]+) [tTwW] (.*)$/)
    if (!m) continue
    const bytes = parseInt(m[1], 16)
    total += bytes
    const crate = crateOf(m[2])
    byCrate.set(crate, (byCrate.get(crate) ?? 0) + bytes)
  }
  console.log(`\ncode by crate (${mib(total)} of functions in ${path.basename(unstripped)}):\n`)
  console.log('| crate | code | share |\n| --- | --- | --- |')
  for (const [crate, bytes] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`| ${crate} | ${(bytes / 1024).toFixed(0)} KiB | ${((100 * bytes) / total).toFixed(1)}% |`)
  }
}
process.exit(within ? 0 : 1)

/** The crate a demangled symbol belongs to: the first path segment of the
 * function's own path (`<T as serde::Deserialize>::f` is T's crate, a
 * generic instantiated elsewhere counts where it is defined). */
function crateOf(symbol) {
  let s = symbol.replace(/^(_<|<)+/, '')
  if (s.startsWith('impl ')) s = s.slice(5)
  const m = s.match(/^([A-Za-z_][A-Za-z0-9_]*)::/)
  if (!m) return symbol.includes('::') ? '[other]' : '[C / std / unnamed]'
  return m[1]
}
