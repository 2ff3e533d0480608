// GitHub Copilot CLI, the real binary (pinned devDependency @github/copilot),
// run headless (`copilot -p`) offline (COPILOT_OFFLINE=true) against the
// fake model server (COPILOT_PROVIDER_BASE_URL, chat completions), with the
// native hooks `wave-rules hook install --agent copilot` wrote in
// .github/hooks/wave-rules.json (the package in the project's node_modules,
// installed without --command) and the folder trusted in
// ~/.copilot/config.json (its trust step). Copilot gives a native hook's
// top-level additionalContext to the model; assertions are on what reached it.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { count, callDirective, isCompactionRequest, SUMMARY } from './fake-model.mjs'
import { agentHarness, assertLogMatches, rules, SAID, copilotBinary, waveRulesBinary, run, isolatedEnv, writeTree, installBin, copilotProject } from './agents.mjs'

const copilot = copilotBinary()
const skip = copilot ? false : 'the @github/copilot devDependency is not installed for this platform'
const TIMEOUT = 120_000

const RULES = {
  ...rules('general', 'db', 'ts', 'api', 'gen', 'review'),
  'src/a.ts': 'export const a = 1\n',
  'src/api/customers.ts': 'export const c = 1\n',
  // Copilot's create needs the directory.
  'gen/README': 'generated files\n',
}
const { GENERAL, DB, TS, API, GEN, STOP } = SAID

