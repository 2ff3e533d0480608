// The addon's telemetry (docs/telemetry.md): an SDK's Node process with it
// switched on (WAVE_RULES_TELEMETRY=1 and the standard OTLP variables) sends
// what its conversations gave and what its tool checks refused to an
// OTLP/HTTP receiver on 127.0.0.1 (http/json, read with the specification's
// JSON mapping), by a thread of its own within seconds, with no command run.
// A process that exits at once leaves its last records in the spool (the
// package spools them at exit), and the next shipping run sends them.
// Off (the default), the process writes no spool.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { tempTree } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** An OTLP/HTTP logs receiver on 127.0.0.1: the records it got, `{ name, attrs }`. */
async function receiver(t) {
  const records = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/logs') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        for (const rl of body.resourceLogs ?? []) {
          for (const sl of rl.scopeLogs ?? []) {
            for (const r of sl.logRecords ?? []) {
              const attrs = Object.fromEntries((r.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]]))
              records.push({ name: r.eventName, attrs })
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }))
  return { url: `http://127.0.0.1:${server.address().port}`, records }
}

/** The SDK process: a conversation's start committed, a write to gen/ refused, a tool check. */
const SDK = `
const { RuleManager } = require(${JSON.stringify(repo)})
const { Conversations, checkToolCall } = require(${JSON.stringify(path.join(repo, 'index.js'))})
;(async () => {
  const m = new RuleManager({ workdir: process.env.WORK, homeDir: process.env.HOME })
  await m.discoverRules()
  const c = new Conversations()
  const conversation = { session: 'sdk-session-1' }
  c.commit(m.engine, c.respond(m.engine, { conversation, kind: 'start' }))
  const refused = c.respond(m.engine, { conversation, kind: 'tool-before', tools: [{ name: 'Write', kind: 'write', input: { file_path: 'gen/a.ts' } }] })
  if (!refused.refusal) throw new Error('no refusal')
  checkToolCall(m.engine, { name: 'run_command', kind: 'shell', input: { command: 'echo x > gen/b.ts' } })
  if (process.env.STAY) setTimeout(() => {}, Number(process.env.STAY))
})()
`

function sdkEnv(tree, extra) {
  return {
    PATH: process.env.PATH,
    HOME: tree.homeDir,
    WORK: tree.workdir,
    WAVE_RULES_STATE_DIR: path.join(tree.root, 'state'),
    WAVE_POLICY_DIR: path.join(tree.root, 'no-policy'),
    ...extra,
  }
}

function project(t) {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be kind.')
  tree.project('gen.md', '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by npm run gen.')
  return tree
}

async function until(check, ms) {
  const end = Date.now() + ms
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 100))
  return check()
}

test("an SDK process sends its deliveries and refusals, with the conversation's session id, within seconds and with no command run", async (t) => {
  const tree = project(t)
  const rx = await receiver(t)
  const env = sdkEnv(tree, { STAY: '20000', WAVE_RULES_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })
  const child = spawn(process.execPath, ['-e', SDK], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  t.after(() => child.kill())
  const started = Date.now()
  const arrived = await until(() => rx.records.filter((r) => r.name === 'wave_rules.rule.enforced').length >= 2 && rx.records.some((r) => r.name === 'wave_rules.rule.delivered'), 10_000)
  assert.ok(arrived, `within 10 s: ${JSON.stringify(rx.records)}\n${stderr}`)
  assert.ok(Date.now() - started < 10_000)
  const delivered = rx.records.find((r) => r.name === 'wave_rules.rule.delivered')
  assert.deepEqual([delivered.attrs['wave_rules.rule.id'], delivered.attrs['session.id']], ['always.md', 'sdk-session-1'])
  const refusals = rx.records.filter((r) => r.name === 'wave_rules.rule.enforced')
  assert.deepEqual(refusals.map((r) => [r.attrs['wave_rules.rule.id'], r.attrs['wave_rules.enforce.decision'], r.attrs['session.id']]).sort(), [['gen.md', 'block', 'check'], ['gen.md', 'block', 'sdk-session-1']])
  // Privacy by default: no path, no rule text.
  const sent = JSON.stringify(rx.records)
  assert.ok(!sent.includes('gen/a.ts') && !sent.includes('Be kind') && !sent.includes(tree.workdir), sent)
})

test('a process that exits at once leaves its records in the spool, and the next shipping run sends them; off, nothing is spooled', async (t) => {
  const tree = project(t)
  const rx = await receiver(t)
  const on = { WAVE_RULES_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }
  const spool = path.join(tree.root, 'state', 'telemetry')
  const off = spawnSync(process.execPath, ['-e', SDK], { env: sdkEnv(tree, {}), encoding: 'utf8' })
  assert.equal(off.status, 0, off.stderr)
  assert.ok(!fs.existsSync(spool) || fs.readdirSync(spool).length === 0, 'off: no spool')
  const r = spawnSync(process.execPath, ['-e', SDK], { env: sdkEnv(tree, on), encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  assert.ok(fs.existsSync(spool) && fs.readdirSync(spool).length > 0, 'the records are in the spool')
  // Not spawnSync: the receiver answers on this process's event loop.
  const ship = await new Promise((resolve) => {
    const c = spawn(rustBin(), ['--workdir', tree.workdir, '--home', tree.homeDir, 'telemetry', 'ship', '--seconds', '10'], { env: sdkEnv(tree, on) })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    c.on('close', (status) => resolve({ status, stdout, stderr }))
  })
  assert.equal(ship.status, 0, ship.stderr)
  assert.ok(rx.records.some((x) => x.name === 'wave_rules.rule.delivered' && x.attrs['session.id'] === 'sdk-session-1'), `${ship.stdout}\n${JSON.stringify(rx.records)}`)
  assert.equal(rx.records.filter((x) => x.name === 'wave_rules.rule.enforced').length, 2)
})
