// Qwen Code, the real CLI (pinned devDependency @qwen-code/qwen-code), run
// headless (`qwen --yolo -p`) against the fake model server: OpenAI chat
// completions (`security.auth.selectedType: "openai"` in HOME's settings,
// OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL), with the hooks
// `wave-rules hook install --agent qwen` wrote in the project's
// .qwen/settings.json (Claude Code's hook format; the package in the
// project's node_modules, installed without --command). Assertions are on
// what reached the model.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { count } from './fake-model.mjs'
import { agentHarness, assertLogMatches, isolatedEnv, rules, SAID, qwenScript, waveRulesBinary, run, writeTree, installBin } from './agents.mjs'

const qwen = qwenScript()
const skip = qwen ? false : 'the @qwen-code/qwen-code devDependency is not installed'
const TIMEOUT = 120_000
const { GENERAL, TS, API } = SAID
const REFUSED = "Refused by the project's rules: writing gen/new.ts"
const GEN = 'Generated files are rebuilt by `npm run gen`.'

const h = agentHarness({ prefix: 'wave-qwen-', dump: 'qwen' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

/** A project with the hooks installed as a user does; `turn(prompt)` runs one headless turn. */
function project(name, files) {
  const work = path.join(h.root, name, 'work')
  const home = path.join(h.root, name, 'home')
  writeTree(work, files)
  writeTree(home, { '.qwen/settings.json': JSON.stringify({ security: { auth: { selectedType: 'openai' } } }) })
  const env = isolatedEnv(home, {
    OPENAI_API_KEY: 'dummy-key',
    OPENAI_BASE_URL: `${h.server.url}/v1`,
    OPENAI_MODEL: 'gpt-4.1',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    WAVE_RULES_STATE_DIR: path.join(h.root, name, 'state'),
  })
  installBin(work, bin)
  const installed = execFileSync(bin, ['hook', 'install', '--agent', 'qwen'], { cwd: work, env, encoding: 'utf8' })
  return {
    work,
    env,
    installed,
    async turn(prompt) {
      h.server.setWorkdir(work)
      const first = h.server.requests.length
      const r = await run(process.execPath, [qwen, '--yolo', '-p', prompt], { cwd: work, env, timeout: TIMEOUT })
      assert.ok(!r.timedOut, `qwen timed out\n${r.stderr.slice(-3000)}`)
      assert.equal(r.status, 0, r.stderr.slice(-3000))
      const main = h.server.requests.slice(first).filter((q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
      return { ...r, main }
    },
  }
}

test('Qwen Code: a path rule reaches the model once, after read_file of a matching file, and through its shell', { skip, timeout: 2 * TIMEOUT }, async () => {
  const p = project('paths', { ...rules('general', 'ts', 'api'), 'src/a.ts': 'export const a = 1\n', 'src/api/customers.ts': 'export const c = 1\n' })
  assert.match(p.installed, /installed the wave-rules hooks for qwen/)
  assert.match(p.installed, /safe to commit: it names no path of this machine/)
  const settings = JSON.parse(fs.readFileSync(path.join(p.work, '.qwen/settings.json'), 'utf8'))
  assert.equal(settings.hooks.PostToolUse[0].hooks[0].command, '"$QWEN_PROJECT_DIR"/node_modules/.bin/wave-rules hook --agent qwen PostToolUse')
  const t = await p.turn('fix the customer query READ:src/a.ts READ:src/a.ts CAT:src/api/customers.ts')
  assert.ok(t.main.length >= 4, `three tool calls and an answer, got ${t.main.length}\n${t.stderr.slice(-2000)}`)
  assert.equal(count(t.main[0].body, GENERAL), 1, 'SessionStart gave the always-on rule')
  assert.equal(count(t.main[0].body, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(t.main[1].body, TS), 1, 'the path rule arrived after read_file')
  assert.match(JSON.stringify(t.main[1].body.messages.at(-1)), /\[ts\.md\]/, 'in the tool result')
  assert.ok(t.main.some((q) => count(q.body, API) === 1), 'the path rule of a file read through run_shell_command arrived')
  const last = t.main.at(-1).body
  for (const text of [GENERAL, TS, API]) assert.equal(count(last, text), 1, `${text} once in the whole conversation`)
  const log = assertLogMatches({ state: path.join(h.root, 'paths', 'state'), work: p.work, body: last, agent: 'qwen', count })
  assert.ok(log.some((d) => d.event === 'tool-done'), 'the file tools are logged')
})

test('Qwen Code: an enforce: block rule refuses write_file and the model reads the rule as the reason', { skip, timeout: 2 * TIMEOUT }, async () => {
  const p = project('enforce', { '.wave/rules/gen.md': `---\npaths: gen/**\nenforce: block\n---\n${GEN}\n` })
  const t = await p.turn('regenerate WRITE:gen/new.ts')
  assert.ok(!fs.existsSync(path.join(p.work, 'gen/new.ts')), `the write was refused\n${t.stderr.slice(-2000)}`)
  assert.ok(t.main.length >= 2, `the call and an answer, got ${t.main.length}`)
  const last = t.main.at(-1).body
  assert.equal(count(last, REFUSED), 1, 'the refusal came back as the call\'s result')
  assert.ok(count(last, GEN) >= 1, 'with the rule\'s text')
})
