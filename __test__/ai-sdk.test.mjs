// The Vercel AI SDK middleware, through the real `ai` package: generateText and
// streamText with its own mock model, a tool that reads files over several
// steps, and what the model received at each step.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, streamText, wrapLanguageModel, tool, stepCountIs } from 'ai'
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test'
import { z } from 'zod'
import { deliveryLog, sdkProject } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { memoryRulesMiddleware } = require('wave-memory-rules/ai-sdk')

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const call = (id, file) => ({ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: JSON.stringify({ path: file }) })

/** A model that reads `files` one per step, then answers. */
function scriptedModel(files) {
  let step = 0
  const next = () => {
    const file = files[step]
    step++
    return file === undefined
      ? { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined } }
      : { content: [call(`c${step}`, file)], finishReason: { unified: 'tool-calls', raw: undefined } }
  }
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ ...next(), usage, warnings: [] }),
    doStream: async () => {
      const r = next()
      const chunks = [{ type: 'stream-start', warnings: [] }]
      for (const part of r.content) {
        if (part.type === 'text') chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' })
        else chunks.push(part)
      }
      chunks.push({ type: 'finish', finishReason: r.finishReason, usage })
      return { stream: simulateReadableStream({ chunks }) }
    },
  })
  return model
}

function readTool(workdir) {
  return tool({
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path: file }) => fs.readFileSync(path.join(workdir, file), 'utf8'),
  })
}

/** The system text and the reminder ids (with their index in the prompt) of each call the model received. */
function seen(model, kind = 'generate') {
  const calls = kind === 'generate' ? model.doGenerateCalls : model.doStreamCalls
  return calls.map((c) => ({
    system: c.prompt.filter((m) => m.role === 'system').map((m) => m.content).join('\n---\n'),
    reminders: c.prompt.flatMap((m, i) =>
      m.role === 'user' ? m.content.filter((p) => p.type === 'text' && p.text.startsWith('<system-reminder')).map((p) => `${i}:${/rule="([^"]*)"/.exec(p.text)[1]}`) : [],
    ),
    roles: c.prompt.map((m) => m.role).join(','),
  }))
}

test('system-prompt mode with generateText: rules follow the files the tool read, step by step', async (t) => {
  const { tree, manager } = sdkProject(t)
  const inner = scriptedModel(['src/api/users.ts', 'src/ui/App.tsx'])
  const errors = []
  const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager, workdir: tree.workdir, onError: (e) => errors.push(e) }) })
  const result = await generateText({
    model,
    system: 'You are a coding agent.',
    prompt: 'Add paging to the customer list',
    tools: { read_file: readTool(tree.workdir) },
    stopWhen: stepCountIs(5),
  })
  assert.equal(result.text, 'done')
  assert.deepEqual(errors, [])
  const calls = seen(inner)
  assert.equal(calls.length, 3)
  const mandatory = '=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n==========================='
  assert.deepEqual(
    calls.map((c) => c.system),
    [
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.`,
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.\n[api.md] Validate input.`,
      `You are a coding agent.\n\n${mandatory}\n\n## Rules\n[always.md] Be brief.\n[api.md] Validate input.\n[ui.md] Hooks only.`,
    ],
  )
  // One system message, the SDK's, and nothing else added.
  assert.deepEqual(calls.map((c) => c.roles), ['system,user', 'system,user,assistant,tool', 'system,user,assistant,tool,assistant,tool'])
  // The delivery log says what each call's system prompt gave, and nothing else.
  const log = deliveryLog(tree.homeDir, tree.workdir)
  assert.deepEqual(log.map((d) => d.rules.map((r) => r.id).sort()), calls.map((c) => [...c.system.matchAll(/^\[([^\]]+)\] /gm)].map((m) => m[1]).sort()))
  assert.ok(log.every((d) => d.agent === 'ai-sdk' && d.event === 'model-call' && d.tokens > 0), JSON.stringify(log))
})

