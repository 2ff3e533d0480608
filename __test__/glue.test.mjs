// The pure pieces of the TypeScript glue: files and prompt from a
// conversation (read incrementally), the rules' prompt text, reminder sessions.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { discovered, tempTree } from './helpers.mjs'

const pkg = createRequire(import.meta.url)('..')
const { contextFilesFromMessages, lastUserText, renderRules, planRules, RuleSession, ConversationReader, deliveredInTranscript } = pkg

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
    // Within one call, the core's order: single-file keys, then lists.
    'src/app.ts', 'docs/guide.md', 'src/a.ts', 'src/b.ts', 'c.ts', 'd.ts', 'n.ipynb', 'e.ts', 'f.ts', 'g.ts', 'lib/x.js',
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

test('a rejected send is not remembered, and deliver() never throws', async (t) => {
  const { manager } = await setup(t, { 'ts.md': '---\npaths: "**/*.ts"\n---\nStrict TS.' })
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

test('a skill activated in a RuleSession brings its skills: rules once, and the memory reminder at stop while active', async (t) => {
  const { manager } = await setup(t, {
    'replica.md': '---\nskills: [db-work]\n---\nQueries go to the read replica.',
    'ts.md': '---\npaths: "**/*.ts"\n---\nStrict TS.',
  })
  const session = new RuleSession(manager)
  assert.deepEqual(session.collectReminders('s', ['a.md']), [], 'no skill yet')
  assert.equal(session.stopReminder('s'), undefined)
  assert.equal(session.onSkillActivated('s', 'not a name'), false)
  assert.equal(session.onSkillActivated('s', '/DB-Work', true), true)
  assert.deepEqual(session.activeSkills('s'), ['db-work'])
  const due = session.collectReminders('s', [])
  assert.deepEqual(due.map((r) => r.ruleId), ['replica.md'])
  session.markDelivered('s', ['replica.md'])
  assert.deepEqual(session.collectReminders('s', []), [], 'once per session')
  assert.match(session.stopReminder('s'), /^The skill 'db-work' you are using keeps memory\..*memory_read.*memory_write/s)
  // A skill whose SKILL.md does not use memory: no reminder.
  session.onSkillActivated('t', 'format')
  assert.equal(session.stopReminder('t'), undefined)
  assert.deepEqual(manager.getRules().find((r) => r.id === 'replica.md').metadata.skills, ['db-work'])
})

test('contextFilesFromMessages reads the AI SDK prompt shape', () => {
  const prompt = [
    { role: 'system', content: 'S' },
    { role: 'user', content: [{ type: 'text', text: 'fix @src/a.ts' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'src/b.ts' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'x' } }] },
  ]
  assert.deepEqual(contextFilesFromMessages(prompt), ['src/a.ts', 'src/b.ts'])
  assert.equal(lastUserText(prompt), 'fix @src/a.ts')
})

test('ConversationReader reads only new messages, and from the start when the history changed', () => {
  const reader = new ConversationReader({ workdir: '/repo' })
  const read = (path) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: path, toolName: 'read', input: { path } }] })
  const history = [{ role: 'user', content: 'start with @a.ts' }, read('/repo/b.ts')]
  let u = reader.read(history)
  assert.deepEqual([u.files, u.newFiles, u.prompt, u.reset, u.read], [['a.ts', 'b.ts'], ['a.ts', 'b.ts'], 'start with @a.ts', false, 2])
  history.push(read('c.ts'), read('b.ts'), { role: 'user', content: [{ type: 'text', text: 'now the customers' }] })
  u = reader.read(history)
  assert.deepEqual([u.files, u.newFiles, u.prompt, u.reset, u.read], [['a.ts', 'b.ts', 'c.ts'], ['c.ts'], 'now the customers', false, 3])
  u = reader.read(history)
  assert.deepEqual([u.newFiles, u.reset, u.read], [[], false, 0])
  // Rebuilt message objects with the same content (as the AI SDK does per call): still a continuation.
  u = reader.read([...structuredClone(history), read('d.ts')])
  assert.deepEqual([u.newFiles, u.reset, u.read], [['d.ts'], false, 1])
  // An edited last message, a shorter history, another first message: read again from the start.
  const edited = structuredClone(history)
  edited.push({ role: 'user', content: 'other' })
  reader.read(edited)
  edited[edited.length - 1] = { role: 'user', content: 'changed' }
  u = reader.read(edited)
  assert.deepEqual([u.reset, u.read, u.files], [true, 6, ['a.ts', 'b.ts', 'c.ts']])
  u = reader.read([{ role: 'user', content: 'Summary: @z.ts' }])
  assert.deepEqual([u.reset, u.files, u.prompt], [true, ['z.ts'], 'Summary: @z.ts'])
  u = reader.read([{ role: 'user', content: 'Another session' }, { role: 'user', content: 'x' }])
  assert.deepEqual([u.reset, u.files], [true, []])
  // Anything else is an empty conversation, never an exception.
  assert.deepEqual(reader.read('nope').files, [])
  assert.deepEqual(reader.read([null, 7, { content: [null, { type: 'tool-call', input: 'not json' }] }]).files, [])
})

