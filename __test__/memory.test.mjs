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

test('write, read, list, remove, clear; errors name the topic', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  assert.equal(store.readIndex('project'), '')
  assert.equal(store.writeTopic('project', 'Staging DB', 'read-only'), 'staging-db.md')
  store.writeTopic('project', 'staging db', 'use the replica')
  assert.equal(store.readTopic('project', 'STAGING-DB'), 'read-only\nuse the replica\n')
  store.writeTopic('project', 'Staging DB', 'replaced', 'replace')
  assert.equal(store.readTopic('project', 'staging db'), 'replaced\n')
  assert.deepEqual(store.listTopics('project'), [{ name: 'Staging DB', file: 'staging-db.md' }])
  assert.throws(() => store.readTopic('project', 'Deploy Keys'), /no project memory topic 'Deploy Keys'/)
  assert.throws(() => store.writeTopic('user', '../..', 'x'), /invalid topic name '\.\.\/\.\.'/)
  assert.throws(() => store.readIndex('team'), /scope must be 'user' or 'project'/)
  store.removeTopic('project', 'staging db')
  assert.deepEqual(store.listTopics('project'), [])
  store.writeTopic('user', 'Style', 'short answers')
  store.clear('user')
  assert.equal(store.readIndex('user'), '')
})

test('the tools: definitions for the model, and text back whatever the input', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  assert.deepEqual(memoryToolDefinitions().map((d) => d.name), ['memory_read', 'memory_write'])
  assert.equal(memoryToolDefinitions()[1].parameters.type, 'object')
  assert.equal(store.runMemoryTool('memory_write', { scope: 'user', topic: 'Editor', content: 'uses vim' }), "Appended to user memory topic 'Editor' (editor.md).")
  assert.equal(store.runMemoryTool('memory_read', { scope: 'user', topic: 'editor' }), 'uses vim\n')
  const cyclic = {}
  cyclic.self = cyclic
  for (const [name, input] of [['memory_read', undefined], ['memory_read', 42], ['memory_write', { topic: 1n }], ['memory_write', cyclic], [null, null], ['memory_write', { topic: '!!', content: 'x' }]]) {
    let out
    assert.doesNotThrow(() => (out = store.runMemoryTool(name, input)), String(name))
    assert.equal(typeof out, 'string')
  }
  assert.match(store.runMemoryTool('memory_write', { topic: '!!', content: 'x' }), /^Error: invalid topic name '!!'/)
})

test('the glue puts memory after the rules, MANDATORY RULES first', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')
  tree.project('always.md', 'Be brief.')
  const manager = await discovered(tree)
  const store = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  store.writeTopic('project', 'Build', 'pnpm -F sdk build first')
  store.writeTopic('user', 'Style', 'short answers')
  // Through the AI SDK middleware's transformParams, as the SDK calls it.
  const mw = memoryRulesMiddleware({ manager, memory: () => store.loadForPrompt({ maxLines: 40 }) })
  const { prompt } = await mw.transformParams({ type: 'generate', params: { prompt: [{ role: 'system', content: 'Base.' }, { role: 'user', content: [{ type: 'text', text: 'add a customer column' }] }] } })
  const system = prompt[0].content
  const order = ['Base.', '=== MANDATORY RULES ===', '## Rules', '## User Memory', '## Project Memory', 'pnpm -F sdk build first'].map((s) => system.indexOf(s))
  assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), system)
})

// WASI has no file locks (the fallback writes unlocked; README, "WebAssembly fallback").
test('two processes writing through the addon both land', { skip: onWasi && 'WASI has no file locks' }, (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const script = `const { MemoryStore } = require(${JSON.stringify(path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..'))});
    const s = new MemoryStore({ workdir: process.argv[1], homeDir: process.argv[2] });
    for (let i = 0; i < 100; i++) s.writeTopic('project', 'log', process.argv[3] + ' ' + i);`
  return Promise.all(['a', 'b'].map((w) => new Promise((resolve, reject) => {
    spawn(process.execPath, ['-e', script, tree.workdir, tree.homeDir, w]).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))))
  }))).then(() => {
    const text = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir }).readTopic('project', 'log')
    assert.equal(text.trim().split('\n').length, 200)
  })
})
