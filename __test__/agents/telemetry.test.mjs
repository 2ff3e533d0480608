// Telemetry end to end: the real Claude Code and Codex (pinned, headless, against the
// fake model) with the hooks installed and its own OpenTelemetry on, both
// sending to one OTLP receiver on 127.0.0.1. Our records (http/protobuf, as
// the policy's config.toml chooses) and Claude Code's (http/json) are decoded
// with the official protocol definitions (crates/wave-rules/examples/
// otlp_decode.rs: the opentelemetry-proto crate). Checked: our records carry
// Claude Code's session.id; the deliveries and a refusal arrive; with the
// receiver down during a session and back for the next, every record
// arrives, once. Codex: its hooks' records carry Codex's own session id
// (its rollout file's), deliveries and a refusal of a shell write. About
// 1-2 minutes (three short Claude Code sessions, one Codex session).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { execFileSync, spawnSync } from 'node:child_process'
import { agentHarness, claudeEnv, installBin, rules, claudeBinary, waveRulesBinary, run, writeTree } from './agents.mjs'
import { DRIVERS } from './drivers.mjs'

const claude = claudeBinary()
const skip = claude ? false : 'the @anthropic-ai/claude-code devDependency is not installed'
const codexSkip = DRIVERS.codex.skip
const TIMEOUT = 90_000
const MODEL = 'claude-sonnet-4-5'
const repo = path.resolve(import.meta.dirname, '../..')

const h = agentHarness({ prefix: 'wave-telemetry-' })
let bin
let decoder
before(async () => {
  if (skip && codexSkip) return
  bin = waveRulesBinary()
  const built = spawnSync('cargo', ['build', '-q', '-p', 'wave-rules', '--example', 'otlp_decode'], { cwd: repo, encoding: 'utf8' })
  assert.equal(built.status, 0, built.stderr)
  decoder = path.join(repo, 'target/debug/examples/otlp_decode')
  await h.start()
})

/** An OTLP/HTTP receiver on 127.0.0.1 keeping each request's body in `dir`. */
function receiver(dir, port = 0) {
  fs.mkdirSync(dir, { recursive: true })
  let n = fs.readdirSync(dir).filter((f) => f.endsWith('.bin')).length
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      if (req.url.endsWith('/v1/logs')) {
        const name = path.join(dir, String(n++).padStart(5, '0'))
        fs.writeFileSync(`${name}.bin`, Buffer.concat(chunks))
        fs.writeFileSync(`${name}.type`, req.headers['content-type'] ?? '')
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, port: server.address().port, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }) })))
}

/** Every log record received, decoded with the official definitions: `{ service, name, attrs }`. */
function received(dir) {
  const out = execFileSync(decoder, [dir], { encoding: 'utf8' })
  const records = []
  for (const line of out.split('\n').filter(Boolean)) {
    const request = JSON.parse(line)
    assert.equal(request.error, undefined, line)
    for (const rl of request.resourceLogs ?? []) {
      const service = (rl.resource?.attributes ?? []).find((a) => a.key === 'service.name')?.value?.stringValue
      for (const sl of rl.scopeLogs ?? []) {
        for (const r of sl.logRecords ?? []) {
          const attrs = Object.fromEntries((r.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]]))
          records.push({ service, name: r.eventName || attrs['event.name'] || r.body?.stringValue, attrs })
        }
      }
    }
  }
  return records
}

async function until(check, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 250))
  }
  return check()
}

const ours = (records) => records.filter((r) => r.service === 'wave-rules')

let rx
after(async () => rx?.close())

