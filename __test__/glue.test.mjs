// The TypeScript glue, driven through a fake agent-SDK conversation.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { discovered, tempTree } from './helpers.mjs'

const pkg = createRequire(import.meta.url)('..')
const { contextFilesFromMessages, lastUserText, renderRules, planRules, RuleSession, withMemoryRules, deliveredInTranscript } = pkg

/** An AIManager with the SDK's shape: messages, a system-prompt hook, sendAIMessage. */
class FakeAI {
  constructor() {
    this.messages = []
    this.hooks = []
    this.requests = []
    this.messageManager = { getMessages: () => this.messages, addMessage: (m) => this.messages.push(m) }
  }
  addSystemPromptHook(hook) {
    this.hooks.push(hook)
  }
  async sendAIMessage() {
    let system = 'You are a coding agent.'
    for (const hook of this.hooks) system = await hook(system)
    this.requests.push({ system, messages: structuredClone(this.messages) })
    this.messages.push({ role: 'assistant', content: 'ok' })
  }
  user(text) {
    this.messages.push({ role: 'user', content: text })
  }
  read(file) {
    this.messages.push({ role: 'assistant', blocks: [{ type: 'tool', name: 'Read', parameters: JSON.stringify({ file_path: file }) }] })
  }
  get last() {
    return this.requests.at(-1)
  }
}

function rule(id, content, metadata = {}, source = 'project') {
  return { id, content, metadata, source, filePath: `/x/${id}` }
}

test('contextFilesFromMessages reads all three shapes, in first-seen order', () => {
  const messages = [
    { role: 'user', content: 'Look at @src/app.ts and @./docs/guide.md, not @alice.' },
    { role: 'assistant', blocks: [{ type: 'tool', name: 'Read', parameters: '{"file_path":"/repo/src/a.ts"}' }, { type: 'tool', parameters: '{not json' }] },
    { role: 'assistant', tool_calls: [{ function: { name: 'edit', arguments: '{"path":"src\\\\b.ts","paths":["c.ts", 7, "./src/app.ts"]}' } }, { function: { arguments: 'nope' } }] },
    { role: 'assistant', content: [{ type: 'tool_use', name: 'Write', input: { filePath: 'd.ts', files: ['e.ts'], notebook_path: 'n.ipynb' } }, { type: 'text', text: '@ignored.ts' }] },
    { role: 'assistant', blocks: [{ type: 'tool', parameters: JSON.stringify({ target_file: 'f.ts', targetFile: 'g.ts', other: 'h.ts' }) }] },
    null,
    'garbage',
    { role: 'user', blocks: [{ type: 'text', content: 'then @lib/x.js' }] },
  ]
  assert.deepEqual(contextFilesFromMessages(messages, { workdir: '/repo' }), [
    'src/app.ts', 'docs/guide.md', 'src/a.ts', 'src/b.ts', 'c.ts', 'd.ts', 'e.ts', 'n.ipynb', 'f.ts', 'g.ts', 'lib/x.js',
  ])
  assert.deepEqual(contextFilesFromMessages('not an array'), [])
  assert.equal(lastUserText(messages), 'then @lib/x.js')
})

test('renderRules: topic rules first as mandatory, then the others, then memory', () => {
  const rules = [rule('db.md', 'No SELECT *.', { topics: ['sql'] }), rule('general.md', 'Small functions.'), rule('ts.md', 'Strict TS.\nNo any.')]
  const text = renderRules(rules, { topicRuleIds: ['db.md'], memory: '## Project Memory\n- tests need a build' })
  assert.equal(
    text,
    '=== MANDATORY RULES ===\n[db.md] No SELECT *.\n===========================\n\n## Rules\n[general.md] Small functions.\n[ts.md] Strict TS.\nNo any.\n\n## Project Memory\n- tests need a build',
  )
  assert.equal(renderRules([...rules], { topicRuleIds: ['db.md'], memory: '## Project Memory\n- tests need a build' }), text, 'same bytes')
  assert.equal(renderRules([]), '')
})

test('renderRules appends a newly active rule after the ones already present', () => {
  const a = rule('a.md', 'A', { priority: 1 })
  const b = rule('b.md', 'B', { priority: 9 })
  const first = planRules([a])
  const second = planRules([b, a], { previousOrder: first.order })
  assert.deepEqual(second.order, ['a.md', 'b.md'])
  assert.ok(second.text.startsWith(first.text), 'the earlier text is a prefix')
})

