// `wave-memory-rules/wave-agent` through the agent SDK's construction path and
// message flow, on real temp directories.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { tempTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { MemoryRuleManager } = require('wave-memory-rules/wave-agent')

/** The SDK's container: services registered by name. */
class Container {
  #services = new Map()
  register(name, service) {
    this.#services.set(name, service)
  }
  has(name) {
    return this.#services.has(name)
  }
  get(name) {
    if (!this.#services.has(name)) throw new Error(`Service ${name} not found`)
    return this.#services.get(name)
  }
}

/** The SDK's MessageManager, reduced to its rule flow. */
class MessageManager {
  constructor(container) {
    this.memoryRuleManager = container.has('MemoryRuleManager') ? container.get('MemoryRuleManager') : undefined
    this.pendingFileReadTriggers = new Set()
    this.loadedRuleIds = new Set()
    this.messages = []
  }
  /** The Read tool read a file. */
  onFileRead(filePath) {
    this.pendingFileReadTriggers.add(filePath)
  }
  processTriggeredRules() {
    if (!this.memoryRuleManager || this.pendingFileReadTriggers.size === 0) {
      this.pendingFileReadTriggers.clear()
      return []
    }
    const filePaths = Array.from(this.pendingFileReadTriggers)
    this.pendingFileReadTriggers.clear()
    const { conditional } = this.memoryRuleManager.getActiveRulesSplit(filePaths)
    const newRules = conditional.filter((rule) => !this.loadedRuleIds.has(rule.id))
    for (const rule of newRules) this.loadedRuleIds.add(rule.id)
    return newRules
  }
  /** Before each request: triggered rules become meta messages. */
  beforeRequest() {
    for (const rule of this.processTriggeredRules()) {
      this.messages.push({ role: 'user', isMeta: true, content: `<!-- rule: ${rule.id} -->\n<system-reminder>\n${rule.content}\n</system-reminder>` })
    }
  }
  getCombinedMemory(base) {
    const { unconditional } = this.memoryRuleManager.getActiveRulesSplit([])
    return [base, ...unconditional.map((r) => r.content)].join('\n\n')
  }
}

test('the one-line swap: import() and require() give the same class', async () => {
  const esm = await import('wave-memory-rules/wave-agent')
  assert.equal(esm.MemoryRuleManager, MemoryRuleManager)
  assert.equal(MemoryRuleManager.length, 2, 'constructor(container, options)')
})

function withHome(t, dir) {
  const saved = process.env.HOME
  process.env.HOME = dir
  t.after(() => (process.env.HOME = saved))
}

test('the SDK builds it from its container, discovers four roots, and drives the message flow', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  withHome(t, tree.homeDir)
  const at = (base, rel, text) => tree.write(path.join(base, rel), text)
  at(tree.homeDir, '.claude/rules/style.md', 'user claude style')
  at(tree.homeDir, '.wave/rules/style.md', 'user wave style')
  at(tree.homeDir, '.claude/rules/personal/tone.md', 'Be terse.')
  at(tree.workdir, '.claude/rules/frontend/react/hooks.md', '---\npaths: ["src/**/*.tsx"]\n---\nHooks at the top level.')
  at(tree.workdir, '.wave/rules/api.md', '---\npaths: src/api/**\n---\nValidate input.')
  at(tree.workdir, '.wave/rules/style.md', 'project wave style')
  at(tree.workdir, '.wave/rules/db.md', '---\ntopics: [customer]\n---\nThe customer table is read-only.')

  const container = new Container()
  const logs = []
  container.register('Logger', { debug: (...a) => logs.push(['debug', a.join(' ')]), warn: (...a) => logs.push(['warn', a.join(' ')]), error: (...a) => logs.push(['error', a.join(' ')]) })
  const manager = new MemoryRuleManager(container, { workdir: tree.workdir })
  container.register('MemoryRuleManager', manager)
  assert.equal(await manager.discoverRules(), undefined)

  const mm = new MessageManager(container)
  assert.equal(mm.getCombinedMemory('base memory'), 'base memory\n\nproject wave style\n\nBe terse.')
  // The SDK's MemoryRule shape.
  const tone = manager.getActiveRulesSplit([]).unconditional.find((r) => r.id === 'personal/tone.md')
  assert.deepEqual(Object.keys(tone).sort(), ['content', 'filePath', 'id', 'metadata', 'source'])
  assert.equal(tone.id, 'personal/tone.md')
  assert.equal(tone.source, 'user')
  assert.equal(tone.filePath, path.join(tree.homeDir, '.claude/rules/personal/tone.md'))

  mm.onFileRead(path.join(tree.workdir, 'src/api/users.ts'))
  mm.beforeRequest()
  mm.onFileRead(path.join(tree.workdir, 'src/api/orders.ts'))
  mm.onFileRead('src/ui/App.tsx')
  mm.beforeRequest()
  mm.beforeRequest()
  assert.deepEqual(
    mm.messages.map((m) => m.content.split('\n')[0]),
    ['<!-- rule: api.md -->', '<!-- rule: frontend/react/hooks.md -->'],
    'each conditional rule once, when a read file fires it',
  )
  assert.match(mm.messages[1].content, /Hooks at the top level\./)
  // The SDK passes no prompt, so topic rules stay off; with the optional prompt they fire.
  assert.deepEqual(manager.getActiveRulesSplit([]).conditional, [])
  assert.deepEqual(manager.getActiveRulesSplit([], 'list the Customers').conditional.map((r) => r.id), ['db.md'])
  assert.deepEqual(manager.getActiveRules(['src/api/x.ts'], 'customer').map((r) => r.id), ['api.md', 'db.md', 'style.md', 'personal/tone.md'])

  // What discovery skipped went to the container's logger.
  const overridden = logs.filter(([level, text]) => level === 'debug' && text.includes('info[overridden]'))
  assert.equal(overridden.length, 2, JSON.stringify(logs))
  assert.ok(logs.some(([level, text]) => level === 'debug' && text === 'Discovered 5 modular memory rules'), JSON.stringify(logs))
  assert.equal(await manager.reload(), undefined)
})

