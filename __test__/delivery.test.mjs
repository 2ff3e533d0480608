// The core's delivery session and renderer through the binding, as the
// adapters use them: what is due, committed only after a send, saved and
// restored; the rendered bytes of one rules section.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { tempTree, projectTree, discovered } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { planRules, renderRules, reminderText, stickyLine } = require('..')
const { DeliverySession, toolInputFiles } = require('../index.js')

async function setup(t) {
  const tree = projectTree(t, {
    'always.md': 'Be kind.',
    'ts.md': '---\npaths: "src/**/*.ts"\n---\nStrict TypeScript.',
    'sql.md': '---\ntopics: [sql]\npriority: 10\n---\nNo SELECT *.',
    'lint.md': '---\npaths: "src/**"\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint.',
  })
  return { tree, manager: await discovered(tree) }
}

test('a delivery session gives each rule once, only after commit, and survives a save', async (t) => {
  const { tree, manager } = await setup(t)
  const s = new DeliverySession()
  const start = s.start(manager.engine, 'startup', '## Memory\nm', { maxBytes: 9000 })
  assert.equal(start.text, '## Rules\n[always.md] Be kind.\n\n## Memory\nm')
  assert.equal(s.started, false)
  s.commit(manager.engine, start)
  assert.equal(s.started, true)

  const file = path.join(tree.workdir, 'src/a.ts')
  const due = s.filesTouched(manager.engine, [file])
  assert.deepEqual(due.ruleIds, ['lint.md', 'ts.md'])
  // Not committed (a failed send): due again.
  assert.deepEqual(s.filesTouched(manager.engine, [file]).ruleIds, ['lint.md', 'ts.md'])
  s.commit(manager.engine, due)
  assert.deepEqual(s.filesTouched(manager.engine, [file]).ruleIds, [])
  assert.match(s.stop(), /- \[lint\.md\] Run the linter/)

  const saved = DeliverySession.fromJson(s.toJson())
  assert.deepEqual(saved.delivered(), ['always.md', 'lint.md', 'ts.md'])
  assert.throws(() => DeliverySession.fromJson('{not json'), /not a saved session/)

  // An edited rule is due again; a compaction gives everything active again.
  fs.writeFileSync(path.join(tree.workdir, '.wave/rules/ts.md'), '---\npaths: "src/**/*.ts"\n---\nStricter TypeScript.')
  await manager.reload()
  assert.deepEqual(saved.filesTouched(manager.engine, [file]).ruleIds, ['ts.md'])
  saved.compacted()
  assert.deepEqual(saved.start(manager.engine, 'compact', undefined, {}).ruleIds, ['always.md', 'lint.md', 'ts.md'])
})

test('a transcript read back counts its reminders and rendered rules as delivered', async (t) => {
  const { manager } = await setup(t)
  const ts = manager.getRules().find((r) => r.id === 'ts.md')
  const s = new DeliverySession()
  s.restore(manager.engine, `${reminderText(ts)}\nlater: [sql.md] No SELECT *.`)
  assert.deepEqual(s.delivered(), ['sql.md', 'ts.md'])
  assert.deepEqual(s.reminders(manager.engine, ['src/a.ts'], 'sql').map((r) => r.ruleId), ['lint.md'])
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
  assert.deepEqual(toolInputFiles({ filePath: 'a.ts', path: 'a.ts', command: 'x' }), ['a.ts'])
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