test('budgets: user rules at most half, rules kept whole, omitted ids named', () => {
  const rules = [
    rule('p-high.md', 'p1\np2\np3', { priority: 5 }),
    rule('p-low.md', 'q1\nq2\nq3\nq4', { priority: 1 }),
    rule('u-high.md', 'u1\nu2\nu3\nu4', { priority: 9 }, 'user'),
    rule('u-low.md', 'v1', { priority: 0 }, 'user'),
  ]
  // 12 lines: 1 heading + 2 closing (blank + line) leave 9 for entries; users may take 4.
  const plan = planRules(rules, { maxLines: 12 })
  const lines = plan.text.split('\n')
  assert.ok(lines.length <= 12, plan.text)
  assert.deepEqual(plan.omitted.sort(), ['p-low.md', 'u-low.md'].sort().filter((id) => !plan.order.includes(id)))
  assert.ok(plan.order.includes('u-high.md'), 'a 4-line user rule fits in half of 9')
  assert.ok(plan.order.includes('p-high.md'))
  assert.equal(lines.at(-1), `(left out to fit the budget: ${plan.omitted.join(', ')})`)
  for (const r of rules) if (plan.order.includes(r.id)) assert.ok(plan.text.includes(`[${r.id}] ${r.content}`), 'kept whole')
  // What user rules leave unused goes to project rules.
  const projectOnly = planRules(rules.filter((r) => r.source === 'project'), { maxLines: 9 })
  assert.deepEqual(projectOnly.order, ['p-high.md', 'p-low.md'])
  // A user rule larger than half never takes project room.
  const big = planRules([rule('u.md', 'x\n'.repeat(5).trim(), {}, 'user'), rule('p.md', 'y')], { maxLines: 8 })
  assert.deepEqual(big.order, ['p.md'])
  assert.deepEqual(big.omitted, ['u.md'])
  // Bytes too.
  const bytes = planRules([rule('a.md', 'é'.repeat(40)), rule('b.md', 'x')], { maxBytes: 60 })
  assert.ok(Buffer.byteLength(bytes.text) <= 60, bytes.text)
  assert.deepEqual(bytes.omitted, ['a.md'])
})

async function setup(t, files) {
  const tree = tempTree()
  t.after(tree.cleanup)
  for (const [id, text] of Object.entries(files)) tree.project(id, text)
  return { tree, manager: await discovered(tree) }
}

test('system-prompt mode: active rules in every request, mandatory first, memory after, reloads on change', async (t) => {
  const { tree, manager } = await setup(t, {
    'always.md': 'Be brief.',
    'ts.md': '---\npaths: "src/**/*.ts"\n---\nStrict TS.',
    'db.md': '---\ntopics: [customer]\n---\nThe customer table is read-only.',
  })
  const ai = new FakeAI()
  const errors = []
  withMemoryRules(ai, { manager, workdir: tree.workdir, memory: () => '## Project Memory\n- staging is read-only', onError: (e) => errors.push(e) })
  ai.user('hello')
  await ai.sendAIMessage()
  assert.equal(ai.last.system, 'You are a coding agent.\n\n## Rules\n[always.md] Be brief.\n\n## Project Memory\n- staging is read-only')
  ai.read(path.join(tree.workdir, 'src/main.ts'))
  ai.user('now list the Customers')
  await ai.sendAIMessage()
  assert.equal(
    ai.last.system,
    'You are a coding agent.\n\n=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n## Rules\n[always.md] Be brief.\n[ts.md] Strict TS.\n\n## Project Memory\n- staging is read-only',
  )
  tree.project('new.md', 'Added while running.')
  await ai.sendAIMessage()
  assert.match(ai.last.system, /\[new\.md\] Added while running\./)
  assert.deepEqual(errors, [])
})

test('reminder mode: delivered once, again after compaction, cache-stable system prompt', async (t) => {
  const { manager } = await setup(t, {
    'always.md': 'Be brief.',
    'ts.md': '---\npaths: "src/**/*.ts"\n---\nStrict TS.',
  })
  const ai = new FakeAI()
  const handle = withMemoryRules(ai, { manager, mode: 'reminders', sessionId: () => 's1' })
  ai.user('start')
  await ai.sendAIMessage()
  const system = ai.last.system
  assert.equal(system, 'You are a coding agent.\n\n## Rules\n[always.md] Be brief.')
  ai.read('src/a.ts')
  await ai.sendAIMessage()
  const reminders = (msgs) => msgs.filter((m) => typeof m.content === 'string' && m.content.startsWith('<system-reminder rule="ts.md">'))
  assert.equal(reminders(ai.last.messages).length, 1, 'fires on the read')
  assert.match(reminders(ai.last.messages)[0].content, /Strict TS\./)
  ai.read('src/b.ts')
  await ai.sendAIMessage()
  await ai.sendAIMessage()
  assert.equal(reminders(ai.last.messages).length, 1, 'delivered exactly once')
  assert.ok(ai.requests.every((r) => r.system === system), 'the system prompt never changed')
  // Compaction: the SDK replaces the history with a summary.
  ai.messages.splice(0, ai.messages.length, { role: 'user', content: 'Summary: editing src/a.ts' }, { role: 'assistant', blocks: [{ type: 'tool', parameters: '{"path":"src/a.ts"}' }] })
  handle.onCompacted()
  await ai.sendAIMessage()
  assert.equal(reminders(ai.last.messages).length, 1, 'delivered again after compaction')
  await ai.sendAIMessage()
  assert.equal(reminders(ai.last.messages).length, 1)
})

