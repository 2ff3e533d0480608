#!/usr/bin/env node
// `npx wave-rules ...`: the Rust CLI's own code, run through the addon, so a
// JS-only team needs no Rust toolchain and gets byte-identical output.
// `wave-rules mcp` runs on a worker thread (runCliAsync): the server serves
// MCP on this process's stdin and stdout from there until stdin closes.
'use strict'
const fs = require('node:fs')

// On the WebAssembly fallback, Node warns once that WASI is experimental.
// The CLI's stderr is its own output, byte-identical to the Rust binary's,
// so that one warning is dropped here; every other warning still prints.
const emitWarning = process.emitWarning
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning && warning.message
  if (typeof text === 'string' && text.startsWith('WASI is an experimental feature')) return
  return emitWarning.call(this, warning, ...rest)
}

const args = process.argv.slice(2)
const hook = args[0] === 'hook'
const events = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop']

// A hook must never fail the agent's turn: any trouble is one stderr line, exit 0.
function main() {
  // Through the package's loader: its clear error when no binary fits, and
  // the working directory handed to the WASI build.
  const { native, syncWorkingDir } = require('../dist/binding.js')
  syncWorkingDir()
  const { runCli } = native
  let stdin
  if (hook && events.includes(args[1])) {
    try {
      stdin = fs.readFileSync(0)
    } catch (e) {
      stdin = Buffer.alloc(0)
    }
  }
  if (hook && (args[1] === 'install') && !args.some((a) => a === '--command' || a.startsWith('--command='))) {
    // The fastest form available, by absolute path (no PATH lookup, no npx
    // on every hook): a native `wave-rules` of this version on PATH, else
    // this very script with this very node.
    const quote = (s) => (/^[A-Za-z0-9/._+:@=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
    const native = nativeBinary()
    args.push('--command', native ? quote(native) : `${quote(process.execPath)} ${quote(fs.realpathSync(__filename))}`)
  }
  return runCli(args, stdin)
}

/** A compiled `wave-rules` on PATH whose version is this package's, or undefined. */
function nativeBinary() {
  const path = require('node:path')
  const { execFileSync } = require('node:child_process')
  const version = require('../package.json').version
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules')
    try {
      const real = fs.realpathSync(file)
      const head = Buffer.alloc(4)
      const fd = fs.openSync(real, 'r')
      fs.readSync(fd, head, 0, 4, 0)
      fs.closeSync(fd)
      const magic = head.readUInt32BE(0)
      const compiled = magic === 0x7f454c46 || head.readUInt16BE(0) === 0x4d5a || [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)
      if (!compiled) continue // a script (this bin, linked by npm)
      const out = execFileSync(real, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] })
      if (out.trim() === `wave-rules ${version}`) return real
    } catch {
      // not there, not runnable: next
    }
  }
  return undefined
}

// `mcp install` writes an absolute command into the agents' settings, so they
// do not depend on PATH: a native `wave-rules` of this version on PATH, else
// this very script with this very node.
const mcp = args.includes('mcp')
const mcpServe = mcp && !args.includes('install') && !args.includes('uninstall')
if (mcp && args.includes('install')) {
  const native = nativeBinary()
  process.env.WAVE_RULES_SELF = JSON.stringify(native ? [native] : [process.execPath, fs.realpathSync(__filename)])
}

function write(out) {
  process.stdout.write(out.stdout)
  process.stderr.write(out.stderr)
  process.exitCode = out.exitCode
}

function loadError(e) {
  if (e && e.code === 'ERR_WAVE_MEMORY_RULES_LOAD') {
    // No binary and no fallback for this host: the message alone, and the
    // CLI's exit code for trouble.
    process.stderr.write(`wave-rules: ${e.message}\n`)
    process.exit(2)
  }
}

if (mcpServe) {
  let native
  try {
    const binding = require('../dist/binding.js')
    binding.syncWorkingDir()
    native = binding.native
  } catch (e) {
    loadError(e)
    throw e
  }
  native.runCliAsync(args).then(write, (e) => write({ stdout: '', stderr: `wave-rules: ${e && e.message ? e.message : e}\n`, exitCode: 2 }))
} else {
  let out
  try {
    out = main()
  } catch (e) {
    if (!hook) loadError(e)
    if (!hook) throw e
    out = { stdout: '', stderr: `wave-rules hook: ${String(e && e.message ? e.message : e).split('\n')[0]}\n`, exitCode: 0 }
  }
  write(out)
}
