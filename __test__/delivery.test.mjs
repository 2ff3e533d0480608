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
const { Conversations, touchedFiles, eventMayMatter, checkToolCall } = require('../index.js')

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

test('the binding\'s tool-before, subagent start and stop, and checkToolCall: refusals, a subagent\'s own rules, nothing shared with its parent', async (t) => {
  const tree = projectTree(t, {
    'always.md': 'Be kind.',
    'sql.md': '---\ntopics: [sql]\n---\nNo SELECT *.',
    'ts.md': '---\npaths: "src/**/*.ts"\n---\nStrict TypeScript.',
    'gen.md': '---\npaths: "gen/**"\nenforce: block\n---\nGenerated: run npm run gen.',
    'push.md': '---\ncommands: ["git push --force*"]\nenforce: warn\n---\nAsk before a force push.',
  })
  const manager = await discovered(tree)
  const c = new Conversations()
  const before = (tool) => c.respond(manager.engine, { conversation: s1, kind: 'tool-before', tools: [tool] })
  const write = before({ name: 'Write', kind: 'write', input: { file_path: path.join(tree.workdir, 'gen/a.ts'), content: 'x' } })
  assert.match(write.refusal, /^Refused by the project's rules: writing gen\/a\.ts is not allowed\.\n\[gen\.md\] Generated: run npm run gen\./)
  assert.deepEqual(write.enforcedIds, ['gen.md'])
  assert.equal(before({ name: 'bash', input: { command: 'cp a.ts gen/b.ts' } }).refusal, "Refused by the project's rules: writing gen/b.ts is not allowed.\n[gen.md] Generated: run npm run gen.", 'a shell form, the tool\'s kind guessed from its name')
  assert.equal(before({ name: 'Write', kind: 'write', input: { file_path: 'src/a.ts' } }).refusal, null)
  assert.equal(before({ name: 'Bash', kind: 'shell', input: { command: 'git push --force origin' } }).refusal, null, 'warn lets it run')

  const check = checkToolCall(manager.engine, { name: 'run_command', kind: 'shell', input: { command: 'git push --force origin && echo x > gen/c.ts' } })
  assert.equal(check.refused, true)
  assert.deepEqual(check.ruleIds, ['gen.md', 'push.md'])
  assert.match(check.reason, /writing gen\/c\.ts/)
  assert.match(check.warning, /^Allowed, with a warning from the project's rules about running `git push --force origin`:\n\[push\.md\]/)
  assert.deepEqual(checkToolCall(manager.engine, { name: 'readFile', input: { path: 'gen/a.ts' } }), { refused: false, reason: '', warning: '', ruleIds: [], unchecked: [] })

  // The parent reads a file and gets its path rule; its subagent starts with nothing of that.
  const read = (conversation, file) => ({ conversation, kind: 'tool-done', tools: [{ name: 'Read', kind: 'read', input: { file_path: file } }] })
  const parent = c.respond(manager.engine, read(s1, 'src/a.ts'))
  assert.deepEqual(parent.ruleIds, ['ts.md'])
  c.commit(manager.engine, parent)
  // The task announced by the parent's subagent tool, taken by the start that lacks it (by type).
  c.respond(manager.engine, { conversation: s1, kind: 'tool-before', tools: [{ name: 'Agent', kind: 'subagent', input: { subagent_type: 'Explore', prompt: 'fix the sql of the orders' } }] })
  const sub = { session: 's1', subagent: 'a1' }
  const start = c.respond(manager.engine, { conversation: sub, kind: 'subagent-start', subagentType: 'Explore' })
  assert.deepEqual(start.ruleIds, ['always.md', 'sql.md'], 'the always-on rules and its task\'s topic rules')
  c.commit(manager.engine, start)
  const subRead = c.respond(manager.engine, read(sub, 'src/b.ts'))
  assert.deepEqual(subRead.ruleIds, ['ts.md'], 'the path rule reaches the subagent though its parent had it')
  c.commit(manager.engine, subRead)
  assert.deepEqual(c.delivered(s1), ['ts.md'], 'nothing the subagent got is recorded for its parent')
  c.respond(manager.engine, { conversation: sub, kind: 'subagent-stop' })
  assert.equal(c.has(sub), false, 'a finished subagent\'s state is dropped')
  assert.deepEqual(c.delivered(s1), ['ts.md'])
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
