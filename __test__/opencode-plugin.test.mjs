// The opencode plugin's contract, through a fake opencode client: what is
// sent on session.created / session.compacted, what a tool result gets, and
// that a failed send is logged and retried, never thrown.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import { deliveryLog, tempTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { createOpencodeHooks } = require('../dist/opencode.js')

function fakeClient({ fail = () => false, transcript = [] } = {}) {
  const sent = []
  const logs = []
  return {
    sent,
    logs,
    session: {
      async prompt(options) {
        if (fail(options)) return { error: { name: 'BadRequest', data: { message: 'session is busy' } } }
        sent.push({ id: options.path.id, noReply: options.body.noReply, text: options.body.parts.map((p) => p.text).join('') })
        return { data: {} }
      },
      async messages() {
        return { data: transcript }
      },
    },
    app: {
      async log(options) {
        logs.push(options.body)
      },
    },
  }
}

function rules(tree) {
  tree.project('general.md', 'Keep functions small.')
  tree.project('ts.md', '---\npaths: src/**/*.ts\n---\nStrict TS.')
}
const created = (id) => ({ event: { type: 'session.created', properties: { info: { id } } } })
const compacted = (id) => ({ event: { type: 'session.compacted', properties: { sessionID: id } } })

test('session.created sends once per id; session.compacted sends again; unknown compaction tracks', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  await hooks.event(created('s1'))
  assert.deepEqual(client.sent, [{ id: 's1', noReply: true, text: '## Rules\n[general.md] Keep functions small.' }])
  await hooks.event(created('s1'))
  assert.equal(client.sent.length, 1, 'a second session.created for the same id sends nothing')
  await hooks.event(compacted('s1'))
  assert.equal(client.sent.length, 2, 'compaction sends again')
  await hooks.event(created('s1'))
  assert.equal(client.sent.length, 2, 'and the id is tracked again')
  await hooks.event(compacted('s9'))
  assert.equal(client.sent.at(-1).id, 's9', 'an unknown session is sent to on compaction')
  await hooks.event(created('s9'))
  assert.equal(client.sent.length, 3, '...and tracked')
  await hooks.event({ event: { type: 'file.edited', properties: {} } })
  await hooks.event({ event: null })
  assert.equal(client.sent.length, 3)
})

test('path rules ride on the tool result, once per session, again after compaction', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  await hooks.event(created('s1'))
  const after = async (tool, file, session = 's1') => {
    const output = { title: '', output: 'file text', metadata: {} }
    await hooks['tool.execute.after']({ tool, sessionID: session, callID: 'c', args: { filePath: file } }, output)
    return output.output
  }
  assert.equal(await after('read', path.join(tree.workdir, 'src/a.ts')), 'file text\n\n## Rules\n[ts.md] Strict TS.')
  assert.equal(await after('edit', 'src/b.ts'), 'file text', 'once per session')
  assert.equal(await after('write', 'src/new.ts', 's2'), 'file text\n\n## Rules\n[ts.md] Strict TS.', 'a written file, another session')
  const other = { title: '', output: 'file text', metadata: {} }
  await hooks['tool.execute.after']({ tool: 'todowrite', sessionID: 's3', callID: 'c', args: { todos: [{ content: 'src/c.ts' }] } }, other)
  assert.equal(other.output, 'file text', 'a tool that names no file')
  await hooks.event(compacted('s1'))
  assert.equal(client.sent.at(-1).text, '## Rules\n[general.md] Keep functions small.\n[ts.md] Strict TS.', 'the compaction brings the session path rules back')
  assert.equal(await after('read', 'src/a.ts'), 'file text', 'given by the compaction')
  // The delivery log: each send and each tool result that carried rules, as it went out.
  const log = deliveryLog(tree.homeDir, tree.workdir).map((d) => [d.session, d.event, d.rules.map((r) => r.id)])
  assert.deepEqual(log, [
    ['s1', 'start:startup', ['general.md']],
    ['s1', 'tool-done', ['ts.md']],
    ['s2', 'tool-done', ['ts.md']],
    ['s1', 'start:compact', ['general.md', 'ts.md']],
  ])
  assert.ok(deliveryLog(tree.homeDir, tree.workdir).every((d) => d.agent === 'opencode'))
})

