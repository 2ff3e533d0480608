// Memory topics through the package, and memory placed after the rules.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { discovered, onWasi, tempTree } from './helpers.mjs'

const pkg = createRequire(import.meta.url)('..')
const { MemoryStore, memoryToolDefinitions, memoryRulesMiddleware } = pkg

test('default locations: user memory and a hashed project directory under the home', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  const hash = crypto.createHash('sha256').update(fs.realpathSync(tree.workdir)).digest('hex').slice(0, 16)
  assert.equal(store.userDir, path.join(tree.homeDir, '.wave/memory'))
  assert.equal(store.projectDir, path.join(tree.homeDir, '.wave/projects', hash, 'memory'))
  fs.symlinkSync(tree.workdir, path.join(tree.root, 'link'))
  assert.equal(new MemoryStore({ workdir: path.join(tree.root, 'link'), homeDir: tree.homeDir }).projectDir, store.projectDir)
})

test('write, read, list, remove, clear; errors name the topic', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  assert.equal(await store.readIndex('project'), '')
  assert.equal(await store.writeTopic('project', 'Staging DB', 'read-only'), 'staging-db.md')
  await store.writeTopic('project', 'staging db', 'use the replica')
  // Each entry: a comment line with its id and times, then its text.
  const entries = (text) => text.split('\n').filter((l) => l !== '' && !/^<!-- entry \{"id":"m[0-9a-f]{12}","created":"[^"]+"\} -->$/.test(l))
  const both = await store.readTopic('project', 'STAGING-DB')
  assert.equal(both.split('<!-- entry ').length, 3, both)
  assert.deepEqual(entries(both), ['read-only', 'use the replica'])
  await store.writeTopic('project', 'Staging DB', 'replaced', 'replace')
  assert.deepEqual(entries(await store.readTopic('project', 'staging db')), ['replaced'])
  assert.deepEqual(await store.listTopics('project'), [{ name: 'Staging DB', file: 'staging-db.md' }])
  await assert.rejects(store.readTopic('project', 'Deploy Keys'), /no project memory topic 'Deploy Keys'/)
  await assert.rejects(store.writeTopic('user', '../..', 'x'), /invalid topic name '\.\.\/\.\.'/)
  await assert.rejects(async () => store.readIndex('team'), /scope must be 'user' or 'project'/)
  await store.removeTopic('project', 'staging db')
  assert.deepEqual(await store.listTopics('project'), [])
  await store.writeTopic('user', 'Style', 'short answers')
  await store.clear('user')
  assert.equal(await store.readIndex('user'), '')
})

test('the tools: definitions for the model, and text back whatever the input', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  assert.deepEqual(memoryToolDefinitions().map((d) => d.name), ['memory_read', 'memory_write', 'memory_search', 'memory_propose_rule'])
  assert.equal(memoryToolDefinitions()[1].parameters.type, 'object')
  const stored = await store.runMemoryTool('memory_write', { scope: 'user', topic: 'Editor', content: 'uses vim' })
  const id = stored.match(/^Stored as (m[0-9a-f]{12}) in user memory topic 'Editor' \(editor\.md\)\.$/)?.[1]
  assert.ok(id, stored)
  assert.equal(await store.runMemoryTool('memory_read', { scope: 'user', topic: 'editor' }), `[${id}]\nuses vim\n`)
  const cyclic = {}
  cyclic.self = cyclic
  for (const [name, input] of [['memory_read', undefined], ['memory_read', 42], ['memory_write', { topic: 1n }], ['memory_write', cyclic], [null, null], ['memory_write', { topic: '!!', content: 'x' }]]) {
    const out = await store.runMemoryTool(name, input)
    assert.equal(typeof out, 'string', String(name))
  }
  assert.match(await store.runMemoryTool('memory_write', { topic: '!!', content: 'x' }), /^Error: invalid topic name '!!'/)
})

test('the glue puts memory after the rules, MANDATORY RULES first', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')
  tree.project('always.md', 'Be brief.')
  const manager = await discovered(tree)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  await store.writeTopic('project', 'Build', 'pnpm -F sdk build first')
  await store.writeTopic('user', 'Style', 'short answers')
  // Through the AI SDK middleware's transformParams, as the SDK calls it.
  const mw = memoryRulesMiddleware({ manager, memory: () => store.loadForPrompt({ maxLines: 40 }) })
  const { prompt } = await mw.transformParams({ type: 'generate', params: { prompt: [{ role: 'system', content: 'Base.' }, { role: 'user', content: [{ type: 'text', text: 'add a customer column' }] }] } })
  const system = prompt[0].content
  const order = ['Base.', '=== MANDATORY RULES ===', '## Rules', '## User Memory', '## Project Memory', 'pnpm -F sdk build first'].map((s) => system.indexOf(s))
  assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), system)
})