test('RuleInjector: sessions apart, reminders placed once, the least recently used session forgotten beyond maxSessions', async (t) => {
  const { manager } = await setup(t, { 'ts.md': '---\npaths: "**/*.ts"\n---\nStrict TS.', 'always.md': 'Be brief.' })
  const { RuleInjector, withReminders } = pkg
  const injector = new RuleInjector({ manager, mode: 'reminders', maxSessions: 2, reloadIntervalMs: Infinity })
  const read = (file) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: file, toolName: 'read', input: { path: file } }] })
  const a = [{ role: 'user', content: 'a' }, read('x.ts')]
  let got = await injector.prepare('a', a)
  assert.equal(got.system, '## Rules\n[always.md] Be brief.')
  assert.deepEqual(got.reminders.map((r) => [r.at, r.ruleId]), [[2, 'ts.md']])
  a.push(read('y.ts'), { role: 'user', content: 'more' })
  got = await injector.prepare('a', a)
  assert.deepEqual(got.reminders.map((r) => [r.at, r.ruleId]), [[2, 'ts.md']], 'once, where it became active')
  const placed = withReminders(a, got.reminders, (r) => `<${r.ruleId}>`)
  assert.deepEqual(placed.map((m) => (typeof m === 'string' ? m : m.role)), ['user', 'assistant', '<ts.md>', 'assistant', 'user'])
  assert.deepEqual((await injector.prepare('b', [read('z.ts')])).reminders.map((r) => r.ruleId), ['ts.md'], 'another session gets its own')
  assert.deepEqual(injector.delivered('a'), ['ts.md'])
  await injector.prepare('c', [{ role: 'user', content: 'c' }])
  assert.deepEqual(injector.delivered('a'), [], 'a, the least recently used, was forgotten')
  assert.deepEqual(injector.delivered('b'), ['ts.md'])
})

test('withReminders: a new list with each reminder before its place, in order, made once, the input untouched', () => {
  const { withReminders } = pkg
  // Against the obvious way (insert one by one), over many shapes: reminders
  // at the start, in the middle, sharing a place, out of order, past the end.
  let seed = 11
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % n
  }
  for (let round = 0; round < 300; round++) {
    const list = Array.from({ length: rand(40) }, (_, i) => ({ i }))
    const reminders = Array.from({ length: rand(6) }, (_, j) => ({ at: rand(list.length + 3) - 1, ruleId: `r${j}`, text: `t${j}` }))
    const before = list.slice()
    let made = 0
    const make = (r) => {
      made++
      return `<${r.ruleId}>`
    }
    const expected = list.slice()
    let prev = 0
    let inserted = 0
    for (const r of reminders) {
      const at = Math.min(Math.max(r.at, prev), list.length)
      expected.splice(at + inserted, 0, `<${r.ruleId}>`)
      inserted++
      prev = at
    }
    const got = withReminders(list, reminders, make)
    assert.deepEqual(got, expected, `round ${round}: ${JSON.stringify(reminders.map((r) => r.at))} in ${list.length}`)
    assert.notEqual(got, list, 'always a new list')
    assert.deepEqual(list, before, 'the input is not changed')
    assert.equal(made, reminders.length, 'make once per reminder')
    withReminders(list, reminders, make)
    assert.equal(made, reminders.length, 'not again for the same reminders and make')
  }
})
