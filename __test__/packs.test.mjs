// Rule packs and the policy through the package's Node roads: the rule
// objects' `origin`, the manager's options, and the Vercel AI SDK
// middleware (the real `ai` package and its mock model) giving a pack's
// and the policy's rules to the model.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { tempTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { RuleManager } = require('..')
const { memoryRulesMiddleware } = require('wave-memory-rules/ai-sdk')

/** A project naming an npm pack (as installed in node_modules) and a folder pack, a policy directory, a project rule. */
function layered(t) {
  const tree = tempTree()
  t.after(tree.cleanup)
  const w = (rel, text) => tree.write(path.join(tree.workdir, rel), text)
  w('node_modules/@acme/rules/package.json', JSON.stringify({ name: '@acme/rules', version: '2.3.1', waveRules: { rules: 'rules' } }))
  w('node_modules/@acme/rules/rules/sql.md', '---\ntopics: [query]\n---\nPack: no SELECT *.\n')
  w('node_modules/@acme/rules/rules/style.md', 'Pack style.\n')
  w('team/review.md', 'Folder: two reviewers.\n')
  w('.wave/config.toml', 'packs = ["@acme/rules@^2", "./team"]\n')
  w('.wave/rules/style.md', 'Our style.\n')
  w('.wave/rules/secrets.md', 'Project: secrets are fine.\n')
  const policyDir = path.join(tree.root, 'policy')
  tree.write(path.join(policyDir, 'rules/secrets.md'), 'Policy: never commit secrets.\n')
  return { tree, policyDir }
}

test('rule objects say where a pack or policy rule came from; a plain rule keeps the agent SDK shape', async (t) => {
  const { tree, policyDir } = layered(t)
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, policyDir })
  await m.discoverRules()
  const by = Object.fromEntries(m.getRules().map((r) => [r.id, r]))
  assert.deepEqual(by['sql.md'].origin, { layer: 'pack', provenance: '@acme/rules@2.3.1:sql.md', pack: '@acme/rules@2.3.1', locked: false, overrides: [] })
  assert.equal(by['review.md'].origin.provenance, './team:review.md')
  assert.deepEqual(by['style.md'].origin, { layer: 'project', provenance: 'project:.wave/rules/style.md', locked: false, overrides: ['@acme/rules@2.3.1:style.md'] })
  assert.equal(by['style.md'].content, 'Our style.')
  assert.equal(by['secrets.md'].content, 'Policy: never commit secrets.')
  assert.equal(by['secrets.md'].origin.locked, true)
  assert.equal(by['secrets.md'].origin.layer, 'policy')
  assert.ok(m.getDiagnostics().some((d) => d.code === 'locked' && d.message.includes('project:.wave/rules/secrets.md is not used')))

  // Without packs, only the project's (and the policy's) rules.
  const bare = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, policyDir, packs: false })
  await bare.discoverRules()
  assert.deepEqual(bare.getRules().map((r) => r.id).sort(), ['secrets.md', 'style.md'])
  assert.equal(bare.getRules().find((r) => r.id === 'style.md').origin, undefined)
})

test('the AI SDK middleware gives the model the pack rules and the locked policy rule', async (t) => {
  const { tree, policyDir } = layered(t)
  const manager = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, policyDir })
  const inner = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
      warnings: [],
    }),
  })
  const model = wrapLanguageModel({ model: inner, middleware: memoryRulesMiddleware({ manager, workdir: tree.workdir }) })
  await generateText({ model, prompt: 'Write the query for the report' })
  const system = inner.doGenerateCalls[0].prompt.filter((p) => p.role === 'system').map((p) => p.content).join('\n')
  for (const said of ['[sql.md] Pack: no SELECT *.', '[review.md] Folder: two reviewers.', '[secrets.md] Policy: never commit secrets.', '[style.md] Our style.']) {
    assert.ok(system.includes(said), `${said} in\n${system}`)
  }
  for (const never of ['Pack style.', 'Project: secrets are fine.']) assert.ok(!system.includes(never), `${never} in\n${system}`)
})