test('reminder mode with generateText: each rule once, where it became active, kept in later steps', async (t) => {
  const { tree, manager } = sdkProject(t)
  const inner = scriptedModel(['src/api/users.ts', 'src/api/users.ts', 'src/ui/App.tsx'])
  const mw = memoryRulesMiddleware({ manager, workdir: tree.workdir, mode: 'reminders' })
  const model = wrapLanguageModel({ model: inner, middleware: mw })
  const messages = [{ role: 'user', content: 'Look at the users API' }]
  const result = await generateText({ model, system: 'Agent.', messages, tools: { read_file: readTool(tree.workdir) }, stopWhen: stepCountIs(6) })
  const calls = seen(inner)
  assert.equal(calls.length, 4)
  // The system prompt holds only the always-on rule, the same bytes in every call.
  assert.ok(calls.every((c) => c.system === 'Agent.\n\n## Rules\n[always.md] Be brief.'), JSON.stringify(calls))
  assert.deepEqual(calls.map((c) => c.reminders), [[], ['4:api.md'], ['4:api.md'], ['4:api.md', '9:ui.md']])
  assert.deepEqual(mw.delivered(), ['api.md', 'ui.md'])
  // The log: each call's system prompt (the always-on rule) and the reminders new in it.
  const given = deliveryLog(tree.homeDir, tree.workdir).map((d) => d.rules.map((r) => r.id).sort())
  assert.deepEqual(given, [['always.md'], ['always.md', 'api.md'], ['always.md'], ['always.md', 'ui.md']])

  // The next turn continues the session: nothing delivered again.
  const turn2 = [...messages, ...result.responseMessages, { role: 'user', content: 'thanks' }]
  await generateText({ model, system: 'Agent.', messages: turn2, tools: { read_file: readTool(tree.workdir) } })
  const last = seen(inner).at(-1)
  assert.deepEqual(last.reminders, ['4:api.md', '9:ui.md'])

  // Compaction: the history is replaced by a summary; active rules come again.
  const compacted = [{ role: 'user', content: 'Summary: we edited @src/ui/App.tsx. Go on.' }]
  await generateText({ model, system: 'Agent.', messages: compacted, tools: { read_file: readTool(tree.workdir) } })
  assert.deepEqual(seen(inner).at(-1).reminders, ['2:ui.md'])
  mw.onCompacted()
  await generateText({ model, system: 'Agent.', messages: compacted, tools: { read_file: readTool(tree.workdir) } })
  assert.deepEqual(seen(inner).at(-1).reminders, ['2:ui.md'], 'delivered again after onCompacted, once')
})

test('streamText: the same rules reach the streamed calls', async (t) => {
  const { tree, manager } = sdkProject(t)
  const inner = scriptedModel(['src/ui/App.tsx'])
  const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager, workdir: tree.workdir }) })
  const result = streamText({ model, prompt: 'make it blue', tools: { read_file: readTool(tree.workdir) }, stopWhen: stepCountIs(4) })
  let text = ''
  for await (const delta of result.textStream) text += delta
  assert.equal(text, 'done')
  const calls = seen(inner, 'stream')
  assert.equal(calls.length, 2)
  assert.deepEqual(calls.map((c) => c.system), ['## Rules\n[always.md] Be brief.', '## Rules\n[always.md] Be brief.\n[ui.md] Hooks only.'])
})

test('streamText in reminder mode, and a rule file added between calls', async (t) => {
  const { tree, manager } = sdkProject(t)
  const inner = scriptedModel(['src/api/users.ts'])
  const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager, workdir: tree.workdir, mode: 'reminders', reloadIntervalMs: 0 }) })
  const first = streamText({ model, prompt: 'check the customer API', tools: { read_file: readTool(tree.workdir) }, stopWhen: stepCountIs(4) })
  await first.consumeStream()
  assert.deepEqual(seen(inner, 'stream').map((c) => c.reminders), [['2:db.md'], ['2:db.md', '5:api.md']])
  tree.project('new.md', 'Added while running.')
  const again = streamText({ model, prompt: 'hello', tools: { read_file: readTool(tree.workdir) } })
  await again.consumeStream()
  assert.match(seen(inner, 'stream').at(-1).system, /\[new\.md\] Added while running\./)
})

