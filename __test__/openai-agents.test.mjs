// The OpenAI Agents SDK input filter, through the real `@openai/agents` run
// loop with its own ScriptedModel (@openai/agents/testing): a function tool
// that reads files over several turns, and what the model received each time.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { Agent, run, tool, setTracingDisabled } from '@openai/agents'
import { ScriptedModel, functionCall, assistantMessage } from '@openai/agents/testing'
import { z } from 'zod'
import { sdkProject, deliveryLog } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { memoryRulesInputFilter } = require('wave-memory-rules/openai-agents')
setTracingDisabled(true)

function agentFor(tree, model) {
  const readFile = tool({
    name: 'read_file',
    description: 'Read a file',
    parameters: z.object({ path: z.string() }),
    execute: async ({ path: file }) => fs.readFileSync(path.join(tree.workdir, file), 'utf8'),
  })
  return new Agent({ name: 'coder', instructions: 'You are a coding agent.', model, tools: [readFile] })
}

const reads = (...files) => [
  ...files.map((f, i) => [functionCall('read_file', { path: f }, { callId: `c${i}` })]),
  [assistantMessage('done')],
]
const reminderIds = (input) =>
  input.flatMap((item, i) => (item.role === 'user' && typeof item.content === 'string' && item.content.startsWith('<system-reminder') ? [`${i}:${/rule="([^"]*)"/.exec(item.content)[1]}`] : []))

test('system-prompt mode: the instructions carry the rules of the files read, turn by turn', async (t) => {
  const { tree, manager } = sdkProject(t)
  const model = new ScriptedModel(reads('src/api/users.ts', 'src/ui/App.tsx'))
  const errors = []
  const filter = memoryRulesInputFilter({ manager, workdir: tree.workdir, onError: (e) => errors.push(e) })
  const result = await run(agentFor(tree, model), 'Add paging to the customer list', { callModelInputFilter: filter })
  assert.equal(result.finalOutput, 'done')
  assert.deepEqual(errors, [])
  model.assertComplete()
  const mandatory = '=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n==========================='
  assert.deepEqual(
    model.calls.map((c) => c.request.systemInstructions),
    [
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.`,
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.\n[api.md] Validate input.`,
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.\n[api.md] Validate input.\n[ui.md] Hooks only.`,
    ],
  )
  // The items themselves reach the model unchanged.
  assert.deepEqual(model.calls.map((c) => c.request.input.length), [1, 3, 5])
  // The delivery log says what each call's instructions gave.
  const log = deliveryLog(tree.homeDir, tree.workdir)
  const ids = (text) => [...text.matchAll(/^\[([^\]]+)\] /gm)].map((m) => m[1]).sort()
  assert.deepEqual(log.map((d) => d.rules.map((r) => r.id).sort()), model.calls.map((c) => ids(c.request.systemInstructions)))
  assert.ok(log.every((d) => d.agent === 'openai-agents' && d.event === 'model-call'), JSON.stringify(log))
})

test('reminder mode: each rule once, where it became active, kept in later turns; again after compaction', async (t) => {
  const { tree, manager } = sdkProject(t)
  const model = new ScriptedModel(reads('src/api/users.ts', 'src/api/users.ts', 'src/ui/App.tsx'))
  const filter = memoryRulesInputFilter({ manager, workdir: tree.workdir, mode: 'reminders' })
  const agent = agentFor(tree, model)
  const result = await run(agent, 'Look at the users API', { callModelInputFilter: filter })
  assert.equal(result.finalOutput, 'done')
  assert.ok(model.calls.every((c) => c.request.systemInstructions === 'You are a coding agent.\n\n## Rules\n[always.md] Be brief.'))
  // input: user(0), call(1), result(2), reminder(3), call, result, call, result, reminder
  assert.deepEqual(model.calls.map((c) => reminderIds(c.request.input)), [[], ['3:api.md'], ['3:api.md'], ['3:api.md', '8:ui.md']])
  assert.deepEqual(filter.delivered(), ['api.md', 'ui.md'])
  // The log: each call's instructions (the always-on rule) and the reminders new in it.
  assert.deepEqual(deliveryLog(tree.homeDir, tree.workdir).map((d) => d.rules.map((r) => r.id).sort()), [['always.md'], ['always.md', 'api.md'], ['always.md'], ['always.md', 'ui.md']])

  // The next run continues the conversation from the result's history: nothing new to deliver.
  model.enqueue([assistantMessage('ok')])
  await run(agent, [...result.history, { role: 'user', content: 'thanks' }], { callModelInputFilter: filter })
  assert.deepEqual(reminderIds(model.lastCall.request.input), ['3:api.md', '8:ui.md'])
  // A compacted history: the rules it fires come again, once.
  model.enqueue([assistantMessage('ok')], [assistantMessage('ok')])
  const compacted = [{ role: 'user', content: 'Summary: we edited @src/ui/App.tsx. Go on.' }]
  await run(agent, compacted, { callModelInputFilter: filter })
  assert.deepEqual(reminderIds(model.lastCall.request.input), ['1:ui.md'])
  filter.onCompacted()
  await run(agent, compacted, { callModelInputFilter: filter })
  assert.deepEqual(reminderIds(model.lastCall.request.input), ['1:ui.md'])
  model.assertComplete()
})

test('never throws into the SDK: a broken manager leaves the call as it was', async (t) => {
  const { tree } = sdkProject(t)
  const errors = []
  const broken = { discovered: true, generation: 1, reload: async () => { throw new Error('disk gone') } }
  const model = new ScriptedModel([[assistantMessage('done')]])
  const filter = memoryRulesInputFilter({ manager: broken, reloadIntervalMs: 0, onError: (e) => errors.push(e.message) })
  const result = await run(agentFor(tree, model), 'hi', { callModelInputFilter: filter })
  assert.equal(result.finalOutput, 'done')
  assert.deepEqual(errors, ['disk gone'])
  assert.equal(model.lastCall.request.systemInstructions, 'You are a coding agent.')
})

test('ruleGuardrail: an enforce: block rule rejects the tool call before it runs, and the model reads the rule', async (t) => {
  const { tree } = sdkProject(t)
  tree.write(path.join(tree.workdir, '.wave/rules/gen.md'), '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.')
  const { ruleGuardrail } = require('wave-memory-rules/openai-agents')
  const { RuleManager } = require('wave-memory-rules')
  const manager = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  const ran = []
  const writeFile = tool({
    name: 'write_file',
    description: 'Write a file',
    parameters: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path: file }) => (ran.push(file), 'written'),
    inputGuardrails: [ruleGuardrail({ manager })],
  })
  const model = new ScriptedModel([
    [functionCall('write_file', { path: 'gen/api.ts', content: 'x' }, { callId: 'c1' })],
    [functionCall('write_file', { path: 'src/ok.ts', content: 'x' }, { callId: 'c2' })],
    [assistantMessage('done')],
  ])
  const agent = new Agent({ name: 'coder', instructions: 'Code.', model, tools: [writeFile] })
  const result = await run(agent, 'regenerate the API')
  assert.equal(result.finalOutput, 'done')
  model.assertComplete()
  assert.deepEqual(ran, ['src/ok.ts'], 'the rejected call never ran')
  const last = JSON.stringify(model.lastCall.request.input)
  assert.ok(last.includes("Refused by the project's rules: writing gen/api.ts is not allowed."), last)
  assert.ok(last.includes('Generated files are rebuilt'))
})