test('a bash read fires path rules as a file tool does: the core parses the command', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  const bash = async (command, session) => {
    const output = { title: '', output: 'out', metadata: {} }
    await hooks['tool.execute.after']({ tool: 'bash', sessionID: session, callID: 'c', args: { command, description: 'd' } }, output)
    return output.output
  }
  assert.equal(await bash('cat src/x.ts', 'b1'), 'out\n\n## Rules\n[ts.md] Strict TS.')
  assert.equal(await bash('sed -n 1,20p src/y.ts | head -5', 'b1'), 'out', 'once per session')
  assert.equal(await bash('ls -la && echo hi > notes.txt', 'b2'), 'out', 'no TypeScript file read or written')
  assert.equal(await bash('cd src && grep -n TODO z.ts', 'b3'), 'out\n\n## Rules\n[ts.md] Strict TS.', 'relative to the cd')
})

test('a failed send is logged with context, not tracked, and retried', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  let failing = true
  const client = fakeClient({ fail: () => failing })
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  await hooks.event(created('s1'))
  assert.equal(client.sent.length, 0)
  assert.equal(client.logs.length, 1)
  assert.equal(client.logs[0].level, 'error')
  assert.match(client.logs[0].message, /session s1 on session\.created: .*session is busy/)
  assert.deepEqual(deliveryLog(tree.homeDir, tree.workdir), [], 'what failed to go out is not in the delivery log')
  failing = false
  await hooks.event(created('s1'))
  assert.equal(client.sent.length, 1, 'not tracked after the failure: sent on the next event')
  assert.deepEqual(deliveryLog(tree.homeDir, tree.workdir).map((d) => d.rules.map((r) => r.id)), [['general.md']])
  // A client that throws is the same.
  const throwing = fakeClient()
  throwing.session.prompt = async () => {
    throw new Error('ECONNREFUSED')
  }
  const h2 = await createOpencodeHooks({ client: throwing, directory: tree.workdir }, { homeDir: tree.homeDir })
  await h2.event(created('x'))
  assert.match(throwing.logs[0].message, /ECONNREFUSED/)
})

test('no rules, no message; a continued session is read back once', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  await hooks.event(created('s1'))
  await hooks.event(compacted('s1'))
  assert.equal(client.sent.length, 0, 'no rules, no message')

  rules(tree)
  const transcript = [
    { info: { role: 'user' }, parts: [{ type: 'text', text: '## Rules\n[general.md] Keep functions small.\n[ts.md] Strict TS.' }] },
    { info: { role: 'assistant' }, parts: [{ type: 'tool', tool: 'read', state: { input: { filePath: 'src/a.ts' } } }] },
  ]
  const c2 = fakeClient({ transcript })
  const h2 = await createOpencodeHooks({ client: c2, directory: tree.workdir }, { homeDir: tree.homeDir })
  const output = { output: 'x' }
  await h2['tool.execute.after']({ tool: 'read', sessionID: 'old', callID: 'c', args: { filePath: 'src/z.ts' } }, output)
  assert.equal(output.output, 'x', 'the transcript already has ts.md')
  await h2.event(compacted('old'))
  assert.equal(c2.sent.at(-1).text, '## Rules\n[general.md] Keep functions small.\n[ts.md] Strict TS.')
})

test('the plugin module exports only the plugin function', async () => {
  const mod = await import('../opencode.mjs')
  assert.deepEqual(Object.keys(mod), ['WaveMemoryRules'])
  assert.equal(typeof mod.WaveMemoryRules, 'function')
})

test('tool.execute.before refuses a write or a command an enforce: block rule forbids (the rule is the error opencode hands the model); warn, reads and other files run', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('gen.md', '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by npm run gen.')
  tree.project('push.md', '---\ncommands: ["git push --force*"]\nenforce: warn\n---\nAsk before a force push.')
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  const before = (tool, args) => hooks['tool.execute.before']({ tool, sessionID: 's1', callID: 'c' }, { args })
  await assert.rejects(before('write', { filePath: path.join(tree.workdir, 'gen/a.ts'), content: 'x' }), (error) => {
    assert.match(error.message, /^Refused by the project's rules: writing gen\/a\.ts is not allowed\.\n\[gen\.md\] Generated files are rebuilt by npm run gen\./)
    return true
  })
  await assert.rejects(before('edit', { filePath: 'gen/b.ts', oldString: '1', newString: '2' }), /writing gen\/b\.ts/)
  await assert.rejects(before('bash', { command: 'echo x | tee gen/c.ts', description: 'd' }), /writing gen\/c\.ts/, 'a shell form of the write')
  await before('read', { filePath: 'gen/a.ts' })
  await before('write', { filePath: 'src/a.ts', content: 'x' })
  await before('bash', { command: 'git push --force origin main', description: 'd' })
  await before('bash', { command: 'if then fi ((', description: 'not shell' })
  await hooks['tool.execute.before']({ tool: 'write', callID: 'c' }, { args: { filePath: 'gen/a.ts' } })
  assert.deepEqual(client.logs, [], 'nothing to log: a warn rule speaks with the result, an unparsable line is let run')
  const output = { title: '', output: 'pushed', metadata: {} }
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 's1', callID: 'c', args: { command: 'git push --force origin main' } }, output)
  assert.match(output.output, /^pushed\n\nAllowed, with a warning from the project's rules about running `git push --force origin main`:\n\[push\.md\]/, 'the warning comes with the result')
})

