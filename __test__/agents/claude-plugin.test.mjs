// The Claude Code plugin (claude-plugin/: plugin.json with the MCP server,
// hooks/hooks.json, the bin/wave-rules launcher, paths through
// ${CLAUDE_PLUGIN_ROOT}), loaded by the real Claude Code with --plugin-dir,
// headless against the fake model server, in a project where the package is
// installed (node_modules/.bin/wave-rules, here the built binary). What the
// plugin's hooks and server gave reached the model, recorded by the server.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { count } from './fake-model.mjs'
import { agentHarness, claudeEnv, installBin, claudeBinary, waveRulesBinary, run, isolatedEnv, writeTree, repo, rules, SAID } from './agents.mjs'

const claude = claudeBinary()
const skip = claude ? false : 'the @anthropic-ai/claude-code devDependency is not installed'
const TIMEOUT = 90_000
const { GENERAL, TS } = SAID

const h = agentHarness({ prefix: 'wave-claude-plugin-', dump: 'claude-plugin' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

test('the plugin manifest, hooks and marketplace name no path of one machine', () => {
  const plugin = JSON.parse(fs.readFileSync(path.join(repo, 'claude-plugin/.claude-plugin/plugin.json'), 'utf8'))
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  assert.equal(plugin.version, pkg.version)
  assert.equal(plugin.mcpServers['wave-rules'].command, '${CLAUDE_PLUGIN_ROOT}/bin/wave-rules')
  const hooks = JSON.parse(fs.readFileSync(path.join(repo, 'claude-plugin/hooks/hooks.json'), 'utf8')).hooks
  assert.deepEqual(Object.keys(hooks).sort(), ['PostToolUse', 'SessionStart', 'Stop', 'UserPromptSubmit'])
  for (const [event, groups] of Object.entries(hooks)) {
    for (const h of groups.flatMap((g) => g.hooks)) assert.equal(h.command, `"\${CLAUDE_PLUGIN_ROOT}"/bin/wave-rules hook ${event}`)
  }
  const launcher = fs.readFileSync(path.join(repo, 'claude-plugin/bin/wave-rules'), 'utf8')
  assert.ok(launcher.includes(`wave-memory-rules@${pkg.version}`), 'the launcher falls back to this version')
  assert.ok(fs.statSync(path.join(repo, 'claude-plugin/bin/wave-rules')).mode & 0o111, 'the launcher is executable')
  const market = JSON.parse(fs.readFileSync(path.join(repo, '.claude-plugin/marketplace.json'), 'utf8'))
  assert.deepEqual(market.plugins.map((p) => [p.name, p.source]), [['wave-memory-rules', './claude-plugin']])
  const ext = JSON.parse(fs.readFileSync(path.join(repo, 'gemini-extension/gemini-extension.json'), 'utf8'))
  assert.equal(ext.version, pkg.version)
  assert.ok(fs.existsSync(path.join(repo, 'gemini-extension', ext.contextFileName)))
  assert.ok(ext.mcpServers['wave-rules'].command.startsWith('${extensionPath}'))
})

test('Claude Code loads the plugin: its hooks and its MCP server reach the model', { skip, timeout: 2 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  fs.mkdirSync(home, { recursive: true })
  writeTree(work, {
    ...rules('general', 'ts'),
    'src/a.ts': 'export const a = 1\n',
  })
  // The package installed in the project, as npm leaves it.
  installBin(work, bin)
  const env = claudeEnv(home, h.server.url, { ENABLE_TOOL_SEARCH: 'false' })
  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const r = await run(
    claude,
    ['-p', 'look at READ:src/a.ts', '--plugin-dir', path.join(repo, 'claude-plugin'), '--model', 'claude-sonnet-4-5', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
    { cwd: work, env, timeout: TIMEOUT },
  )
  assert.ok(!r.timedOut, `claude timed out\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/messages') && (q.body.tools ?? []).length > 0)
  assert.ok(main.length >= 2, `a tool call and an answer, got ${main.length}\n${r.stdout}\n${r.stderr}`)
  // SessionStart (the plugin's hook) gave the always-on rule before any file.
  assert.equal(count(main[0].body, GENERAL), 1, 'the always-on rule from the plugin\'s SessionStart hook')
  assert.equal(count(main[0].body, TS), 0)
  // PostToolUse (the plugin's hook) gave the path rule after the Read.
  assert.equal(count(main[1].body, TS), 1, 'the path rule from the plugin\'s PostToolUse hook')
  // The plugin's MCP server is connected: its tools are offered to the model.
  const tools = main[0].body.tools.map((t) => t.name)
  assert.ok(tools.some((t) => t.endsWith('rules_for_files') && t.includes('wave-rules')), `the plugin's MCP tools in ${tools}`)
})

test('Claude Code validates the plugin and installs it from the package\'s marketplace', { skip, timeout: TIMEOUT }, () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-claude-market-'))
  try {
    const env = isolatedEnv(home, { DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1' })
    const claudeCli = (...args) => {
      const r = spawnSync(claude, ['plugin', ...args], { cwd: home, env, encoding: 'utf8', timeout: 60_000 })
      assert.equal(r.status, 0, `claude plugin ${args.join(' ')}\n${r.stdout}\n${r.stderr}`)
      return r.stdout + r.stderr
    }
    assert.match(claudeCli('validate', path.join(repo, 'claude-plugin')), /Validation passed/)
    assert.match(claudeCli('marketplace', 'add', repo), /Successfully added marketplace: wave-memory-rules/)
    assert.match(claudeCli('install', 'wave-memory-rules@wave-memory-rules'), /Successfully installed plugin: wave-memory-rules@wave-memory-rules/)
    const installed = JSON.parse(fs.readFileSync(path.join(home, '.claude/plugins/installed_plugins.json'), 'utf8'))
    assert.ok(JSON.stringify(installed).includes('wave-memory-rules@wave-memory-rules'), JSON.stringify(installed))
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
  }
})
