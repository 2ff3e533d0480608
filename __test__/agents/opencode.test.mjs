// opencode, the real binary (pinned devDependency), with the plugin loaded
// from `.opencode/plugin/` the way a user adds it, against the fake model
// server (an `@ai-sdk/openai-compatible` provider in opencode.json).
// `opencode run` for the CLI turns, `opencode serve` and its HTTP API for a
// real compaction (`/session/:id/summarize`). Assertions are on what
// reached the model.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { count } from './fake-model.mjs'
import { agentHarness, opencodeBinary, repo, run, isolatedEnv, writeTree, rules, SAID } from './agents.mjs'

const opencode = opencodeBinary()
const built = fs.existsSync(path.join(repo, 'dist/opencode.js'))
const skip = !opencode ? 'the opencode-ai devDependency is not installed' : !built ? 'run `npm run build` first (dist/opencode.js)' : false
// The first run in a fresh HOME installs @opencode-ai/plugin from the npm
// registry (15-20 s); opencode retries an unreachable model without end.
const TIMEOUT = 120_000
const { GENERAL, TS, GEN } = SAID


const h = agentHarness({ prefix: 'wave-opencode-', dump: 'opencode' })
let work, env
before(async () => {
  if (skip) return
  await h.start()
  work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  fs.mkdirSync(home, { recursive: true })
  writeTree(work, {
    ...rules('general', 'ts', 'gen'),
    'src/a.ts': 'export const a = 1\n',
    'src/b.ts': 'export const b = 2\n',
    // The plugin line a user adds: a file in .opencode/plugin/ re-exporting ours.
    '.opencode/plugin/wave-memory-rules.js': "export { WaveMemoryRules } from 'wave-memory-rules/opencode'\n",
    'opencode.json': JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${h.server.url}/v1`, apiKey: 'dummy' },
          models: { 'fake-model': { name: 'Fake model' } },
        },
      },
      model: 'fake/fake-model',
      small_model: 'fake/fake-model',
    }),
  })
  // The package, as `npm install wave-memory-rules` would put it.
  fs.mkdirSync(path.join(work, 'node_modules'), { recursive: true })
  fs.symlinkSync(repo, path.join(work, 'node_modules/wave-memory-rules'), 'dir')
  env = isolatedEnv(home, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' })
  h.server.setWorkdir(work)
})

const chat = (q) => q.path.includes('/chat/completions') && Array.isArray(q.body.messages)
const main = (qs) => qs.filter((q) => chat(q) && (q.body.tools ?? []).length > 0)

async function opencodeRun(args) {
  const first = h.server.requests.length
  const r = await run(opencode, ['run', ...args, '--model', 'fake/fake-model'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `opencode run timed out\n${r.stderr.slice(-2000)}`)
  assert.equal(r.status, 0, r.stderr.slice(-2000))
  return main(h.server.requests.slice(first))
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** `opencode serve` on loopback, with a small client for its HTTP API. */
async function serve() {
  const port = await freePort()
  const child = spawn(opencode, ['serve', '--port', String(port), '--hostname', '127.0.0.1'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  const base = `http://127.0.0.1:${port}`
  const call = async (method, route, body) => {
    const url = `${base}${route}?directory=${encodeURIComponent(work)}`
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT) })
    const text = await res.text()
    assert.ok(res.ok, `${method} ${route}: ${res.status} ${text}\n${log.slice(-2000)}`)
    return text ? JSON.parse(text) : null
  }
  const deadline = Date.now() + TIMEOUT
  for (;;) {
    try {
      const res = await fetch(`${base}/session?directory=${encodeURIComponent(work)}`, { signal: AbortSignal.timeout(2000) })
      if (res.ok) break
    } catch {
      // not up yet
    }
    assert.ok(Date.now() < deadline && child.exitCode === null, `opencode serve did not start\n${log.slice(-2000)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
  return { call, stop: () => child.kill('SIGKILL') }
}

test('opencode: the plugin sends the rules at session start, path rules once, again after a compaction', { skip, timeout: 6 * TIMEOUT }, async () => {
  // A new session: the always-on rule is sent silently before the prompt;
  // the path rules come with the Read (read twice: once) and the new file.
  const t1 = await opencodeRun(['fix it READ:src/a.ts READ:src/a.ts WRITE:gen/new.ts'])
  assert.ok(fs.existsSync(path.join(work, 'gen/new.ts')), 'the write was done')
  assert.ok(t1.length >= 4, `3 tool calls and an answer, got ${t1.length} requests`)
  assert.equal(count(t1[0].body, GENERAL), 1, 'session.created sent the always-on rule')
  assert.equal(count(t1[0].body, TS), 0)
  assert.equal(count(t1[1].body, TS), 1, 'the path rule came with the read')
  const last = t1.at(-1).body
  for (const text of [GENERAL, TS, GEN]) assert.equal(count(last, text), 1, `${text} once in the session`)

  // The same session in a new process: nothing twice.
  const t2 = await opencodeRun(['--continue', 'again READ:src/b.ts READ:src/a.ts'])
  const last2 = t2.at(-1).body
  for (const text of [GENERAL, TS, GEN]) assert.equal(count(last2, text), 1, `${text} still once after --continue`)

  // A real compaction through the server, then a turn: every rule again.
  const api = await serve()
  try {
    const sessions = await api.call('GET', '/session')
    const session = [...sessions].sort((a, b) => b.time.updated - a.time.updated)[0]
    const model = { providerID: 'fake', modelID: 'fake-model' }
    await api.call('POST', `/session/${session.id}/summarize`, model)
    // The plugin answers the session.compacted event on its own time: wait
    // (bounded) until its message is in the session, as a user's next
    // prompt would come after it.
    const deadline = Date.now() + 30_000
    for (;;) {
      const messages = await api.call('GET', `/session/${session.id}/message`)
      const summary = messages.findLastIndex((m) => m.info?.summary === true || m.parts?.some((p) => p.type === 'compaction'))
      if (summary >= 0 && JSON.stringify(messages.slice(summary)).includes('[general.md]')) break
      assert.ok(Date.now() < deadline, 'the plugin sent nothing after the compaction')
      await new Promise((r) => setTimeout(r, 200))
    }
    const before = h.server.requests.length
    await api.call('POST', `/session/${session.id}/message`, { model, parts: [{ type: 'text', text: 'go on READ:src/a.ts' }] })
    const t3 = main(h.server.requests.slice(before))
    assert.ok(t3.length >= 2)
    assert.equal(count(t3[0].body, GENERAL), 1, 'session.compacted sent the rules again')
    assert.equal(count(t3[0].body, TS), 1, 'with the path rules the session had')
    assert.equal(count(t3[0].body, GEN), 1)
    for (const text of [GENERAL, TS, GEN]) assert.equal(count(t3.at(-1).body, text), 1, `${text} once after the compaction`)

    // No rules: a new session gets nothing.
    fs.rmSync(path.join(work, '.wave'), { recursive: true })
    const fresh = await api.call('POST', '/session', {})
    const before2 = h.server.requests.length
    await api.call('POST', `/session/${fresh.id}/message`, { model, parts: [{ type: 'text', text: 'no rules READ:src/a.ts WRITE:gen/other.ts' }] })
    const t4 = main(h.server.requests.slice(before2))
    assert.ok(t4.length >= 3)
    const all = JSON.stringify(t4.map((q) => q.body.messages))
    assert.ok(!all.includes('## Rules') && !all.includes('[general.md]'), 'nothing was sent without rules')
  } finally {
    api.stop()
  }
})