test('a child session (a subagent) is a conversation of its own: its first message gets the always-on and its task\'s topic rules, its reads their path rules, nothing shared with its parent; it is dropped when idle', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  tree.project('db.md', '---\ntopics: [orders]\n---\nUse the read replica.')
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir })
  const after = async (session, file) => {
    const output = { title: '', output: 'file text', metadata: {} }
    await hooks['tool.execute.after']({ tool: 'read', sessionID: session, callID: 'c', args: { filePath: file } }, output)
    return output.output
  }
  const message = async (session, text) => {
    const output = { message: {}, parts: [{ id: 'p1', type: 'text', text }] }
    await hooks['chat.message']({ sessionID: session }, output)
    return output.parts
  }
  await hooks.event(created('parent'))
  assert.equal(await after('parent', 'src/a.ts'), 'file text\n\n## Rules\n[ts.md] Strict TS.')
  await hooks.event({ event: { type: 'session.created', properties: { info: { id: 'child', parentID: 'parent' } } } })
  assert.equal(client.sent.length, 1, 'nothing is sent at a child\'s creation: its first message carries its rules')
  const parts = await message('child', 'check the customer orders')
  assert.equal(parts.length, 2)
  assert.deepEqual(parts[1], { id: 'p1w', type: 'text', text: '=== MANDATORY RULES ===\n[db.md] Use the read replica.\n===========================\n\n## Rules\n[general.md] Keep functions small.', synthetic: true })
  assert.equal((await message('child', 'and the orders again')).length, 1, 'only its first message')
  assert.equal((await message('parent', 'orders')).length, 1, 'the parent\'s messages are not a subagent\'s start')
  assert.equal(await after('child', 'src/a.ts'), 'file text\n\n## Rules\n[ts.md] Strict TS.', 'the path rule reaches the subagent though its parent had it')
  assert.equal(await after('child', 'src/b.ts'), 'file text', 'once')
  await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'child' } } })
  assert.equal(await after('parent', 'src/b.ts'), 'file text', 'the parent still has its own')
  assert.equal((await message('child', 'more')).length, 1, 'a dropped child is a session of its own, not a subagent that starts again')
})

test('editDistance: a path rule given long ago comes back once, in short form, at a write it governs', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ts.md', '---\npaths: src/**/*.ts\nsummary: Strict TS, no any.\n---\nStrict TS.\nNo any anywhere.')
  const client = fakeClient()
  const hooks = await createOpencodeHooks({ client, directory: tree.workdir }, { homeDir: tree.homeDir, editDistance: 2 })
  const after = async (tool, file) => {
    const output = { title: '', output: 'ok', metadata: {} }
    await hooks['tool.execute.after']({ tool, sessionID: 's1', callID: 'c', args: { filePath: file, content: 'x' } }, output)
    return output.output
  }
  assert.match(await after('read', 'src/a.ts'), /\[ts\.md\] Strict TS\.\nNo any anywhere\./)
  assert.equal(await after('read', 'docs/x.md'), 'ok')
  assert.equal(await after('read', 'docs/y.md'), 'ok')
  assert.equal(await after('read', 'docs/z.md'), 'ok')
  const recalled = await after('write', 'src/a.ts')
  assert.match(recalled, /^ok\n\n/)
  assert.equal(recalled.split('[ts.md] Strict TS, no any.').length - 1, 1, `the summary, once:\n${recalled}`)
  assert.equal(await after('write', 'src/a.ts'), 'ok', 'not on every write')
})
