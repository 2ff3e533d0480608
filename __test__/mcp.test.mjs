// `wave-rules mcp` driven by the official TypeScript MCP client
// (@modelcontextprotocol/sdk, StdioClientTransport), against the Rust binary
// and against `npx wave-rules mcp` (bin/wave-rules.js over the addon): every
// tool and resource, once-per-connection delivery, an edit seen by the next
// call, the list-changed notification, and each kind of bad input followed by
// a good request that is answered.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { tempTree, onWasi } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const require = createRequire(import.meta.url)
const { RuleManager, MemoryStore, renderRules } = require('..')
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const jsBin = path.join(root, 'bin/wave-rules.js')


const SOURCES = ['wave', 'cursor']
const RULES = {
  '.wave/rules/general.md': 'Keep functions small.\n',
  '.wave/rules/db.md': '---\ntopics: [customer]\npriority: 5\n---\nThe customer table is read-only.\n',
  '.wave/rules/ts.md': '---\npaths: src/**/*.ts\n---\nStrict TS everywhere.\n',
  '.cursor/rules/deploy.mdc': '---\ndescription: How to deploy to staging\n---\nDeploy with `make deploy`, never by hand.\n',
  '.cursor/rules/legacy.mdc': 'The legacy module is frozen.\n',
}

/** A project with the rules, and a connected client over `kind`. */
async function connect(kind, tree) {
  const args = ['--workdir', tree.workdir, '--home', tree.homeDir, '--sources', SOURCES.join(','), 'mcp']
  const params =
    kind === 'binary'
      ? { command: bin, args }
      : { command: process.execPath, args: [jsBin, ...args] }
  const transport = new StdioClientTransport({ ...params, cwd: tree.workdir, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'wave-rules-test', version: '1.0.0' })
  const errors = []
  client.onerror = (e) => errors.push(e)
  const changed = []
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => changed.push(Date.now()))
  await client.connect(transport)
  return { client, transport, errors, changed, stderr: () => stderr }
}

const text = (result) => result.content.map((c) => c.text).join('\n')
const call = (client, name, args = {}) => client.callTool({ name, arguments: args })

/** Waits (bounded) until `check()` is true. */
async function until(check, ms = 5000) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}

let bin
before(() => {
  bin = rustBin()
})

