// Codex CLI, the real binary (pinned devDependency @openai/codex), run
// headless (`codex exec`) against the fake model server through a custom
// model provider speaking the Responses API, with the hooks `wave-rules hook
// install --agent codex` wrote in the project's .codex/hooks.json (the
// package in the project's node_modules, installed without --command, as a
// user does). Codex reads files only through its shell tool
// (`exec_command`), so every path rule here comes from a parsed shell
// command. Project config needs trust (`--trust`) and hooks need trust of
// their own: the test passes
// `--dangerously-bypass-hook-trust` (automation that vets its hooks), which
// a user replaces by trusting the hooks once in `codex`. Assertions are on
// what reached the model: Codex gives hook context as developer messages.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { count, callDirective, isCompactionRequest } from './fake-model.mjs'
import { agentHarness, assertLogMatches, rules, SAID, codexBinary, waveRulesBinary, run, isolatedEnv, writeTree, installBin } from './agents.mjs'

const codex = codexBinary()
const skip = codex ? false : 'the @openai/codex devDependency is not installed for this platform'
const TIMEOUT = 90_000

const RULES = { ...rules('general', 'db', 'ts', 'gen'), 'src/a.ts': 'export const a = 1\n' }
const { GENERAL, DB, TS, GEN } = SAID

const h = agentHarness({ prefix: 'wave-codex-', dump: 'codex' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

test('Codex: rules reach the model through its hooks, path rules from shell reads and writes, once per session', { skip, timeout: 3 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true })
  writeTree(work, RULES)
  const env = isolatedEnv(home, { WAVE_RULES_STATE_DIR: path.join(h.root, 'state'), CODEX_HOME: path.join(home, '.codex') })
  // As a user installs it: the package in the project, no --command; Codex runs what was written.
  installBin(work, bin)
  const installed = execFileSync(bin, ['hook', 'install', '--agent', 'codex'], { cwd: work, env, encoding: 'utf8' })
  assert.match(installed, /installed the wave-rules hooks for codex/)
  assert.match(installed, /safe to commit: it names no path of this machine/)
  assert.match(fs.readFileSync(path.join(work, '.codex/hooks.json'), 'utf8'), /node_modules\/\.bin\/wave-rules hook --agent codex SessionStart/)
  assert.match(installed, /trust/)
  h.server.setWorkdir(work)
  const r = await run(codex, [
    'exec', '--trust', '--dangerously-bypass-hook-trust', '--skip-git-repo-check',
    '-c', 'model_provider=fake',
    '-c', `model_providers.fake={name="fake",base_url="${h.server.url}/v1",wire_api="responses"}`,
    '-m', 'fake-model',
    'fix the customer query READ:src/a.ts READ:src/a.ts WRITE:gen/new.ts',
  ], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `codex timed out\n${r.stderr}`)
  const main = h.server.requests.filter((q) => q.path.includes('/responses'))
  assert.ok(fs.existsSync(path.join(work, 'gen/new.ts')), `the shell write was not done\n${r.stdout}\n${r.stderr}`)
  assert.ok(main.length >= 4, `three shell calls and an answer, got ${main.length}\n${r.stderr}`)
  const first = main[0].body
  assert.equal(count(first, GENERAL), 1, 'SessionStart gave the always-on rule')
  assert.equal(count(first, DB), 1, 'the topic rule reached the first request')
  assert.equal(count(first, '=== MANDATORY RULES ==='), 1)
  assert.equal(count(first, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(main[1].body, TS), 1, 'the path rule arrived after `cat src/a.ts`')
  assert.ok(main.some((q) => count(q.body, GEN) === 1), 'the rule of the file written by a redirection arrived')
  const last = main.at(-1).body
  for (const text of [GENERAL, DB, TS, GEN]) assert.equal(count(last, text), 1, `${text} once in the whole conversation`)
  // The delivery log says what reached the model, event by event.
  const log = assertLogMatches({ state: path.join(h.root, 'state'), work, body: last, agent: 'codex', count })
  assert.ok(log.some((d) => d.event === 'tool-done'), 'the shell reads are logged')
})

// Compaction: `codex exec` compacts when the reported usage passes
// `model_auto_compact_token_limit`; the fake model reports a full context
// once the path rule has arrived. Codex runs PreCompact and PostCompact
// (whose output no model sees), then SessionStart with `source: "compact"`,
// whose context is the first thing after the summary: every rule active in
// the session comes there once more.
test('Codex: after an automatic compaction every active rule reaches the model again, once', { skip, timeout: 3 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'compact')
  const work = path.join(root, 'work')
  const home = path.join(root, 'home')
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true })
  writeTree(work, { ...RULES, 'src/b.ts': 'export const b = 1\n' })
  const env = isolatedEnv(home, { WAVE_RULES_STATE_DIR: path.join(root, 'state'), CODEX_HOME: path.join(home, '.codex') })
  installBin(work, bin)
  execFileSync(bin, ['hook', 'install', '--agent', 'codex'], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const before = h.server.requests.length
  let full = false
  h.server.reportFullContext((body) => !full && count(body, TS) === 1 && (full = true), 50_000)
  const r = await run(codex, [
    'exec', '--trust', '--dangerously-bypass-hook-trust', '--skip-git-repo-check',
    '-c', 'model_provider=fake',
    '-c', `model_providers.fake={name="fake",base_url="${h.server.url}/v1",wire_api="responses"}`,
    '-c', 'model_auto_compact_token_limit=20000',
    '-m', 'fake-model',
    // Compacted before the second read (the summary drops the calls made:
    // Codex then reads both again, which brings nothing new).
    'fix the customer query READ:src/a.ts READ:src/b.ts',
  ], { cwd: work, env, timeout: TIMEOUT })
  h.server.reportFullContext(() => false, 0)
  assert.ok(!r.timedOut, `codex timed out\n${r.stderr}`)
  const all = h.server.requests.slice(before).filter((q) => q.path.includes('/responses'))
  const at = all.findIndex((q) => isCompactionRequest(q.body))
  assert.ok(at > 0, `codex compacted\n${r.stderr}`)
  assert.equal(all.filter((q) => isCompactionRequest(q.body)).length, 1, 'one compaction')
  assert.equal(count(all[at - 1].body, TS), 1, 'the path rule was given before the compaction')
  const after = all.slice(at + 1)
  assert.ok(after.length >= 1, `the turn went on after the compaction\n${r.stderr}`)
  for (const text of [GENERAL, DB, TS]) {
    assert.equal(count(after[0].body, text), 1, `${text} in the first request after the compaction`)
    assert.equal(count(after.at(-1).body, text), 1, `${text} once in the compacted conversation`)
  }
})