test('the home is resolved at every discovery', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const [h1, h2] = [path.join(tree.root, 'h1'), path.join(tree.root, 'h2')]
  tree.write(path.join(h1, '.wave/rules/one.md'), 'first home')
  tree.write(path.join(h2, '.claude/rules/two.md'), 'second home')
  const manager = new MemoryRuleManager(new Container(), { workdir: tree.workdir })
  withHome(t, h1)
  await manager.discoverRules()
  assert.deepEqual(manager.getActiveRules([]).map((r) => r.content), ['first home'])
  process.env.HOME = h2
  await manager.discoverRules()
  assert.deepEqual(manager.getActiveRules([]).map((r) => r.content), ['second home'])
  process.env.HOME = h1
  await manager.reload()
  assert.deepEqual(manager.getActiveRules([]).map((r) => r.content), ['first home'])
})

test('diagnostics map onto the logger by severity; silent without one; nothing throws', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  withHome(t, tree.homeDir)
  tree.project('bad.md', '---\npaths: [src/**\n---\nbroken')
  tree.project('lenient.md', '---\npaths: *.ts\n---\nunquoted')
  tree.project('ok.md', 'fine')
  const logs = []
  const logger = { debug: (m) => logs.push(`debug ${m}`), warn: (m) => logs.push(`warn ${m}`), error: (m) => logs.push(`error ${m}`) }
  // The option is used when the container has no Logger.
  const m = new MemoryRuleManager(new Container(), { workdir: tree.workdir, logger })
  await m.discoverRules()
  const bad = path.join(tree.workdir, '.wave/rules/bad.md')
  assert.ok(logs.some((l) => l.startsWith(`error ${bad}:2:`) && l.includes('error[yaml-syntax]')), logs.join('\n'))
  assert.ok(logs.some((l) => l.startsWith('warn ') && l.includes('[unquoted-value]')), logs.join('\n'))
  assert.deepEqual(m.getActiveRules([]).map((r) => r.id), ['ok.md'])
  // Unchanged on reload: nothing logged again.
  const before = logs.length
  await m.reload()
  assert.equal(logs.length, before)

  // No logger anywhere: nothing printed (console untouched).
  const printed = []
  const saved = { ...console }
  for (const k of ['log', 'debug', 'info', 'warn', 'error']) console[k] = (...a) => printed.push(a)
  try {
    const silent = new MemoryRuleManager({}, { workdir: tree.workdir })
    await silent.discoverRules()
    // A logger that throws, a container whose get throws: still no exception.
    const angry = new MemoryRuleManager({ has: () => true, get: () => { throw new Error('no') } }, { workdir: tree.workdir, logger: { error() { throw new Error('x') } } })
    await angry.discoverRules()
    await angry.reload()
  } finally {
    Object.assign(console, saved)
  }
  assert.deepEqual(printed, [])
  // Bad input per message never throws.
  assert.deepEqual(m.getActiveRules(null), m.getActiveRules([]))
  assert.deepEqual(m.getActiveRulesSplit([1, {}, 'x.py']).conditional, [])
})