// WASI has no file locks (the fallback writes unlocked; docs/platforms.md, "WebAssembly fallback").
test('two processes writing through the addon both land', { skip: onWasi && 'WASI has no file locks' }, (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const script = `const { MemoryStore } = require(${JSON.stringify(path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..'))});
    const s = new MemoryStore({ workdir: process.argv[1], homeDir: process.argv[2] });
    (async () => { for (let i = 0; i < 100; i++) await s.writeTopic('project', 'log', process.argv[3] + ' ' + i) })();`
  return Promise.all(['a', 'b'].map((w) => new Promise((resolve, reject) => {
    spawn(process.execPath, ['-e', script, tree.workdir, tree.homeDir, w]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))))
  }))).then(async () => {
    const text = await new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir }).readTopic('project', 'log')
    // 200 entries, each a comment line and its text.
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('<!-- entry '))
    assert.equal(lines.length, 200)
    assert.equal(new Set(lines).size, 200)
  })
})

// WASI has no file locks (the fallback writes unlocked; docs/platforms.md, "WebAssembly fallback").
test('memory calls run off the event loop: a held lock does not block it, and times out with a clear error', { skip: onWasi && 'WASI has no file locks' }, async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  await store.writeTopic('project', 'a', 'x')
  // Another process holds the scope's lock (flock) for 8 s.
  const holder = spawn('python3', ['-c', `import fcntl,sys,time\nf=open(sys.argv[1],'w')\nfcntl.flock(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(8)`, path.join(store.projectDir, '.lock')])
  t.after(() => holder.kill())
  await new Promise((resolve) => holder.stdout.once('data', resolve))
  let ticks = 0
  const timer = setInterval(() => ticks++, 10)
  const started = Date.now()
  await assert.rejects(store.writeTopic('project', 'a', 'y'), /memory lock .* for over 5000 ms/)
  clearInterval(timer)
  assert.ok(Date.now() - started >= 4900)
  assert.ok(ticks > 100, `the event loop kept running (${ticks} ticks)`)
})

test('a topic over the size limit is refused; the prompt text has a byte cap', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  await assert.rejects(store.writeTopic('project', 'big', 'x'.repeat(1 << 20)), /over the 262144-byte limit/)
  for (let i = 0; i < 8; i++) await store.writeTopic('project', `t${i}`, 'y'.repeat(200 * 1024))
  const text = await store.loadForPrompt({ maxLines: 120 })
  assert.ok(text.length <= 64 * 1024, `${text.length} characters`)
  assert.match(text, /not loaded to fit the budget/)
  assert.ok((await store.loadForPrompt({ maxLines: 120, maxBytes: 2000 })).length <= 2000)
})

// Entries, hygiene, search, lint, forget and promote through the binding.
const LOOM = 'Loom tests need RUSTFLAGS="--cfg loom" and run only the tests under tokio/tests/loom_*.'
const OTHERS = [
  ['ci', 'CI runs clippy with -D warnings on stable and the MSRV job on 1.70.'],
  ['docs', 'Doc examples are compiled by cargo test --doc; keep them runnable.'],
  ['style', 'Imports are grouped std, external crates, then crate modules.'],
  ['benches', 'Benchmarks live in benches/ and use criterion with 100 samples.'],
  ['release', 'Releases are cut from the release branch by the maintainers on Fridays.'],
]

