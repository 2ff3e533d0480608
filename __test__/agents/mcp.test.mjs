// `wave-rules mcp` inside the real agents (pinned devDependencies), headless
// against the fake model server: Claude Code with `--mcp-config` after
// `wave-rules mcp install --client claude`, and opencode with the `mcp`
// entry `wave-rules mcp install --client opencode` merged into its
// opencode.json. The fake model calls `rules_for_files`, then
// `memory_write`; the assertions are on what reached the model in the next
// requests and on the memory topic on disk.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { count, callDirective, texts } from './fake-model.mjs'
import { agentHarness, assertLogMatches, claudeEnv, installBin, claudeBinary, opencodeBinary, waveRulesBinary, run, isolatedEnv, writeTree, rules, SAID } from './agents.mjs'

const require = createRequire(import.meta.url)
const claude = claudeBinary()
const opencode = opencodeBinary()
const TIMEOUT = 120_000
const { GENERAL, TS } = SAID

const RULES = {
  ...rules('general', 'ts'),
  '.wave/rules/py.md': '---\npaths: "**/*.py"\n---\nType hints on every function.\n',
  'src/a.ts': 'export const a = 1\n',
}
const PY = '[py.md]'
const NOTE = 'Build with npm run build; the tests need it.'
const PROMPT = `edit src/a.ts ${callDirective('rules_for_files', { paths: ['src/a.ts'] })} ${callDirective('memory_write', { topic: 'build', content: NOTE })}`

const h = agentHarness({ prefix: 'wave-mcp-', dump: 'mcp' })
let bin
before(async () => {
  if (!claude && !opencode) return
  bin = waveRulesBinary()
  await h.start()
})

function project(name, extra = {}) {
  const work = path.join(h.root, name, 'work')
  const home = path.join(h.root, name, 'home')
  fs.mkdirSync(home, { recursive: true })
  writeTree(work, { ...RULES, ...extra })
  // The package installed in the project, as npm leaves it: `mcp install`
  // writes the portable entry (the project's node_modules/.bin/wave-rules
  // through the client's project variable, or relative to the project).
  installBin(work, bin)
  h.server.setWorkdir(work)
  return { work, home }
}

/** The memory topic file, where the package's MemoryStore puts it. */
function topicFile(work, home) {
  const { MemoryStore } = require('../..')
  return path.join(new MemoryStore({ workdir: work, homeDir: home }).projectDir, 'build.md')
}

/** With WAVE_E2E_RECORD=file, what the model received is appended there (for the notes). */
function record(agent, what) {
  if (process.env.WAVE_E2E_RECORD) fs.appendFileSync(process.env.WAVE_E2E_RECORD, JSON.stringify({ agent, ...what }) + '\n')
}

/** The text of every tool result in a request's messages. */
function toolResults(body) {
  const out = []
  for (const m of body.messages ?? []) {
    if (m.role === 'tool') out.push(...texts(m.content))
    if (Array.isArray(m.content)) for (const c of m.content) if (c.type === 'tool_result') out.push(...texts(c.content))
  }
  return out.join('\n')
}

