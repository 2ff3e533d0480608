// Gemini CLI, the real CLI (pinned devDependency @google/gemini-cli), run
// headless (`gemini -p`) against the fake model server
// (GOOGLE_GEMINI_BASE_URL, `security.auth.selectedType: "gemini-api-key"`,
// GEMINI_CLI_TRUST_WORKSPACE=true as the trust step), with the hooks `wave-rules
// hook install --agent gemini` wrote in the project's .gemini/settings.json
// (the package in the project's node_modules, installed without --command).
// Gemini marks MCP tool results as untrusted; hook output arrives as trusted
// `<hook_context>`, so the rules go through the hooks. Assertions are on
// what reached the model.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { count, callDirective, isCompactionRequest, SUMMARY } from './fake-model.mjs'
import { agentHarness, assertLogMatches, geminiEnv, rules, SAID, geminiScript, waveRulesBinary, run, writeTree, installBin } from './agents.mjs'

const gemini = geminiScript()
const skip = gemini ? false : 'the @google/gemini-cli devDependency is not installed'
const TIMEOUT = 120_000

const RULES = {
  ...rules('general', 'db', 'ts', 'api', 'gen'),
  'src/a.ts': 'export const a = 1\n',
  'src/api/customers.ts': 'export const c = 1\n',
}
const { GENERAL, DB, TS, API, GEN } = SAID

