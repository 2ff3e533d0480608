#!/usr/bin/env node
// `npx wave-rules ...`: the Rust CLI's own code, run through the addon, so a
// JS-only team needs no Rust toolchain and gets byte-identical output.
'use strict'
const { runCli } = require('../index.js')

const { stdout, stderr, exitCode } = runCli(process.argv.slice(2))
process.stdout.write(stdout)
process.stderr.write(stderr)
process.exitCode = exitCode
