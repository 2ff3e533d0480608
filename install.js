// postinstall: put the platform package's native `wave-rules` executable in
// place of bin/wave-rules, so that node_modules/.bin/wave-rules (and
// `npx wave-memory-rules`) start the binary itself, no Node: a Claude Code
// hook costs the binary's few milliseconds, not Node's start. This is
// esbuild's layout (its install.js does the same to bin/esbuild); biome's
// JS launcher that spawns the binary keeps Node's start on every call.
//
// Only an optimization: nothing here may fail the install. Skipped on
// Windows (npm's .cmd shims run bin/wave-rules through node), in this
// repository (not inside node_modules), when the platform package or its
// executable is missing (another platform, --no-optional), or when the
// executable does not answer `--version` with this package's version. Then
// bin/wave-rules stays the Node script, which runs the same CLI through the
// addon.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

function platformPackage() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const glibc = process.report && process.report.getReport().header.glibcVersionRuntime
    return `wave-memory-rules-linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  return `wave-memory-rules-${platform}-${arch}`
}

function main() {
  if (process.platform === 'win32') return 'Windows: the bin stays the Node script'
  if (!__dirname.split(path.sep).includes('node_modules')) return 'not installed as a dependency'
  const version = require('./package.json').version
  let exe
  try {
    exe = path.join(path.dirname(require.resolve(`${platformPackage()}/package.json`)), 'wave-rules')
  } catch {
    return `no ${platformPackage()}`
  }
  if (!fs.existsSync(exe)) return `no executable in ${platformPackage()}`
  fs.chmodSync(exe, 0o755)
  const out = execFileSync(exe, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
  if (out.trim() !== `wave-rules ${version}`) return `${exe} says ${out.trim()}`
  const bin = path.join(__dirname, 'bin', 'wave-rules')
  const temp = `${bin}.${process.pid}.tmp`
  try {
    fs.linkSync(exe, temp)
  } catch {
    fs.copyFileSync(exe, temp)
    fs.chmodSync(temp, 0o755)
  }
  fs.renameSync(temp, bin)
  return undefined
}

try {
  const skipped = main()
  if (skipped && process.env.WAVE_RULES_INSTALL_DEBUG) console.error(`wave-memory-rules install: ${skipped}`)
} catch (e) {
  if (process.env.WAVE_RULES_INSTALL_DEBUG) console.error(`wave-memory-rules install: ${e && e.message}`)
}