test('writeNote folds a duplicate, names the rule a note restates, refuses a credential; search, lint, forget, promote', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ports.md', 'The dev server listens on port 5173; never change it.')
  const manager = await discovered(tree)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  const first = await store.writeNote({ topic: 'testing', text: LOOM }, manager.engine)
  assert.equal(first.action, 'stored', first.message)
  for (const [topic, text] of OTHERS) assert.equal((await store.writeNote({ topic, text })).action, 'stored')
  const again = await store.writeNote({ topic: 'testing', text: LOOM.slice(0, -1) }, manager.engine)
  assert.equal(again.action, 'folded', again.message)
  assert.equal(again.id, first.id)
  const restated = await store.writeNote({ topic: 'dev', text: 'The dev server listens on port 5173.' }, manager.engine)
  assert.equal(restated.action, 'restated', restated.message)
  assert.equal(restated.rule, 'ports.md')
  const refused = await store.writeNote({ topic: 'deploy', text: 'The CI token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ' })
  assert.equal(refused.action, 'refused', refused.message)
  assert.match(refused.message, /placeholder/)
  const conflict = await store.writeNote({ topic: 'dev', text: 'The dev server listens on port 3000.' }, manager.engine)
  assert.equal(conflict.action, 'stored', conflict.message)
  assert.ok(conflict.conflicts.length > 0, conflict.message)
  assert.deepEqual(conflict.possibleConflicts, [], 'the rule in its own words with another port is a flag, not a possible conflict')
  const own = await store.writeNote({ topic: 'dev', text: 'Locally the dev server listens on port 5173.' }, manager.engine)
  assert.equal(own.action, 'stored', 'a word of its own: stored, the rule named to read')
  assert.equal(own.possibleRestatement?.rule, 'ports.md', own.message)

  const hits = await store.search('how do I run the loom tests', { limit: 3 })
  assert.equal(hits[0].id, first.id)
  assert.equal(hits[0].topic, 'testing')
  assert.equal(hits[0].scope, 'project')
  const findings = await store.lint(manager.engine)
  assert.ok(findings.some((f) => f.id === conflict.id), JSON.stringify(findings))

  await store.forget(conflict.id)
  assert.ok(!(await store.search('dev server port 3000')).some((h) => h.id === conflict.id))
  const moved = await store.promote(first.id, { paths: ['tokio/tests/**'] })
  assert.equal(moved.id, first.id)
  const rules = fs.readdirSync(path.join(tree.workdir, '.wave/rules'))
  assert.equal(rules.length, 2, rules.join())
  const rule = fs.readFileSync(path.join(tree.workdir, '.wave/rules', rules.find((r) => r !== 'ports.md')), 'utf8')
  assert.match(rule, /tokio\/tests\/\*\*/)
  assert.match(rule, /--cfg loom/)
  assert.ok(!(await store.search('loom tests')).some((h) => h.id === first.id), 'no longer in memory')
})

test('writeNote: a newer value of the same fact supersedes the older, which search no longer gives', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  const old = await store.writeNote({ topic: 'setup', text: 'The repo pins pnpm 9.15.0 in packageManager.' })
  assert.deepEqual(old.supersedes, [])
  const newer = await store.writeNote({ topic: 'setup', text: 'The repo pins pnpm 10.4.1 in packageManager now.' })
  assert.equal(newer.action, 'stored', newer.message)
  assert.deepEqual(newer.supersedes, [old.id], newer.message)
  const ids = (await store.search('which pnpm version does the repo pin')).map((h) => h.id)
  assert.ok(ids.includes(newer.id) && !ids.includes(old.id), ids.join())
  const findings = await store.lint()
  assert.ok(findings.some((f) => f.kind === 'superseded' && f.id === old.id), JSON.stringify(findings))
})

test('the AI SDK middleware with recall: an entry comes with the prompt it is relevant to, not before, and stays in the system prompt', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('always.md', 'Be brief.')
  const manager = await discovered(tree)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  await store.writeNote({ topic: 'testing', text: LOOM })
  for (const [topic, text] of OTHERS) await store.writeNote({ topic, text })
  const mw = memoryRulesMiddleware({ manager, recall: store })
  const call = async (messages) => (await mw.transformParams({ type: 'generate', params: { prompt: [{ role: 'system', content: 'Base.' }, ...messages] } })).prompt[0].content
  const user = (text) => ({ role: 'user', content: [{ type: 'text', text }] })
  const hello = await call([user('Write a haiku about the sea')])
  assert.match(hello, /Be brief\./)
  assert.match(hello, /testing/, 'the index of topics')
  assert.doesNotMatch(hello, /--cfg loom/)
  const loom = [user('Write a haiku about the sea'), { role: 'assistant', content: [{ type: 'text', text: 'Waves.' }] }, user('How do I run the loom tests?')]
  const recalled = await call(loom)
  assert.match(recalled, /--cfg loom/)
  assert.doesNotMatch(recalled, /Fridays/)
  // The next call of the same conversation: the system prompt is written anew and keeps it.
  assert.match(await call([...loom, { role: 'assistant', content: [{ type: 'text', text: 'Set RUSTFLAGS.' }] }]), /--cfg loom/)
})
