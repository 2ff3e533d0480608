// examples/agent-sdk.ts, run as a real process against a real HTTP server on
// 127.0.0.1 that records the chat requests it receives.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import http from 'node:http'
import path from 'node:path'
import { promisify } from 'node:util'
import { tempTree } from './helpers.mjs'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const example = path.join(root, 'dist/examples/agent-sdk.js')

/** A chat-completions server on 127.0.0.1 that records request bodies. */
async function chatServer(t) {
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, auth: req.headers.authorization, body: JSON.parse(body) })
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'done' } }] }))
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  return { requests, url: `http://127.0.0.1:${server.address().port}/v1` }
}

test('the example sends the active rules in the system message', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  tree.project('api.md', '---\npaths: "src/api/**"\n---\nAPI handlers validate their input.')
  tree.project('db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')
  tree.project('css.md', '---\npaths: "**/*.css"\n---\nUse tokens.')
  tree.user('mine.md', 'Explain the plan first.')
  const server = await chatServer(t)
  const run = promisify(execFile)
  const { stdout } = await run(process.execPath, [example, 'Add paging to the customer list in @src/api/customers.ts'], {
    cwd: tree.workdir,
    env: { ...process.env, HOME: tree.homeDir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'm' },
  })
  assert.equal(stdout, 'done\n')
  assert.equal(server.requests.length, 1)
  const [req] = server.requests
  assert.equal(req.url, '/v1/chat/completions')
  assert.equal(req.auth, 'Bearer test-key')
  assert.equal(req.body.model, 'm')
  const system = req.body.messages[0]
  assert.equal(system.role, 'system')
  assert.equal(
    system.content,
    'You are a careful coding agent.\n\n' +
      '=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n' +
      '## Rules\n[always.md] Be brief.\n[api.md] API handlers validate their input.\n[mine.md] Explain the plan first.',
  )
  assert.deepEqual(req.body.messages[1], { role: 'user', content: 'Add paging to the customer list in @src/api/customers.ts' })
})

test('the example in reminder mode sends conditional rules as a reminder message', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  tree.project('api.md', '---\npaths: "src/api/**"\n---\nAPI handlers validate their input.')
  const server = await chatServer(t)
  await promisify(execFile)(process.execPath, [example, '--mode', 'reminders', 'Look at @src/api/x.ts'], {
    cwd: tree.workdir,
    env: { ...process.env, HOME: tree.homeDir, OPENAI_BASE_URL: server.url },
  })
  const messages = server.requests[0].body.messages
  assert.equal(messages[0].content, 'You are a careful coding agent.\n\n## Rules\n[always.md] Be brief.')
  assert.equal(messages.length, 3)
  assert.match(messages[2].content, /^<system-reminder rule="api\.md">\n[^\n]*\nAPI handlers validate their input\.\n<\/system-reminder>$/)
})
