#!/usr/bin/env node
// The CLI through the addon: the `wave-memory-rules` bin (`npx
// wave-memory-rules ...`, on every OS), and what bin/wave-rules runs when no
// native executable was installed or when Node starts it (Yarn runs bins
// with Node). The Rust CLI's own code, so a JS-only team needs no Rust
// toolchain and gets byte-identical output.
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
  return runCli(args, stdin)
}

/**
 * This machine's command for the CLI: the platform package's native
 * `wave-rules` when it is there (what bin/wave-rules execs), else this
 * script with this node. The Rust side writes it where a path of
 * this machine belongs (user settings, a local settings file); project
 * settings name the project's node_modules/.bin/wave-rules instead.
 */
function thisProgram() {
  const path = require('node:path')
  try {
    const { candidatePackages } = require('../dist/binding.js')
    for (const name of candidatePackages()) {
      if (name.endsWith('-wasm32-wasi')) continue
      let dir
      try {
        dir = path.dirname(require.resolve(`${name}/package.json`))
      } catch {
        continue
      }
      const exe = path.join(dir, process.platform === 'win32' ? 'wave-rules.exe' : 'wave-rules')
      if (fs.existsSync(exe)) return [fs.realpathSync(exe)]
    }
  } catch {
    // no platform package: the addon through Node
  }
  return [process.execPath, fs.realpathSync(__filename)]
}

// Installs and `doctor` need this machine's command for the CLI. The
// WebAssembly build sees the environment as it was when the binding loaded
// (which thisProgram does), so the Node script's own command is set first:
// on that build it is the answer (no native executable there).
if (args.includes('install') || args.includes('uninstall') || args[0] === 'doctor') {
  process.env.WAVE_RULES_SELF = JSON.stringify([process.execPath, fs.realpathSync(__filename)])
  process.env.WAVE_RULES_SELF = JSON.stringify(thisProgram())
}
const mcp = args.includes('mcp')
const mcpServe = mcp && !args.includes('install') && !args.includes('uninstall')

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
