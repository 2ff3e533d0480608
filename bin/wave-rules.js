#!/usr/bin/env node
// `npx wave-rules ...`: the Rust CLI's own code, run through the addon, so a
// JS-only team needs no Rust toolchain and gets byte-identical output.
// `wave-rules mcp` runs on a worker thread (runCliAsync): the server serves
// MCP on this process's stdin and stdout from there until stdin closes.
'use strict'
const fs = require('node:fs')

const args = process.argv.slice(2)
const hook = args[0] === 'hook'
const events = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop']

// A hook must never fail the agent's turn: any trouble is one stderr line, exit 0.
function main() {
  const { runCli } = require('../index.js')
  let stdin
  if (hook && events.includes(args[1])) {
    try {
      stdin = fs.readFileSync(0)
    } catch (e) {
      stdin = Buffer.alloc(0)
    }
  }
  if (hook && (args[1] === 'install') && !args.some((a) => a === '--command' || a.startsWith('--command='))) {
    // The hooks run this very script with this very node, by absolute path
    // (no PATH, no npx resolution on every hook).
    const quote = (s) => (/^[A-Za-z0-9/._+:@=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)
    args.push('--command', `${quote(process.execPath)} ${quote(fs.realpathSync(__filename))}`)
  }
  return runCli(args, stdin)
}

// `mcp install` writes this absolute command (node + this script) into the
// agents' settings, so they do not depend on PATH.
process.env.WAVE_RULES_SELF = JSON.stringify([process.execPath, fs.realpathSync(__filename)])

function write(out) {
  process.stdout.write(out.stdout)
  process.stderr.write(out.stderr)
  process.exitCode = out.exitCode
}

if (args.includes('mcp') && !args.includes('install') && !args.includes('uninstall')) {
  const { runCliAsync } = require('../index.js')
  runCliAsync(args).then(write, (e) => write({ stdout: '', stderr: `wave-rules: ${e && e.message ? e.message : e}\n`, exitCode: 2 }))
} else {
  let out
  try {
    out = main()
  } catch (e) {
    if (!hook) throw e
    out = { stdout: '', stderr: `wave-rules hook: ${String(e && e.message ? e.message : e).split('\n')[0]}\n`, exitCode: 0 }
  }
  write(out)
}
