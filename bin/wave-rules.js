#!/usr/bin/env node
// `npx wave-rules ...`: the Rust CLI's own code, run through the addon, so a
// JS-only team needs no Rust toolchain and gets byte-identical output. It runs
// on a worker thread: `wave-rules mcp` serves MCP on this process's stdin and
// stdout from there until stdin closes.
'use strict'
const path = require('node:path')
const { runCliAsync } = require('../index.js')

// `mcp install` writes this absolute command (node + this script) into the
// agents' settings, so they do not depend on PATH.
process.env.WAVE_RULES_SELF = JSON.stringify([process.execPath, path.resolve(__filename)])

runCliAsync(process.argv.slice(2)).then(
  ({ stdout, stderr, exitCode }) => {
    if (stdout) process.stdout.write(stdout)
    if (stderr) process.stderr.write(stderr)
    process.exitCode = exitCode
  },
  (error) => {
    process.stderr.write(`wave-rules: ${error && error.message ? error.message : error}\n`)
    process.exitCode = 2
  },
)
