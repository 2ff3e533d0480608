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
  assert.equal(await store.readTopic('project', 'STAGING-DB'), 'read-only\nuse the replica\n')
  await store.writeTopic('project', 'Staging DB', 'replaced', 'replace')
  assert.equal(await store.readTopic('project', 'staging db'), 'replaced\n')
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
  assert.deepEqual(memoryToolDefinitions().map((d) => d.name), ['memory_read', 'memory_write'])
  assert.equal(memoryToolDefinitions()[1].parameters.type, 'object')
  assert.equal(await store.runMemoryTool('memory_write', { scope: 'user', topic: 'Editor', content: 'uses vim' }), "Appended to user memory topic 'Editor' (editor.md).")
  assert.equal(await store.runMemoryTool('memory_read', { scope: 'user', topic: 'editor' }), 'uses vim\n')
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
    assert.equal(text.trim().split('\n').length, 200)
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
