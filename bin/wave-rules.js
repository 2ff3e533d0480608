#!/usr/bin/env node
// `npx wave-rules ...`: the Rust CLI's own code, run through the addon, so a
// JS-only team needs no Rust toolchain and gets byte-identical output.
'use strict'

// On the WebAssembly fallback, Node warns once that WASI is experimental.
// The CLI's stderr is its own output, byte-identical to the Rust binary's,
// so that one warning is dropped here; every other warning still prints.
const emitWarning = process.emitWarning
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning && warning.message
  if (typeof text === 'string' && text.startsWith('WASI is an experimental feature')) return
  return emitWarning.call(this, warning, ...rest)
}

let binding
try {
  binding = require('../dist/binding.js')
} catch (error) {
  // No binary and no fallback for this host: the package's clear message,
  // without a stack trace, and the CLI's exit code for trouble.
  if (!error || error.code !== 'ERR_WAVE_MEMORY_RULES_LOAD') throw error
  process.stderr.write(`wave-rules: ${error.message}\n`)
  process.exit(2)
}
const { native, syncWorkingDir } = binding

syncWorkingDir()
const { stdout, stderr, exitCode } = native.runCli(process.argv.slice(2))
process.stdout.write(stdout)
process.stderr.write(stderr)
process.exitCode = exitCode
