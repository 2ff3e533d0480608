// Other agents' rule files through the Node package: sources by name, rules
// on request (the offer list and the read_rule tool), content regexes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { tempTree } from './helpers.mjs'

import { generateText, wrapLanguageModel, tool, jsonSchema, stepCountIs } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

const require = createRequire(import.meta.url)
const { RuleManager, readRuleToolDefinition } = require('..')
const { memoryRulesMiddleware } = require('wave-memory-rules/ai-sdk')

function project(tree) {
  const w = (rel, text) => tree.write(path.join(tree.workdir, rel), text)
  tree.project('style.md', 'Wave style.')
  w('.cursor/rules/ui.mdc', '---\nglobs: src/**/*.tsx\n---\nCursor UI.')
  w('.cursor/rules/api.mdc', '---\ndescription: How to write API handlers\n---\nReturn typed errors.')
  w('.cursor/rules/release.mdc', '---\nalwaysApply: false\n---\nRelease steps.')
  w('.continue/rules/effects.md', '---\nglobs: "**/*.tsx"\nregex: "useEffect"\n---\nClean up effects.')
  w('AGENTS.md', 'Agents root.')
}

test('sources by name; the default stays what the agent SDK reads', async () => {
  const tree = tempTree()
  try {
    project(tree)
    const byDefault = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
    await byDefault.discoverRules()
    assert.deepEqual(byDefault.getRules().map((r) => r.id), ['style.md'])
    const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['cursor', 'wave'] })
    await m.discoverRules()
    assert.deepEqual(m.getRules().map((r) => r.id), ['cursor:api.mdc', 'cursor:release.mdc', 'cursor:ui.mdc', 'style.md'])
    const api = m.getRules()[0]
    assert.equal(api.format, 'cursor')
    assert.equal(api.metadata.activation, 'on-request')
    assert.equal(m.getRules()[3].format, undefined, 'SDK rules keep the SDK shape')
    const all = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['all'] })
    await all.discoverRules()
    assert.equal(all.getRules().length, 6)
    assert.throws(() => new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['vim'] }), /unknown source 'vim'/)
  } finally {
    tree.cleanup()
  }
})

test('on-request rules: offered by description, read with read_rule; manual rules by @mention', async () => {
  const tree = tempTree()
  try {
    project(tree)
    const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['cursor'] })
    await m.discoverRules()
    assert.deepEqual(m.getActiveRules(['src/a.tsx']).map((r) => r.id), ['cursor:ui.mdc'])
    assert.deepEqual(m.getAvailableRules(['src/a.tsx']).map((r) => r.id), ['cursor:api.mdc'])
    assert.equal(
      m.getAvailableRulesText([]),
      '## Rules available on request\nRead a rule with the read_rule tool when its description is relevant to the task:\n- cursor:api.mdc: How to write API handlers\n',
    )
    assert.deepEqual(m.getActiveRules([], 'ship it per @release').map((r) => r.id), ['cursor:release.mdc'])
    assert.deepEqual(m.getAvailableRules([], 'use @api').map((r) => r.id), [])
    const def = readRuleToolDefinition()
    assert.equal(def.name, 'read_rule')
    assert.deepEqual(def.parameters.required, ['id'])
    assert.equal(m.runReadRuleTool({ id: 'cursor:api.mdc' }), '[cursor:api.mdc]\nReturn typed errors.')
    // Never throws: bad input is an error message for the model.
    for (const bad of [undefined, null, 42, { id: 7 }, {}, { id: 'nope' }, [1, 2]]) {
      const out = m.runReadRuleTool(bad)
      assert.match(out, /^Error: /, String(bad))
    }
    assert.match(m.runReadRuleTool({ id: 'nope' }), /available on request are: cursor:api.mdc/)
  } finally {
    tree.cleanup()
  }
})