test('Claude Code and wave-rules telemetry: one receiver, one session id, deliveries and a refusal; a receiver down loses nothing', { skip, timeout: 6 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'telemetry')
  const work = path.join(root, 'work')
  const home = path.join(root, 'home')
  const policy = path.join(root, 'policy')
  const dump = path.join(root, 'received')
  writeTree(work, {
    ...rules('general', 'ts'),
    '.wave/rules/gen.md': '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.\n',
    'src/a.ts': 'export const a = 1\n',
    'CLAUDE.md': 'Project notes for Claude Code.\n',
  })
  fs.mkdirSync(home, { recursive: true })
  rx = await receiver(dump)
  // An administrator's policy switches it on for everyone, in protobuf, to
  // the organisation's endpoint (Claude Code runs its hooks without the
  // OTEL_* variables of its own exporter).
  writeTree(policy, { 'config.toml': `[telemetry]\nenabled = true\nprotocol = "http/protobuf"\nendpoint = "http://127.0.0.1:${rx.port}"\n` })
  const env = claudeEnv(home, h.server.url, {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${rx.port}`,
    OTEL_LOGS_EXPORT_INTERVAL: '500',
    WAVE_POLICY_DIR: policy,
  })
  delete env.DISABLE_TELEMETRY
  installBin(work, bin)
  execFileSync(bin, ['hook', 'install'], { cwd: work, env, encoding: 'utf8' })
  const claudeRun = async (prompt, session) => {
    h.server.setWorkdir(work)
    const r = await run(claude, ['-p', prompt, '--session-id', session, '--model', MODEL, '--output-format', 'json', '--permission-mode', 'acceptEdits'], { cwd: work, env, timeout: TIMEOUT })
    assert.ok(!r.timedOut, `claude timed out\n${r.stderr}`)
    return r
  }

  // Session 1: a read brings the path rule, a write to gen/ is refused.
  const s1 = '0c0ffee0-0000-4000-8000-0000000000a1'
  await claudeRun('fix the query READ:src/a.ts WRITE:gen/new.ts', s1)
  assert.ok(!fs.existsSync(path.join(work, 'gen/new.ts')), 'the write was refused')
  await until(() => ours(received(dump)).some((r) => r.name === 'wave_rules.rule.enforced'), 15_000)
  const all = received(dump)
  const mine = ours(all).filter((r) => r.attrs['session.id'] === s1)
  const theirs = all.filter((r) => r.service !== 'wave-rules')
  const delivered = mine.filter((r) => r.name === 'wave_rules.rule.delivered' && r.attrs['wave_rules.delivered_by'] === 'wave-rules').map((r) => r.attrs['wave_rules.rule.id'])
  const spool = path.join(home, '.local/state/wave-rules/telemetry')
  const state = () => (fs.existsSync(spool) ? fs.readdirSync(spool).map((f) => `${f}: ${fs.readFileSync(path.join(spool, f), 'utf8').slice(0, 300)}`).join('\n') : 'no spool')
  assert.ok(delivered.includes('general.md') && delivered.includes('ts.md'), `${JSON.stringify(delivered)}\n${state()}\n${all.length} records received`)
  const byAgent = mine.filter((r) => r.attrs['wave_rules.delivered_by'] === 'agent').map((r) => r.attrs['wave_rules.rule.id'])
  assert.ok(byAgent.includes('CLAUDE.md'), `Claude Code's own load of CLAUDE.md (InstructionsLoaded), its id relative to the project: ${JSON.stringify(byAgent)}`)
  const refusal = mine.find((r) => r.name === 'wave_rules.rule.enforced')
  assert.equal(refusal?.attrs['wave_rules.rule.id'], 'gen.md')
  assert.equal(refusal?.attrs['wave_rules.enforce.decision'], 'block')
  assert.ok(theirs.length > 0, 'Claude Code sent its own events to the same receiver')
  assert.ok(theirs.some((r) => r.attrs['session.id'] === s1), `Claude Code's events carry the same session.id: ${JSON.stringify(theirs.slice(0, 3))}`)
  // The session's records side by side, for the closing note.
  const side = [...theirs.filter((r) => r.attrs['session.id'] === s1).map((r) => `claude-code  ${r.name}${r.attrs.decision ? ` decision=${r.attrs.decision} source=${r.attrs.source}` : ''}${r.attrs.tool_name ? ` tool=${r.attrs.tool_name}` : ''}`),
    ...mine.map((r) => `wave-rules   ${r.name} ${r.attrs['wave_rules.rule.id'] ?? ''} ${r.attrs['wave_rules.delivery.why'] ?? r.attrs['wave_rules.enforce.decision'] ?? ''} by=${r.attrs['wave_rules.delivered_by'] ?? '-'}`)]
  if (process.env.WAVE_TELEMETRY_SIDE) fs.writeFileSync(process.env.WAVE_TELEMETRY_SIDE, side.join('\n') + '\n')

  // Session 2 with the receiver down: the records wait in the spool.
  const port = rx.port
  await rx.close()
  const s2 = '0c0ffee0-0000-4000-8000-0000000000a2'
  await claudeRun('look again READ:src/a.ts WRITE:gen/again.ts', s2)
  // Session 3 with it back: the shipper started at its start sends both.
  rx = await receiver(dump, port)
  const s3 = '0c0ffee0-0000-4000-8000-0000000000a3'
  await claudeRun('once more READ:src/a.ts', s3)
  const arrived = () => ours(received(dump))
  await until(() => arrived().some((r) => r.attrs['session.id'] === s2 && r.name === 'wave_rules.rule.enforced') && arrived().some((r) => r.attrs['session.id'] === s3), 30_000)
  const after = arrived()
  assert.ok(after.some((r) => r.attrs['session.id'] === s2 && r.name === 'wave_rules.rule.enforced'), 'the refusal of the session with the receiver down arrived')
  assert.ok(after.some((r) => r.attrs['session.id'] === s3 && r.name === 'wave_rules.rule.delivered'))
  const ids = after.map((r) => r.attrs['wave_rules.record.id'])
  assert.equal(new Set(ids).size, ids.length, 'every record once')
})

test('Codex and wave-rules telemetry: the hooks\' records carry Codex\'s session id; deliveries and a refusal arrive', { skip: codexSkip, timeout: 3 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'telemetry-codex')
  const policy = path.join(root, 'policy')
  const dump = path.join(root, 'received')
  const codexRx = await receiver(dump)
  try {
    writeTree(policy, { 'config.toml': `[telemetry]\nenabled = true\nprotocol = "http/protobuf"\nendpoint = "http://127.0.0.1:${codexRx.port}"\n` })
    const files = {
      ...rules('general', 'ts'),
      '.wave/rules/gen.md': '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.\n',
      'src/a.ts': 'export const a = 1\n',
    }
    const p = DRIVERS.codex.project(h, bin, 'telemetry-codex', files, { env: { WAVE_POLICY_DIR: policy } })
    const t = await p.run('fix the query READ:src/a.ts WRITE:gen/new.ts')
    assert.ok(!fs.existsSync(path.join(p.work, 'gen/new.ts')), `the write was refused\n${t.stderr.slice(-2000)}`)
    // Codex's session id: its rollout file's name (CODEX_HOME/sessions/.../rollout-<time>-<id>.jsonl).
    const sessions = path.join(p.env.CODEX_HOME, 'sessions')
    const rollouts = fs.readdirSync(sessions, { recursive: true }).map(String).filter((f) => /rollout-.*\.jsonl$/.test(f))
    assert.equal(rollouts.length, 1, JSON.stringify(rollouts))
    const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollouts[0])?.[1]
    assert.ok(id, rollouts[0])
    await until(() => ours(received(dump)).some((r) => r.name === 'wave_rules.rule.enforced'), 15_000)
    const mine = ours(received(dump))
    assert.ok(mine.length > 0 && mine.every((r) => r.attrs['session.id'] === id), `every record carries Codex's session id ${id}: ${JSON.stringify(mine.map((r) => r.attrs['session.id']))}`)
    assert.ok(mine.filter((r) => r.name === 'wave_rules.rule.delivered').every((r) => r.attrs['gen_ai.agent.name'] === 'codex'), JSON.stringify(mine.map((r) => r.attrs['gen_ai.agent.name'])))
    const delivered = mine.filter((r) => r.name === 'wave_rules.rule.delivered').map((r) => r.attrs['wave_rules.rule.id'])
    assert.ok(delivered.includes('general.md') && delivered.includes('ts.md'), JSON.stringify(delivered))
    const refusal = mine.find((r) => r.name === 'wave_rules.rule.enforced')
    assert.equal(refusal?.attrs['wave_rules.rule.id'], 'gen.md')
    assert.equal(refusal?.attrs['wave_rules.enforce.decision'], 'block')
  } finally {
    await codexRx.close()
  }
})