test('a session created twice gets its rules once; a restored transcript counts as delivered', async (t) => {
  const { manager } = await setup(t, { 'ts.md': '---\npaths: "**/*.ts"\n---\nStrict TS.' })
  const session = new RuleSession(manager)
  session.onSessionCreated('a')
  assert.deepEqual(session.collectReminders('a', ['x.ts']).map((r) => r.ruleId), ['ts.md'])
  session.markDelivered('a', ['ts.md'])
  session.onSessionCreated('a')
  assert.deepEqual(session.collectReminders('a', ['x.ts']), [])
  // A new process resuming a saved transcript.
  const saved = [{ role: 'user', content: [{ type: 'text', text: session.collectReminders('b', ['y.ts'])[0].text }] }]
  const resumed = new RuleSession(manager)
  resumed.restore('a', JSON.parse(JSON.stringify(saved)))
  assert.deepEqual(resumed.delivered('a'), ['ts.md'])
  assert.deepEqual(resumed.collectReminders('a', ['y.ts']), [])
  assert.deepEqual([...deliveredInTranscript([{ content: '<system-reminder rule="a &quot;b&quot;.md">' }])], ['a "b".md'])
})

test('a rejected send is not remembered, is retried, and never throws', async (t) => {
  const { manager } = await setup(t, { 'ts.md': '---\npaths: "**/*.ts"\n---\nStrict TS.' })
  const ai = new FakeAI()
  const errors = []
  let fail = true
  const sent = []
  withMemoryRules(ai, {
    manager,
    mode: 'reminders',
    deliver: async (reminders) => {
      if (fail) throw new Error('network down')
      sent.push(...reminders.map((r) => r.ruleId))
    },
    onError: (e) => errors.push(e.message),
  })
  ai.read('a.ts')
  await ai.sendAIMessage()
  assert.deepEqual(errors, ['network down'])
  assert.deepEqual(sent, [])
  fail = false
  await ai.sendAIMessage()
  await ai.sendAIMessage()
  assert.deepEqual(sent, ['ts.md'], 'retried once, then remembered')
  // Direct API: deliver() resolves with the error instead of throwing.
  const session = new RuleSession(manager)
  const result = await session.deliver('s', ['b.ts'], undefined, () => Promise.reject(new Error('429')))
  assert.equal(result.error.message, '429')
  assert.deepEqual(session.delivered('s'), [])
})

test('sticky rules resurface at every stop while active; onStop is empty otherwise', async (t) => {
  const { manager } = await setup(t, {
    'lint.md': '---\npaths: "**/*.ts"\nremind: every-turn\ndescription: Run the linter before you finish\n---\nLong text.',
    'plain.md': '---\npaths: "**/*.md"\n---\nDocs.',
  })
  const session = new RuleSession(manager)
  session.collectReminders('s', ['a.ts'])
  assert.deepEqual(session.onStop('s'), ['[lint.md] Run the linter before you finish'])
  assert.deepEqual(session.onStop('s'), ['[lint.md] Run the linter before you finish'])
  session.collectReminders('s', ['README.md'])
  assert.deepEqual(session.onStop('s'), [])
  assert.deepEqual(session.onStop('unknown'), [])
  assert.deepEqual([...manager.getStickyRuleIds()], ['lint.md'])
})

test('identical conversations give byte-identical system prompts', async (t) => {
  const { manager } = await setup(t, {
    'a.md': '---\npaths: "**/*.ts"\npriority: 2\n---\nA',
    'b.md': '---\ntopics: deploy\n---\nB',
    'c.md': 'C',
  })
  const run = async () => {
    const ai = new FakeAI()
    withMemoryRules(ai, { manager, maxLines: 20 })
    ai.user('deploy it')
    ai.read('x.ts')
    await ai.sendAIMessage()
    return ai.last.system
  }
  const [x, y] = [await run(), await run()]
  assert.equal(Buffer.compare(Buffer.from(x), Buffer.from(y)), 0)
})