test('regex rules match file content when the caller gives it', async () => {
  const tree = tempTree()
  try {
    project(tree)
    const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['continue'] })
    await m.discoverRules()
    const ids = (rules) => rules.map((r) => r.id)
    assert.deepEqual(ids(m.getActiveRules(['src/a.tsx'], '', { contents: { 'src/a.tsx': 'useEffect(() => {})' } })), ['continue:effects.md'])
    assert.deepEqual(ids(m.getActiveRules(['src/a.tsx'], '', { contents: new Map([['src/a.tsx', 'const x = 1']]) })), [])
    // Without contents, its globs alone decide.
    assert.deepEqual(ids(m.getActiveRules(['src/a.tsx'])), ['continue:effects.md'])
  } finally {
    tree.cleanup()
  }
})

test('the AI SDK middleware offers on-request rules; the model reads one with read_rule', async () => {
  const tree = tempTree()
  try {
    project(tree)
    const middleware = memoryRulesMiddleware({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['cursor', 'wave'] })
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
    let step = 0
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step++
        return step === 1
          ? { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_rule', input: JSON.stringify({ id: 'cursor:api.mdc' }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
          : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
      },
    })
    const { definition, run } = middleware.readRuleTool
    const readRule = tool({ description: definition.description, inputSchema: jsonSchema(definition.parameters), execute: async (input) => run(input) })
    await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Add an endpoint', tools: { read_rule: readRule }, stopWhen: stepCountIs(3) })
    const calls = model.doGenerateCalls
    assert.equal(calls.length, 2)
    const system = calls[0].prompt.find((m) => m.role === 'system').content
    assert.ok(system.includes('## Rules\n[style.md] Wave style.'), system)
    assert.ok(system.endsWith('## Rules available on request\nRead a rule with the read_rule tool when its description is relevant to the task:\n- cursor:api.mdc: How to write API handlers'), system)
    const result = JSON.stringify(calls[1].prompt.filter((m) => m.role === 'tool'))
    assert.ok(result.includes('[cursor:api.mdc]\\nReturn typed errors.'), result)
    assert.match(run('not an object'), /^Error: /)
    assert.match(run(undefined), /^Error: /)
  } finally {
    tree.cleanup()
  }
})

test('a mentioned manual rule reaches the model through the middleware', async () => {
  const tree = tempTree()
  try {
    project(tree)
    const middleware = memoryRulesMiddleware({ workdir: tree.workdir, homeDir: tree.homeDir, sources: ['cursor'] })
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
    const model = new MockLanguageModelV4({ doGenerate: async () => ({ content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }) })
    await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Ship it, following @release' })
    const system = model.doGenerateCalls[0].prompt.find((m) => m.role === 'system').content
    assert.ok(system.includes('[cursor:release.mdc] Release steps.'), system)
  } finally {
    tree.cleanup()
  }
})

test('format names are typed once, and that type is the engine list', () => {
  const { sourceNames } = require('..')
  const names = sourceNames()
  assert.ok(names.includes('wave') && names.includes('agents-md'), names.join(', '))
  const root = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
  const dts = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8')
  const source = /export interface RuleSource \{[^}]*?\n\s*format\?: ([^\n]+)\n/.exec(dts)
  assert.ok(source, 'RuleSource.format in index.d.ts')
  const typed = source[1].split('|').map((s) => s.trim().replace(/^'|'$/g, ''))
  assert.deepEqual(typed, names, 'the TypeScript union of RuleSource.format equals sourceNames()')
  // Every other place names the type; no second list to drift.
  for (const file of ['index.d.ts', ...fs.readdirSync(path.join(root, 'dist')).filter((f) => f.endsWith('.d.ts')).map((f) => `dist/${f}`)]) {
    const lists = fs.readFileSync(path.join(root, file), 'utf8').split('\n')
      .filter((line) => !/^\s*(\*|\/\*\*|\/\/)/.test(line))
      .filter((line) => names.filter((n) => line.includes(`'${n}'`)).length >= 3)
    assert.equal(lists.length, file === 'index.d.ts' ? 1 : 0, `${file} spells the format names out:\n${lists.join('\n')}`)
  }
})
