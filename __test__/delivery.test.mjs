// The core's agent event, its answer and its conversations through the
// binding, as the TypeScript roads use them: what is due, committed only
// after a send, saved and restored; the rendered bytes of one rules section.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { tempTree, projectTree, discovered } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { planRules, renderRules, reminderText, stickyLine } = require('..')
const { Conversations, touchedFiles, eventMayMatter } = require('../index.js')

async function setup(t) {
  const tree = projectTree(t, {
    'always.md': 'Be kind.',
    'ts.md': '---\npaths: "src/**/*.ts"\n---\nStrict TypeScript.',
    'sql.md': '---\ntopics: [sql]\npriority: 10\n---\nNo SELECT *.',
    'lint.md': '---\npaths: "src/**"\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint.',
  })
  return { tree, manager: await discovered(tree) }
}

const s1 = { session: 's1' }

test('a conversation gives each rule once, only after commit, and survives a save', async (t) => {
  const { tree, manager } = await setup(t)
  const c = new Conversations({ maxBytes: 9000 })
  const start = c.respond(manager.engine, { conversation: s1, kind: 'start', memory: '## Memory\nm' })
  assert.equal(start.text, '## Rules\n[always.md] Be kind.\n\n## Memory\nm')
  assert.equal(c.started(s1), false)
  c.commit(manager.engine, start)
  assert.equal(c.started(s1), true)

  const read = { conversation: s1, kind: 'tool-done', tools: [{ name: 'Read', kind: 'read', input: { file_path: path.join(tree.workdir, 'src/a.ts') } }] }
  const due = c.respond(manager.engine, read)
  assert.deepEqual(due.ruleIds, ['lint.md', 'ts.md'])
  assert.deepEqual(due.touched, ['src/a.ts'])
  // Not committed (a failed send): due again.
  assert.deepEqual(c.respond(manager.engine, read).ruleIds, ['lint.md', 'ts.md'])
  c.commit(manager.engine, due)
  assert.deepEqual(c.respond(manager.engine, read).ruleIds, [])
  assert.match(c.respond(manager.engine, { conversation: s1, kind: 'stop' }).text, /- \[lint\.md\] Run the linter/)

  const saved = new Conversations()
  saved.loadJson(s1, c.toJson(s1))
  assert.deepEqual(saved.delivered(s1), ['always.md', 'lint.md', 'ts.md'])
  assert.throws(() => saved.loadJson(s1, '{not json'), /not a saved conversation/)

  // An edited rule is due again; a compaction gives everything active again.
  fs.writeFileSync(path.join(tree.workdir, '.wave/rules/ts.md'), '---\npaths: "src/**/*.ts"\n---\nStricter TypeScript.')
  await manager.reload()
  assert.deepEqual(saved.respond(manager.engine, read).ruleIds, ['ts.md'])
  saved.respond(manager.engine, { conversation: s1, kind: 'compaction' })
  assert.deepEqual(saved.respond(manager.engine, { conversation: s1, kind: 'start', how: 'compact' }).ruleIds, ['always.md', 'lint.md', 'ts.md'])
  // A subagent is a conversation of its own.
  const sub = { session: 's1', subagent: 'a7' }
  assert.deepEqual(saved.respond(manager.engine, { ...read, conversation: sub }).ruleIds, ['lint.md', 'ts.md'])
  assert.throws(() => saved.respond(manager.engine, { conversation: s1, kind: 'nope' }), /unknown event kind 'nope'/)
})

test('a transcript read back counts its reminders and rendered rules as delivered', async (t) => {
  const { manager } = await setup(t)
  const ts = manager.getRules().find((r) => r.id === 'ts.md')
  const c = new Conversations()
  c.restore(manager.engine, s1, `${reminderText(ts)}\nlater: [sql.md] No SELECT *.`)
  assert.deepEqual(c.delivered(s1), ['sql.md', 'ts.md'])
  const call = c.respond(manager.engine, { conversation: s1, kind: 'model-call', reminders: true, files: ['src/a.ts'], prompt: 'sql' })
  assert.deepEqual(call.reminders.map((r) => r.ruleId), ['lint.md'])
})

test('the core decides which files a tool call touched, under any tool name', () => {
  assert.deepEqual(touchedFiles([
    { name: 'x', input: { filePath: 'a.ts', path: 'a.ts', command: 'cat b.ts > c.ts' } },
    { name: 'apply_patch', kind: 'write', input: { patchText: '*** Begin Patch\n*** Update File: d.ts\n*** End Patch' } },
    { name: 'Skill', kind: 'skill', input: { command: 'cat e.ts' } },
  ]), [['a.ts', 'b.ts', 'c.ts'], ['d.ts'], []])
  assert.equal(eventMayMatter({ conversation: s1, kind: 'tool-done', tools: [{ name: 'todo', input: { items: [] } }] }), false)
  assert.equal(eventMayMatter({ conversation: s1, kind: 'tool-done', tools: [{ name: 'bash', input: { command: 'head x.ts' } }] }), true)
})

test('the rendered bytes of a rules section: topic rules first, budget, memory', async (t) => {
  const { manager } = await setup(t)
  const rules = manager.getRules()
  const render = (maxLines) => renderRules(rules, { topicRuleIds: new Set(['sql.md']), maxLines, memory: '## Memory\nm\n' })
  const mandatory = '=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n==========================='
  assert.equal(render(8), `${mandatory}\n\n## Rules\n[always.md] Be kind.\n[lint.md] Run npm run lint.\n[ts.md] Strict TypeScript.\n\n## Memory\nm`)
  // One line less: the rules that do not fit whole are named instead.
  assert.equal(render(7), `${mandatory}\n\n(left out to fit the budget: always.md, lint.md, ts.md)\n\n## Memory\nm`)
  assert.deepEqual(planRules(rules, { previousOrder: ['ts.md'] }).order, ['ts.md', 'sql.md', 'always.md', 'lint.md'])
  assert.equal(stickyLine(rules.find((r) => r.id === 'lint.md')), '[lint.md] Run the linter')
})

test('diagnostics carry the core text', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('bad.md', '---\npaths: [\n---\nx')
  const manager = await discovered(tree)
  const [d] = manager.getDiagnostics()
  assert.ok(d.text.startsWith(`${d.filePath}:`), d.text)
  assert.ok(d.text.includes(`${d.severity}[${d.code}]: ${d.message}`), d.text)
})