test('never throws into the SDK: a broken manager leaves the call untouched', async (t) => {
  const { tree } = sdkProject(t)
  const errors = []
  const broken = { discovered: true, generation: 1, reload: async () => { throw new Error('disk gone') } }
  const inner = scriptedModel([])
  const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager: broken, reloadIntervalMs: 0, onError: (e) => errors.push(e.message) }) })
  const r = await generateText({ model, system: 'S', prompt: 'hi' })
  assert.equal(r.text, 'done')
  assert.deepEqual(errors, ['disk gone'])
  assert.equal(seen(inner)[0].system, 'S')
  void tree
})

test('identical conversations give byte-identical prompts', async (t) => {
  const { tree, manager } = sdkProject(t)
  await manager.discoverRules()
  const once = async () => {
    const inner = scriptedModel(['src/api/users.ts', 'src/ui/App.tsx'])
    const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager, workdir: tree.workdir, maxLines: 20 }) })
    await generateText({ model, system: 'S', prompt: 'the customer list', tools: { read_file: readTool(tree.workdir) }, stopWhen: stepCountIs(5) })
    return JSON.stringify(inner.doGenerateCalls.map((c) => c.prompt))
  }
  const [a, b] = [await once(), await once()]
  assert.equal(Buffer.compare(Buffer.from(a), Buffer.from(b)), 0)
  assert.match(a, /Hooks only\./)
})

test('guardTools: an enforce: block rule refuses a write before it runs, the model reads the rule as the tool error; warn runs and adds the warning', async (t) => {
  const { tree } = sdkProject(t)
  tree.write(path.join(tree.workdir, '.wave/rules/gen.md'), '---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.')
  tree.write(path.join(tree.workdir, '.wave/rules/push.md'), '---\ncommands: ["git push --force*"]\nenforce: warn\n---\nAsk before a force push.')
  const { guardTools, ToolRefusedError } = require('wave-memory-rules/ai-sdk')
  const { RuleManager } = require('wave-memory-rules')
  const manager = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  const ran = []
  const writeFile = tool({
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path: file, content }) => {
      ran.push(file)
      fs.mkdirSync(path.dirname(path.join(tree.workdir, file)), { recursive: true })
      fs.writeFileSync(path.join(tree.workdir, file), content)
      return 'written'
    },
  })
  const bash = tool({ description: 'Run a command', inputSchema: z.object({ command: z.string() }), execute: async ({ command }) => (ran.push(command), 'ok') })
  const tools = guardTools({ writeFile, bash }, { manager })
  const steps = [
    { type: 'tool-call', toolCallId: 'c1', toolName: 'writeFile', input: JSON.stringify({ path: 'gen/api.ts', content: 'x' }) },
    { type: 'tool-call', toolCallId: 'c2', toolName: 'writeFile', input: JSON.stringify({ path: 'src/api/new.ts', content: 'x' }) },
    { type: 'tool-call', toolCallId: 'c3', toolName: 'bash', input: JSON.stringify({ command: 'git push --force origin' }) },
  ]
  let step = 0
  const inner = new MockLanguageModelV4({
    doGenerate: async () => {
      const part = steps[step++]
      return part
        ? { content: [part], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
        : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
    },
  })
  const result = await generateText({ model: inner, prompt: 'regenerate the API', tools, stopWhen: stepCountIs(6) })
  assert.equal(result.text, 'done')
  assert.deepEqual(ran, ['src/api/new.ts', 'git push --force origin'], 'the refused write never ran')
  assert.ok(!fs.existsSync(path.join(tree.workdir, 'gen/api.ts')))
  const last = JSON.stringify(inner.doGenerateCalls.at(-1).prompt)
  assert.ok(last.includes("Refused by the project's rules: writing gen/api.ts is not allowed.") && last.includes('Generated files are rebuilt'), 'the model read the refusal as the tool error')
  assert.ok(last.includes('Allowed, with a warning') && last.includes('Ask before a force push.'), 'the warning came with the command\'s result')
  const refused = result.steps.flatMap((s) => s.content).find((p) => p.type === 'tool-error')
  assert.ok(refused?.error instanceof ToolRefusedError, 'a ToolRefusedError')
  assert.deepEqual(refused.error.ruleIds, ['gen.md'])
})