const h = agentHarness({ prefix: 'wave-copilot-', dump: 'copilot' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

test('Copilot CLI: rules reach the model through its native hooks, path rules after view, bash and create, once per session', { skip, timeout: 2 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  writeTree(work, RULES)
  copilotProject(work, home)
  const env = isolatedEnv(home, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${h.server.url}/v1`,
    COPILOT_MODEL: 'gpt-4.1',
    WAVE_RULES_STATE_DIR: path.join(h.root, 'state'),
  })
  // As a user installs it: the package in the project, no --command; Copilot CLI runs what was written.
  installBin(work, bin)
  const installed = execFileSync(bin, ['hook', 'install', '--agent', 'copilot'], { cwd: work, env, encoding: 'utf8' })
  assert.match(installed, /installed the wave-rules hooks for copilot/)
  assert.match(installed, /safe to commit: it names no path of this machine/)
  assert.match(fs.readFileSync(path.join(work, '.github/hooks/wave-rules.json'), 'utf8'), /"node_modules\/\.bin\/wave-rules hook --agent copilot SessionStart"/)
  h.server.setWorkdir(work)
  const r = await run(copilot, ['-p', 'fix the customer query READ:src/a.ts READ:src/a.ts CAT:src/api/customers.ts WRITE:gen/new.ts', '--allow-all-tools'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `copilot timed out\n${r.stderr}`)
  const main = h.server.requests.filter((q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
  assert.ok(fs.existsSync(path.join(work, 'gen/new.ts')), `the create was not done\n${r.stdout}\n${r.stderr}`)
  assert.ok(main.length >= 5, `four tool calls and an answer, got ${main.length}\n${r.stdout}\n${r.stderr}`)
  const first = main[0].body
  assert.equal(count(first, GENERAL), 1, 'sessionStart gave the always-on rule')
  assert.equal(count(first, DB), 1, 'the topic rule reached the first request')
  assert.equal(count(first, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(main[1].body, TS), 1, 'the path rule arrived after view')
  assert.ok(main.some((q) => count(q.body, API) === 1), 'the path rule of a file read through bash arrived')
  assert.ok(main.some((q) => count(q.body, GEN) === 1), 'the rule of the file made with create arrived')
  const last = main.at(-1).body
  for (const text of [GENERAL, DB, TS, API, GEN]) assert.equal(count(last, text), 1, `${text} once in the whole conversation`)
  // The delivery log says what reached the model, event by event.
  const log = assertLogMatches({ state: path.join(h.root, 'state'), work, body: last, agent: 'copilot', count })
  assert.ok(log.some((d) => d.event === 'tool-done'), 'the file tools are logged')
  // agentStop: the every-turn rule blocks the stop once.
  assert.equal(main.filter((q) => JSON.stringify(q.body.messages.at(-1)).includes(STOP)).length, 1, 'one Stop reminder, no loop')
})

// Compaction: Copilot CLI compacts in the background once the reported usage
// nears COPILOT_PROVIDER_MAX_PROMPT_TOKENS; its preCompact hook fires as the
// compaction starts (its output reaches no model), and what the conversation
// gets after that stays in it. Our preCompact records the compaction and the
// next postToolUse brings every active rule again, once.
test('Copilot CLI: after a background compaction every active rule reaches the model again, once', { skip, timeout: 2 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'compact')
  const work = path.join(root, 'work')
  const home = path.join(root, 'home')
  writeTree(work, { ...rules('general', 'db', 'ts'), 'src/a.ts': 'export const a = 1\n', 'src/b.ts': 'export const b = 1\n' })
  copilotProject(work, home)
  const env = isolatedEnv(home, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${h.server.url}/v1`,
    COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '200000',
    COPILOT_MODEL: 'gpt-4.1',
    WAVE_RULES_STATE_DIR: path.join(root, 'state'),
  })
  installBin(work, bin)
  execFileSync(bin, ['hook', 'install', '--agent', 'copilot'], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const before = h.server.requests.length
  let full = false
  h.server.reportFullContext((body) => !full && count(body, TS) === 1 && (full = true), 150_000)
  const r = await run(copilot, ['-p', 'fix the customer query READ:src/a.ts READ:src/b.ts READ:src/b.ts READ:src/b.ts', '--allow-all-tools'], { cwd: work, env, timeout: TIMEOUT })
  h.server.reportFullContext(() => false, 0)
  assert.ok(!r.timedOut, `copilot timed out\n${r.stderr}`)
  const all = h.server.requests.slice(before).filter((q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
  const compactions = all.filter((q) => isCompactionRequest(q.body))
  assert.equal(compactions.length, 1, `copilot compacted once\n${r.stdout}\n${r.stderr}`)
  assert.equal(count(compactions[0].body, TS), 1, 'the path rule was given before the compaction')
  const after = all.filter((q) => !isCompactionRequest(q.body) && count(q.body, SUMMARY) === 1)
  assert.ok(after.length >= 1, `requests on the compacted conversation\n${r.stdout}\n${r.stderr}`)
  for (const text of [GENERAL, DB, TS]) {
    assert.equal(count(after.at(-1).body, text), 1, `${text} once in the compacted conversation`)
  }
})

test('Copilot CLI: its skill tool activates a skill: its skills: rule reaches the model once, and the memory reminder at agentStop', { skip, timeout: 2 * TIMEOUT }, async () => {
  const REPLICA = 'Queries go to the read replica.'
  const MEMORY = "The skill 'db-work' you are using keeps memory."
  const work = path.join(h.root, 'skills', 'work')
  const home = path.join(h.root, 'skills', 'home')
  writeTree(work, {
    ...rules('general'),
    '.wave/rules/replica.md': `---\nskills: [db-work]\n---\n${REPLICA}\n`,
    '.github/skills/db-work/SKILL.md': '---\nname: db-work\ndescription: Database work on the customer tables\n---\nFirst recall with memory_read (topic db); save findings with memory_write.\n',
  })
  copilotProject(work, home)
  const env = isolatedEnv(home, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${h.server.url}/v1`,
    COPILOT_MODEL: 'gpt-4.1',
    WAVE_RULES_STATE_DIR: path.join(h.root, 'skills', 'state'),
  })
  execFileSync(bin, ['hook', 'install', '--agent', 'copilot', '--command', bin], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const r = await run(copilot, ['-p', `fix the slow query ${callDirective('skill', { skill: 'db-work' })}`, '--allow-all-tools'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `copilot timed out\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
  assert.ok((main[0]?.body.tools ?? []).some((t) => t.function?.name === 'skill'), `Copilot CLI offers its skill tool\n${r.stderr}`)
  assert.equal(count(main[0].body, REPLICA), 0, 'no skill rule before the skill is active')
  assert.ok(main.length >= 2, `the skill call and an answer, got ${main.length}\n${r.stdout}\n${r.stderr}`)
  assert.equal(count(main[1].body, REPLICA), 1, 'the skills: rule arrived after the skill tool')
  assert.equal(count(main.at(-1).body, REPLICA), 1, 'once in the whole conversation')
  assert.equal(main.filter((q) => JSON.stringify(q.body.messages.at(-1)).includes(MEMORY)).length, 1, 'the memory reminder reached the model once at agentStop')
})