test('Codex: reading a SKILL.md through its shell activates the skill: its skills: rule reaches the model once, and the memory reminder at Stop', { skip, timeout: 2 * TIMEOUT }, async () => {
  const REPLICA = 'Queries go to the read replica.'
  const MEMORY = "The skill 'db-work' you are using keeps memory."
  const work = path.join(h.root, 'skills', 'work')
  const home = path.join(h.root, 'skills', 'home')
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true })
  writeTree(work, {
    ...rules('general'),
    '.wave/rules/replica.md': `---\nskills: [db-work]\n---\n${REPLICA}\n`,
    '.agents/skills/db-work/SKILL.md': '---\nname: db-work\ndescription: Database work on the customer tables\n---\nFirst recall with memory_read (topic db); save findings with memory_write.\n',
  })
  const env = isolatedEnv(home, { WAVE_RULES_STATE_DIR: path.join(h.root, 'skills', 'state'), CODEX_HOME: path.join(home, '.codex') })
  execFileSync(bin, ['hook', 'install', '--agent', 'codex', '--command', bin], { cwd: work, env, encoding: 'utf8' })
  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const r = await run(codex, [
    'exec', '--trust', '--dangerously-bypass-hook-trust', '--skip-git-repo-check',
    '-c', 'model_provider=fake',
    '-c', `model_providers.fake={name="fake",base_url="${h.server.url}/v1",wire_api="responses"}`,
    '-m', 'fake-model',
    `fix the slow query ${callDirective('exec_command', { cmd: 'cat .agents/skills/db-work/SKILL.md' })}`,
  ], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `codex timed out\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/responses'))
  assert.ok(JSON.stringify(main[0]?.body.instructions ?? main[0]?.body.input ?? '').includes('db-work'), 'Codex lists the skill')
  assert.equal(count(main[0].body, REPLICA), 0, 'no skill rule before the skill is active')
  assert.ok(main.length >= 2, `the shell call and an answer, got ${main.length}\n${r.stderr}`)
  assert.equal(count(main[1].body, REPLICA), 1, 'the skills: rule arrived after the SKILL.md was read')
  assert.equal(count(main.at(-1).body, REPLICA), 1, 'once in the whole conversation')
  assert.equal(main.filter((q) => JSON.stringify(q.body.input.at(-1)).includes(MEMORY)).length, 1, 'the memory reminder reached the model once at Stop')
})