for (const kind of ['binary', 'npx']) {
  // The WebAssembly build has no MCP server (tokio's I/O driver is not built
  // for WASI): `npx wave-rules mcp` says so there, tested below.
  describe(`wave-rules mcp (${kind})`, { skip: kind === 'npx' && onWasi && 'no MCP server in the WASI build' }, () => {
    let tree, c
    before(async () => {
      tree = tempTree()
      for (const [rel, body] of Object.entries(RULES)) tree.write(path.join(tree.workdir, rel), body)
      tree.write(path.join(tree.workdir, 'src/a.ts'), 'export const a = 1\n')
      c = await connect(kind, tree)
    })
    after(async () => {
      await c?.client.close()
      tree?.cleanup()
    })

    test('initialize: the instructions say when to call which tool and list the on-request rules, under 2,048 characters', () => {
      const instructions = c.client.getInstructions()
      assert.ok(instructions.length < 2048, `${instructions.length} characters`)
      assert.match(instructions, /Before you read, edit or create a file, call rules_for_files/)
      assert.match(instructions, /read_rule/)
      assert.match(instructions, /memory_write/)
      assert.match(instructions, /cursor:deploy\.mdc \(How to deploy to staging\)/)
      assert.ok(!instructions.includes('Strict TS'), 'the instructions do not carry the rules')
      const caps = c.client.getServerCapabilities()
      assert.ok(caps.tools && caps.resources?.listChanged)
    })

    test('tools/list: the seven tools with their schemas; the memory tools as the package defines them', async () => {
      const { tools } = await c.client.listTools()
      assert.deepEqual(tools.map((t) => t.name), ['rules_for_files', 'read_rule', 'list_rules', 'memory_read', 'memory_write', 'memory_search', 'memory_propose_rule'])
      const rff = tools[0]
      assert.match(rff.description, /before you read, edit or create files/)
      assert.deepEqual(rff.inputSchema.required, ['paths'])
      for (const t of tools) assert.equal(t.annotations.readOnlyHint, !['memory_write', 'memory_propose_rule'].includes(t.name), t.name)
      const pkg = require('..').memoryToolDefinitions()
      for (const def of pkg) {
        const t = tools.find((x) => x.name === def.name)
        assert.equal(t.description, def.description)
        assert.deepEqual(t.inputSchema, def.parameters)
      }
    })

    test('rules_for_files: the active rules rendered as the package renders them; once per connection; again: true', async () => {
      const prompt = 'fix the customer query'
      const first = await call(c.client, 'rules_for_files', { paths: ['src/a.ts'], prompt })
      assert.equal(first.isError, false)
      // The package's own rendering of the same rules.
      const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: SOURCES })
      await m.discoverRules()
      const active = m.getActiveRules(['src/a.ts'], prompt)
      const expected = renderRules(active, { topicRuleIds: m.getTopicRules(prompt).map((r) => r.id), maxBytes: 9000 })
      assert.ok(text(first).startsWith(`${expected}\n\n`), `got:\n${text(first)}\nexpected to start with:\n${expected}`)
      assert.match(expected, /=== MANDATORY RULES ===\n\[db\.md\] The customer table is read-only\./)
      assert.match(expected, /\[general\.md\] Keep functions small\./, 'the always-on rule comes with the first call')
      assert.match(expected, /\[ts\.md\] Strict TS everywhere\./)
      assert.match(text(first), /## Rules available on request\n[^]*- cursor:deploy\.mdc: How to deploy to staging/)

      const second = await call(c.client, 'rules_for_files', { paths: ['src/b.ts', 'src/a.ts'] })
      assert.ok(!text(second).includes('Strict TS everywhere'), 'not repeated')
      assert.match(text(second), /already given in this session, not repeated: general\.md, ts\.md/)
      assert.ok(!text(second).includes('available on request'), 'the offer comes once')

      const again = await call(c.client, 'rules_for_files', { paths: ['src/b.ts'], again: true })
      assert.match(text(again), /\[ts\.md\] Strict TS everywhere\./)
      assert.match(text(again), /\[general\.md\] Keep functions small\./)

      const none = await call(c.client, 'rules_for_files', { paths: ['/elsewhere/x.py'] })
      assert.match(text(none), /already given[^]*outside the project, no rules read for: \/elsewhere\/x\.py/)
    })

    test('read_rule: an on-request and a manual rule in full; an unknown id is a tool error naming the closest ids', async () => {
      const deploy = await call(c.client, 'read_rule', { id: 'cursor:deploy.mdc' })
      assert.equal(deploy.isError, false)
      assert.equal(text(deploy), '[cursor:deploy.mdc]\nDeploy with `make deploy`, never by hand.')
      const legacy = await call(c.client, 'read_rule', { id: 'cursor:legacy.mdc' })
      assert.match(text(legacy), /The legacy module is frozen\./)
      const unknown = await call(c.client, 'read_rule', { id: 'deploi' })
      assert.equal(unknown.isError, true)
      assert.match(text(unknown), /^Error: no rule 'deploi'; the closest ids are: cursor:deploy\.mdc/)
    })

    test('list_rules: id, source, scope, activation kind and description of every rule', async () => {
      const list = JSON.parse(text(await call(c.client, 'list_rules')))
      const by = Object.fromEntries(list.map((r) => [r.id, r]))
      assert.deepEqual(Object.keys(by).sort(), ['cursor:deploy.mdc', 'cursor:legacy.mdc', 'db.md', 'general.md', 'ts.md'])
      assert.deepEqual(
        Object.fromEntries(list.map((r) => [r.id, r.activation])),
        { 'db.md': 'topics', 'general.md': 'always', 'ts.md': 'paths', 'cursor:deploy.mdc': 'on-request', 'cursor:legacy.mdc': 'manual' },
      )
      assert.equal(by['cursor:deploy.mdc'].source, 'cursor')
      assert.equal(by['cursor:deploy.mdc'].description, 'How to deploy to staging')
      assert.equal(by['ts.md'].scope, 'project')
    })

    test('memory_write / memory_read: the package tools, the topic on disk, the same error text', async () => {
      const wrote = await call(c.client, 'memory_write', { topic: 'build', content: 'Run `npm test` before pushing.' })
      assert.equal(wrote.isError, false)
      assert.match(text(wrote), /^Stored as m[0-9a-f]{12} in project memory topic 'build'/)
      const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
      const file = path.join(store.projectDir, 'build.md')
      assert.match(fs.readFileSync(file, 'utf8'), /Run `npm test` before pushing\./)
      const read = await call(c.client, 'memory_read', { topic: 'build' })
      assert.match(text(read), /Run `npm test` before pushing\./)
      const index = await call(c.client, 'memory_read', {})
      assert.match(text(index), /build/)
      for (const [name, input] of [
        ['memory_write', { topic: 'x', content: 'y', mode: 'merge' }],
        ['memory_write', { topic: 'x' }],
        ['memory_read', { scope: 'team' }],
        ['memory_read', { topic: 'no such topic' }],
      ]) {
        const r = await call(c.client, name, input)
        assert.equal(r.isError, true, `${name} ${JSON.stringify(input)}`)
        assert.equal(text(r), await store.runMemoryTool(name, input), 'the package gives the same text')
      }
    })

    test('resources: every rule listed with a URI per id, and read', async () => {
      const { resources } = await c.client.listResources()
      const uris = resources.map((r) => r.uri).sort()
      assert.deepEqual(uris, [
        'wave-rules://rule/cursor%3Adeploy.mdc',
        'wave-rules://rule/cursor%3Alegacy.mdc',
        'wave-rules://rule/db.md',
        'wave-rules://rule/general.md',
        'wave-rules://rule/ts.md',
      ])
      const r = await c.client.readResource({ uri: 'wave-rules://rule/cursor%3Adeploy.mdc' })
      assert.equal(r.contents[0].text, 'Deploy with `make deploy`, never by hand.')
      assert.equal(r.contents[0].mimeType, 'text/markdown')
      await assert.rejects(c.client.readResource({ uri: 'wave-rules://rule/nope.md' }), /no rule 'nope\.md'/)
      await assert.rejects(c.client.readResource({ uri: 'file:///etc/passwd' }), /not a rule URI/)
      assert.ok((await c.client.listResources()).resources.length === 5, 'answered after the errors')
    })

    test('an edit is seen by the next call, and the client is told the list changed', async () => {
      const before = c.changed.length
      tree.write(path.join(tree.workdir, '.wave/rules/ts.md'), '---\npaths: src/**/*.ts\n---\nStrict TS, no any.\n')
      const r = await call(c.client, 'rules_for_files', { paths: ['src/a.ts'], again: true })
      assert.match(text(r), /\[ts\.md\] Strict TS, no any\./)
      assert.ok(await until(() => c.changed.length > before), 'notifications/resources/list_changed arrived')
      // A new rule file, with no request: the poll notices it.
      const n = c.changed.length
      tree.write(path.join(tree.workdir, '.wave/rules/new.md'), '---\npaths: docs/**\n---\nDocs in English.\n')
      assert.ok(await until(() => c.changed.length > n), 'a new rule file is announced without a request')
      const { resources } = await c.client.listResources()
      assert.ok(resources.some((x) => x.uri === 'wave-rules://rule/new.md'))
    })

    test('bad input never ends the server: each is followed by a good request that is answered', async () => {
      const good = async () => assert.equal(JSON.parse(text(await call(c.client, 'list_rules'))).length >= 5, true)
      const stdin = c.transport._process?.stdin
      assert.ok(stdin, 'the transport exposes the child process')
      // A line that is not JSON: a Parse error with "id": null, as JSON-RPC 2.0
      // says (the TS client cannot route a null id and reports it as an error).
      const before = c.errors.length
      stdin.write('this is not json\n')
      await good()
      assert.ok(await until(() => c.errors.length > before), 'the Parse error answer arrived')
      assert.match(String(c.errors.at(-1)), /received null/)
      // Well-formed JSON of the wrong shape.
      stdin.write('{"jsonrpc":"2.0","id":"bad-1","method":"tools/call","params":{"name":5}}\n')
      await good()
      // An unknown method and an unknown tool: JSON-RPC errors.
      await assert.rejects(c.client.request({ method: 'no/such/method' }, ResourceListChangedNotificationSchema.passthrough()), /not found|-32601/i)
      await good()
      await assert.rejects(call(c.client, 'no_such_tool'), /unknown tool 'no_such_tool'/)
      await good()
      // Wrong argument types: tool errors.
      for (const [name, args, message] of [
        ['rules_for_files', { paths: 5 }, /'paths' must be an array of strings/],
        ['rules_for_files', { paths: ['a', 7] }, /every item of 'paths' must be a string/],
        ['rules_for_files', { paths: [], prompt: 42 }, /'prompt' must be a string/],
        ['rules_for_files', { paths: [], again: 'yes' }, /'again' must be true or false/],
        ['read_rule', { id: 3 }, /'id' must be a string/],
        ['read_rule', {}, /read_rule needs 'id'/],
      ]) {
        const r = await call(c.client, name, args)
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`)
        assert.match(text(r), message)
        await good()
      }
      // A broken rule file: skipped, said on stderr, the others still served.
      tree.write(path.join(tree.workdir, '.wave/rules/broken.md'), '---\npaths: [src/**\n---\nnever loaded\n')
      const r = await call(c.client, 'rules_for_files', { paths: ['src/a.ts'], again: true })
      assert.match(text(r), /\[ts\.md\]/)
      assert.ok(!text(r).includes('never loaded'))
      assert.ok(await until(() => c.stderr().includes('broken.md')), `stderr: ${c.stderr()}`)
      await good()
      // Besides the answers to the bad lines (the Parse error's null id, bad-1's
      // Invalid params), nothing but protocol messages.
      assert.deepEqual(c.errors.filter((e) => !/bad-1|Unknown message ID|unknown message|received null/i.test(String(e))), [], 'stdout held protocol messages only')
    })
  })
}

test('edits are seen by the next call wherever they happen: a rules directory created later, a subdirectory, a symlinked file', async () => {
  const tree = tempTree()
  const c = await connect('binary', tree)
  try {
    const rules = async () => text(await call(c.client, 'rules_for_files', { paths: ['src/a.ts'], again: true }))
    assert.equal(await rules(), 'No rules apply to these files.')
    // .wave/rules did not exist when the server started.
    tree.write(path.join(tree.workdir, '.wave/rules/first.md'), 'First rule.\n')
    assert.match(await rules(), /\[first\.md\] First rule\./)
    // A new subdirectory, then an edit inside it.
    tree.write(path.join(tree.workdir, '.wave/rules/sub/deep.md'), '---\npaths: src/**\n---\nDeep v1.\n')
    assert.match(await rules(), /\[sub\/deep\.md\] Deep v1\./)
    tree.write(path.join(tree.workdir, '.wave/rules/sub/deep.md'), '---\npaths: src/**\n---\nDeep v2.\n')
    assert.match(await rules(), /\[sub\/deep\.md\] Deep v2\./)
    // A rule file that is a symlink to a file elsewhere in the project (links
    // that leave the project are refused unless allowed).
    const target = tree.write(path.join(tree.workdir, 'shared/team.md'), 'Team v1.\n')
    fs.symlinkSync(target, path.join(tree.workdir, '.wave/rules/team.md'))
    assert.match(await rules(), /\[team\.md\] Team v1\./)
    fs.writeFileSync(target, 'Team v2.\n')
    assert.match(await rules(), /\[team\.md\] Team v2\./)
    // A deletion.
    fs.rmSync(path.join(tree.workdir, '.wave/rules/first.md'))
    assert.ok(!(await rules()).includes('first.md'))
  } finally {
    await c.client.close()
    tree.cleanup()
  }
})

test('a client that goes away before initialize: the server exits quietly', () => {
  const tree = tempTree()
  try {
    const r = spawnSync(bin, ['--workdir', tree.workdir, '--home', tree.homeDir, 'mcp'], { input: '', encoding: 'utf8', timeout: 10_000 })
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, '')
  } finally {
    tree.cleanup()
  }
})

test('npx wave-rules mcp on the WebAssembly fallback: a clear message and exit 2, no hang', { skip: !onWasi && 'native build' }, () => {
  const tree = tempTree()
  try {
    const r = spawnSync(process.execPath, [jsBin, '--workdir', tree.workdir, '--home', tree.homeDir, 'mcp'], { input: '', encoding: 'utf8', timeout: 30_000 })
    assert.equal(r.status, 2, r.stderr)
    assert.match(r.stderr, /not in the WebAssembly build/)
    assert.equal(r.stdout, '')
  } finally {
    tree.cleanup()
  }
})
