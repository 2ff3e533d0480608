// examples/ai-sdk.mts (the Vercel AI SDK with its OpenAI-compatible provider), run as a real process against a real HTTP server on
// 127.0.0.1 that records the chat requests it receives.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import http from 'node:http'
import path from 'node:path'
import { promisify } from 'node:util'
import { tempTree } from './helpers.mjs'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const example = path.join(root, 'target/examples/ai-sdk.mjs')

/**
 * A chat-completions server on 127.0.0.1 that records request bodies. It asks
 * for `read_file` on each of `reads` in turn, then answers "done".
 */
async function chatServer(t, reads = []) {
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, auth: req.headers.authorization, body: JSON.parse(body) })
      const file = reads[requests.length - 1]
      const message =
        file === undefined
          ? { role: 'assistant', content: 'done' }
          : { role: 'assistant', content: null, tool_calls: [{ id: `call_${requests.length}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: file }) } }] }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message, finish_reason: file === undefined ? 'stop' : 'tool_calls' }] }))
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  return { requests, url: `http://127.0.0.1:${server.address().port}/v1` }
}

const run = promisify(execFile)

test('the example agent sends the rules of the files it reads, step by step', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  tree.project('api.md', '---\npaths: "src/api/**"\n---\nAPI handlers validate their input.')
  tree.project('db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')
  tree.project('css.md', '---\npaths: "**/*.css"\n---\nUse tokens.')
  tree.user('mine.md', 'Explain the plan first.')
  tree.write(path.join(tree.workdir, 'src/api/customers.ts'), 'export const list = () => []\n')
  const server = await chatServer(t, ['src/api/customers.ts'])
  const { stdout } = await run(process.execPath, [example, 'Add paging to the customer list'], {
    cwd: tree.workdir,
    env: { ...process.env, HOME: tree.homeDir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'm' },
  })
  assert.equal(stdout, 'done\n')
  assert.equal(server.requests.length, 2)
  const [first, second] = server.requests
  assert.equal(first.url, '/v1/chat/completions')
  assert.equal(first.auth, 'Bearer test-key')
  assert.equal(first.body.model, 'm')
  const mandatory = '=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n'
  assert.deepEqual(first.body.messages[0], {
    role: 'system',
    content: `You are a careful coding agent.\n\n${mandatory}## Rules\n[always.md] Be brief.\n[mine.md] Explain the plan first.`,
  })
  assert.deepEqual(first.body.messages[1], { role: 'user', content: 'Add paging to the customer list' })
  // After the tool read src/api/customers.ts, the API rule joins, after the ones already there.
  assert.equal(
    second.body.messages[0].content,
    `You are a careful coding agent.\n\n${mandatory}## Rules\n[always.md] Be brief.\n[mine.md] Explain the plan first.\n[api.md] API handlers validate their input.`,
  )
  assert.match(JSON.stringify(second.body.messages.at(-1)), /export const list/)
})

test('the example in reminder mode sends a conditional rule once, as a reminder after the read', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  tree.project('api.md', '---\npaths: "src/api/**"\n---\nAPI handlers validate their input.')
  tree.write(path.join(tree.workdir, 'src/api/x.ts'), 'x')
  const server = await chatServer(t, ['src/api/x.ts', 'src/api/x.ts'])
  await run(process.execPath, [example, '--mode', 'reminders', 'Look at the API'], {
    cwd: tree.workdir,
    env: { ...process.env, HOME: tree.homeDir, OPENAI_BASE_URL: server.url },
  })
  assert.equal(server.requests.length, 3)
  const reminders = (req) => req.body.messages.map((m, i) => [i, m]).filter(([, m]) => m.role === 'user' && JSON.stringify(m.content).includes('<system-reminder rule=\\"api.md\\">'))
  for (const req of server.requests) assert.equal(req.body.messages[0].content, 'You are a careful coding agent.\n\n## Rules\n[always.md] Be brief.')
  assert.deepEqual(server.requests.map((r) => reminders(r).map(([i]) => i)), [[], [4], [4]])
  assert.match(JSON.stringify(reminders(server.requests[1])[0][1].content), /API handlers validate their input\./)
})

const agentsExample = path.join(root, 'target/examples/openai-agents.mjs')

test('the OpenAI Agents SDK example sends the rules of the files it reads, turn by turn', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  tree.project('api.md', '---\npaths: "src/api/**"\n---\nAPI handlers validate their input.')
  tree.project('db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')
  tree.write(path.join(tree.workdir, 'src/api/customers.ts'), 'export const list = () => []\n')
  const server = await chatServer(t, ['src/api/customers.ts'])
  const { stdout } = await run(process.execPath, [agentsExample, 'Add paging to the customer list'], {
    cwd: tree.workdir,
    env: { ...process.env, HOME: tree.homeDir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'm' },
  })
  assert.equal(stdout, 'done\n')
  assert.equal(server.requests.length, 2)
  const mandatory = '=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n'
  const [first, second] = server.requests
  assert.equal(first.auth, 'Bearer test-key')
  assert.deepEqual(first.body.messages[0], { role: 'system', content: `You are a careful coding agent.\n\n${mandatory}## Rules\n[always.md] Be brief.` })
  assert.equal(second.body.messages[0].content, `You are a careful coding agent.\n\n${mandatory}## Rules\n[always.md] Be brief.\n[api.md] API handlers validate their input.`)
  assert.match(JSON.stringify(second.body.messages.at(-1)), /export const list/)
})