const h = agentHarness({ prefix: 'wave-gemini-', dump: 'gemini' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

test('Gemini CLI: rules reach the model as hook context, path rules after its file tools and its shell, once per session', { skip, timeout: 2 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  writeTree(work, RULES)
  const env = geminiEnv(home, h.server.url, { WAVE_RULES_STATE_DIR: path.join(h.root, 'state') })
  // As a user installs it: the package in the project, no --command; Gemini CLI runs what was written.
  installBin(work, bin)
  const installed = execFileSync(bin, ['hook', 'install', '--agent', 'gemini'], { cwd: work, env, encoding: 'utf8' })
  assert.match(installed, /installed the wave-rules hooks for gemini/)
  assert.match(installed, /safe to commit: it names no path of this machine/)
  assert.match(fs.readFileSync(path.join(work, '.gemini/settings.json'), 'utf8'), /\$GEMINI_PROJECT_DIR\/node_modules\/\.bin\/wave-rules hook --agent gemini/)
  h.server.setWorkdir(work)
  const r = await run(process.execPath, [gemini, '-m', 'gemini-2.5-pro', '--yolo', '-p',
    'fix the customer query READ:src/a.ts READ:src/a.ts CAT:src/api/customers.ts WRITE:gen/new.ts'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `gemini timed out\n${r.stderr}`)
  assert.doesNotMatch(r.stdout + r.stderr, /Hook execution error|failed for event/, 'no hook failed')
  const main = h.server.requests.filter((q) => /generateContent/i.test(q.path) && (q.body.tools ?? []).length > 0)
  assert.ok(fs.existsSync(path.join(work, 'gen/new.ts')), `the write was not done\n${r.stdout}\n${r.stderr}`)
  assert.ok(main.length >= 5, `four tool calls and an answer, got ${main.length}\n${r.stderr}`)
  const first = main[0].body
  assert.equal(count(first, GENERAL), 1, 'SessionStart gave the always-on rule')
  assert.equal(count(first, DB), 1, 'the topic rule reached the first request')
  assert.equal(count(first, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(main[1].body, TS), 1, 'the path rule arrived after read_file')
  assert.match(JSON.stringify(main[1].body.contents.at(-1)), /<hook_context>[^<]*\[ts\.md\]/, 'as trusted hook context in the tool result')
  assert.ok(main.some((q) => count(q.body, API) === 1), 'the path rule of a file read through run_shell_command arrived')
  assert.ok(main.some((q) => count(q.body, GEN) === 1), 'the rule of the file written with write_file arrived')
  const last = main.at(-1).body
  for (const text of [GENERAL, TS, API, GEN]) assert.equal(count(last, text), 1, `${text} once in the whole conversation`)
  // The delivery log says what reached the model, event by event.
  const log = assertLogMatches({ state: path.join(h.root, 'state'), work, body: last, agent: 'gemini', count })
  assert.ok(log.some((d) => d.event === 'tool-done'), 'the file tools are logged')
})

// Compression: Gemini CLI compresses when the last prompt passed its
// threshold (half of gemini-2.5-pro's 1,048,576 tokens by default), before
// the next model turn, and only history before the latest user message. In
// `-p` that is the turn its next-speaker check starts ("Please continue."):
// the fake model answers once, reports a full context, and says the model
// speaks next. Its PreCompress fires before every turn, compressing or not,
// so the compression shows as a smaller prompt in the transcript at the next
// hook: the AfterTool of the read the summary asked for brings every active
// rule again, once.
test('Gemini CLI: after a compression every active rule reaches the model again, once', { skip, timeout: 2 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'compact')
  const work = path.join(root, 'work')
  const home = path.join(root, 'home')
  writeTree(work, { ...rules('general', 'db', 'ts'), 'src/a.ts': 'export const a = 1\n', 'src/b.ts': 'export const b = 1\n' })
  const env = geminiEnv(home, h.server.url, { WAVE_RULES_STATE_DIR: path.join(root, 'state') })
  writeTree(home, { '.gemini/settings.json': JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, model: { skipNextSpeakerCheck: false } }) })
  installBin(work, bin)
  execFileSync(bin, ['hook', 'install', '--agent', 'gemini'], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const before = h.server.requests.length
  let full = false
  h.server.reportFullContext((body) => !full && count(body, TS) === 1 && (full = true), 600_000)
  h.server.continueAfterAnswer(1)
  h.server.setSummary(`${SUMMARY} Next: READ:src/b.ts`)
  const r = await run(process.execPath, [gemini, '-m', 'gemini-2.5-pro', '--yolo', '-p', 'fix the customer query READ:src/a.ts'], { cwd: work, env, timeout: TIMEOUT })
  h.server.reportFullContext(() => false, 0)
  h.server.continueAfterAnswer(0)
  h.server.setSummary()
  assert.ok(!r.timedOut, `gemini timed out\n${r.stderr}`)
  assert.doesNotMatch(r.stdout + r.stderr, /Hook execution error|failed for event/, 'no hook failed')
  const all = h.server.requests.slice(before).filter((q) => /generateContent/i.test(q.path))
  assert.ok(all.some((q) => isCompactionRequest(q.body)), `gemini compressed\n${r.stderr}`)
  const main = all.filter((q) => (q.body.tools ?? []).length > 0)
  const after = main.filter((q) => count(q.body, SUMMARY) >= 1)
  assert.ok(after.length >= 2, `the turn went on after the compression, with a read\n${r.stderr}`)
  assert.equal(count(after[0].body, TS), 0, 'the compression took the rules (no hook runs between it and the next request)')
  for (const text of [GENERAL, DB, TS]) {
    assert.equal(count(after.at(-1).body, text), 1, `${text} once in the compressed conversation`)
  }
})

test('Gemini CLI: activate_skill activates a skill: its skills: rule reaches the model once, and the memory reminder at AfterAgent', { skip, timeout: 2 * TIMEOUT }, async () => {
  const REPLICA = 'Queries go to the read replica.'
  const MEMORY = "The skill 'db-work' you are using keeps memory."
  const work = path.join(h.root, 'skills', 'work')
  const home = path.join(h.root, 'skills', 'home')
  writeTree(work, {
    ...rules('general'),
    '.wave/rules/replica.md': `---\nskills: [db-work]\n---\n${REPLICA}\n`,
    '.gemini/skills/db-work/SKILL.md': '---\nname: db-work\ndescription: Database work on the customer tables\n---\nFirst recall with memory_read (topic db); save findings with memory_write.\n',
  })
  const env = geminiEnv(home, h.server.url, { WAVE_RULES_STATE_DIR: path.join(h.root, 'skills', 'state') })
  execFileSync(bin, ['hook', 'install', '--agent', 'gemini', '--command', bin], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const r = await run(process.execPath, [gemini, '-m', 'gemini-2.5-pro', '--yolo', '-p',
    `fix the slow query ${callDirective('activate_skill', { name: 'db-work' })}`], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `gemini timed out\n${r.stderr}`)
  assert.doesNotMatch(r.stdout + r.stderr, /Hook execution error|failed for event/, 'no hook failed')
  const main = h.server.requests.slice(first).filter((q) => /generateContent/i.test(q.path) && (q.body.tools ?? []).length > 0)
  const tools = JSON.stringify(main[0]?.body.tools ?? [])
  assert.ok(tools.includes('"activate_skill"'), `Gemini CLI offers activate_skill\n${r.stderr}`)
  assert.equal(count(main[0].body, REPLICA), 0, 'no skill rule before the skill is active')
  assert.ok(main.length >= 2, `the skill call and an answer, got ${main.length}\n${r.stderr}`)
  assert.equal(count(main[1].body, REPLICA), 1, 'the skills: rule arrived after activate_skill')
  assert.equal(count(main.at(-1).body, REPLICA), 1, 'once in the whole conversation')
  assert.equal(main.filter((q) => JSON.stringify(q.body.contents.at(-1)).includes(MEMORY)).length, 1, 'the memory reminder reached the model once at AfterAgent')
})