test('Claude Code: installed with `mcp install --client claude`, the rules and the memory tool reach the model', { skip: claude ? false : 'no @anthropic-ai/claude-code', timeout: 2 * TIMEOUT }, async () => {
  const { work, home } = project('claude')
  // Claude Code defers MCP tools behind its ToolSearch tool by default (the
  // model searches, then calls); the scripted model calls them directly.
  const env = claudeEnv(home, h.server.url, { ENABLE_TOOL_SEARCH: 'false' })
  const installed = execFileSync(bin, ['mcp', 'install', '--client', 'claude'], { cwd: work, env, encoding: 'utf8' })
  assert.match(installed, /installed the wave-rules MCP server for claude/)
  assert.equal(JSON.parse(fs.readFileSync(path.join(work, '.mcp.json'), 'utf8')).mcpServers['wave-rules'].command, '${CLAUDE_PROJECT_DIR:-.}/node_modules/.bin/wave-rules')
  const first = h.server.requests.length
  const r = await run(
    claude,
    ['-p', PROMPT, '--mcp-config', path.join(work, '.mcp.json'), '--allowedTools', 'mcp__wave-rules', '--model', 'claude-sonnet-4-5', '--output-format', 'json'],
    { cwd: work, env, timeout: TIMEOUT },
  )
  assert.ok(!r.timedOut, `claude timed out\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/messages') && (q.body.tools ?? []).length > 0)
  assert.ok(main.length >= 3, `two tool calls and an answer, got ${main.length}\n${r.stdout}\n${r.stderr}`)
  const tools = main[0].body.tools.map((t) => t.name)
  for (const t of ['rules_for_files', 'read_rule', 'list_rules', 'memory_read', 'memory_write']) assert.ok(tools.includes(`mcp__wave-rules__${t}`), `${t} in ${tools}`)
  // The server's instructions reach the model (Claude Code puts them in the first turn).
  assert.ok(count(main[0].body, 'call rules_for_files with its paths') >= 1, 'the instructions reached the model')
  // The request after rules_for_files carries the rules as the tool's result.
  const afterRules = toolResults(main[1].body)
  assert.ok(afterRules.includes(TS), `the path rule reached the model: ${afterRules}`)
  assert.ok(afterRules.includes(GENERAL), 'the always-on rule came with the first call')
  assert.ok(!afterRules.includes(PY), 'no rule for other files')
  const afterMemory = toolResults(main[2].body)
  const instructions = texts(main[0].body.messages).find((t) => t.includes('call rules_for_files with its paths'))
  record('claude', { tools: tools.filter((t) => t.startsWith('mcp__')), instructions, afterRules, afterMemory })
  assert.match(afterMemory, /Appended to project memory topic 'build'/)
  assert.match(fs.readFileSync(topicFile(work, home), 'utf8'), new RegExp(NOTE.replace(/[.;]/g, '\\$&')))
  // The delivery log says what the MCP server gave the model (rules_for_files: a request).
  const log = assertLogMatches({ state: path.join(home, '.local/state/wave-rules'), work, body: main.at(-1).body, agent: 'mcp', count })
  assert.deepEqual(log.map((d) => [d.event, d.rules.map((r) => r.id).sort()]), [['request', ['general.md', 'ts.md']]])
})

test('opencode: the `mcp` entry from `mcp install --client opencode`, the rules and the memory tool reach the model', { skip: opencode ? false : 'no opencode-ai', timeout: 2 * TIMEOUT }, async () => {
  const { work, home } = project('opencode', {
    'opencode.json': JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        provider: {
          fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${h.server.url}/v1`, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake model' } } },
        },
        model: 'fake/fake-model',
        small_model: 'fake/fake-model',
      },
      null,
      2,
    ),
  })
  const env = isolatedEnv(home, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' })
  execFileSync(bin, ['mcp', 'install', '--client', 'opencode'], { cwd: work, env, encoding: 'utf8' })
  const config = JSON.parse(fs.readFileSync(path.join(work, 'opencode.json'), 'utf8'))
  assert.equal(config.mcp['wave-rules'].type, 'local')
  assert.deepEqual(config.mcp['wave-rules'].command, ['node_modules/.bin/wave-rules', 'mcp'], 'relative: opencode starts it in the project')
  assert.equal(config.model, 'fake/fake-model', 'the user settings are kept')
  const first = h.server.requests.length
  const r = await run(opencode, ['run', PROMPT, '--model', 'fake/fake-model'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `opencode timed out\n${r.stderr.slice(-2000)}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
  assert.ok(main.length >= 3, `two tool calls and an answer, got ${main.length}\n${r.stdout}\n${r.stderr.slice(-2000)}`)
  const tools = main[0].body.tools.map((t) => t.function?.name)
  assert.ok(tools.some((n) => n.endsWith('rules_for_files')) && tools.some((n) => n.endsWith('memory_write')), `${tools}`)
  const afterRules = toolResults(main[1].body)
  assert.ok(afterRules.includes(TS), `the path rule reached the model: ${afterRules}`)
  assert.ok(afterRules.includes(GENERAL))
  assert.match(toolResults(main[2].body), /Appended to project memory topic 'build'/)
  const instructions = texts([main[0].body.messages]).find((t) => t.includes('call rules_for_files with its paths')) ?? null
  record('opencode', { tools: tools.filter((n) => n.startsWith('wave-rules')), instructions, afterRules, afterMemory: toolResults(main[2].body) })
  assert.ok(fs.existsSync(topicFile(work, home)), 'the memory topic is on disk')
})
