// Claude Code, the real binary (pinned devDependency), run headless against
// the fake model server, with the hooks installed by `wave-rules hook
// install` as a user would. Assertions are on what reached the model (the
// requests the server recorded) and on the session transcript, not on exit
// codes: Claude Code exits 0 even when a hook fails.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync, spawnSync } from 'node:child_process'
import { count, callDirective } from './fake-model.mjs'
import { agentHarness, assertLogMatches, claudeEnv, installBin, rules, SAID, claudeBinary, waveRulesBinary, run, writeTree } from './agents.mjs'

const claude = claudeBinary()
const skip = claude ? false : 'the @anthropic-ai/claude-code devDependency is not installed'
const TIMEOUT = 90_000
const MODEL = 'claude-sonnet-4-5'

const RULES = {
  ...rules('general', 'db', 'ts', 'gen', 'review'),
  '.wave/rules/broken.md': '---\npaths: [src/**\n---\nnever loaded\n',
  'src/a.ts': 'export const a = 1\n',
  'src/b.ts': 'export const b = 2\n',
}
const { GENERAL, DB, TS, GEN, STOP } = SAID

const h = agentHarness({ prefix: 'wave-claude-', dump: 'claude-code' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

/** A project with `files`, a HOME, the hooks installed; and a runner. */
function project(name, files) {
  const work = path.join(h.root, name, 'work')
  const home = path.join(h.root, name, 'home')
  fs.mkdirSync(work, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  writeTree(work, files)
  const env = claudeEnv(home, h.server.url)
  // The package installed in the project, as npm leaves it: the hooks run
  // "$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules from .claude/settings.json.
  installBin(work, bin)
  const installed = execFileSync(bin, ['hook', 'install'], { cwd: work, env, encoding: 'utf8' })
  assert.match(installed, /installed wave-rules hooks .*\.claude\/settings\.json\n/)
  assert.match(installed, /safe to commit/)
  const claudeRun = async (args) => {
    h.server.setWorkdir(work)
    const first = h.server.requests.length
    const r = await run(claude, [...args, '--model', MODEL, '--output-format', 'json', '--permission-mode', 'acceptEdits'], { cwd: work, env, timeout: TIMEOUT })
    assert.ok(!r.timedOut, `claude ${args.join(' ')} timed out\n${r.stderr}`)
    const requests = h.server.requests.slice(first).filter((q) => q.path.includes('/messages') && Array.isArray(q.body.messages))
    return { ...r, requests, main: requests.filter((q) => (q.body.tools ?? []).length > 0) }
  }
  const transcript = (session) => {
    const dir = path.join(home, '.claude/projects')
    for (const p of fs.readdirSync(dir)) {
      const f = path.join(dir, p, `${session}.jsonl`)
      if (fs.existsSync(f)) return fs.readFileSync(f, 'utf8')
    }
    return ''
  }
  return { work, home, env, run: claudeRun, transcript }
}

/** The hook errors a transcript records (Claude Code's exit code hides them), our Stop block aside. */
function hookErrors(transcript) {
  const errors = []
  for (const line of transcript.split('\n').filter(Boolean)) {
    const entry = JSON.parse(line)
    const walk = (v) => {
      if (Array.isArray(v)) return v.forEach(walk)
      if (!v || typeof v !== 'object') return
      if (typeof v.type === 'string' && /hook.*error|error.*hook/i.test(v.type)) errors.push(v)
      if (Array.isArray(v.hookErrors) && v.hookErrors.length) errors.push(...v.hookErrors)
      Object.values(v).forEach(walk)
    }
    walk(entry)
  }
  // Our Stop reminder is a block by design (Claude Code files it as a
  // "blocking error"); anything else is a hook that failed.
  return errors.filter((e) => !JSON.stringify(e).includes(STOP))
}

test('Claude Code: rules reach the model once per session, MANDATORY on topic prompts, again after /compact', { skip, timeout: 6 * TIMEOUT }, async () => {
  const p = project('rules', RULES)
  const session = '0c0ffee0-0000-4000-8000-000000000001'

  // Turn 1: a topic prompt, the same file read twice, a new file written.
  const t1 = await p.run(['-p', 'fix the customer query READ:src/a.ts READ:src/a.ts WRITE:gen/new.ts', '--session-id', session])
  assert.ok(fs.existsSync(path.join(p.work, 'gen/new.ts')), `the Write was not done\n${t1.stdout}\n${t1.stderr}`)
  assert.ok(t1.main.length >= 4, `expected 3 tool calls and an answer, got ${t1.main.length} requests`)
  const first = t1.main[0].body
  assert.equal(count(first, '=== MANDATORY RULES ==='), 1, 'the topic rule reached the first request as MANDATORY')
  assert.equal(count(first, DB), 1)
  assert.equal(count(first, GENERAL), 1, 'SessionStart gave the always-on rule')
  assert.equal(count(first, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(t1.main[1].body, TS), 1, 'the path rule arrived after the Read')
  // The request after the Write holds the rule of the new file.
  const afterWrite = t1.main.find((q) => count(q.body, GEN) > 0)
  assert.ok(afterWrite, 'the rule of the written file reached the model')
  const last = t1.main.at(-1).body
  for (const text of [GENERAL, DB, TS, GEN]) assert.equal(count(last, text), 1, `${text} once in the whole conversation`)
  assert.equal(count(last, 'never loaded'), 0, 'the broken rule is skipped')
  // The sticky rule blocked the stop once (stop_hook_active lets the next one through).
  const stops = t1.main.filter((q) => count(q.body, STOP) > 0)
  assert.ok(stops.length >= 1, 'the Stop hook reminder reached the model')
  // Claude Code puts a blocking Stop's reason in one user message (twice:
  // as a system reminder and as "Stop hook feedback"); one such message.
  const blocked = t1.main.filter((q) => JSON.stringify(q.body.messages.at(-1)).includes(STOP))
  assert.equal(blocked.length, 1, 'one Stop reminder, no loop')
  assert.equal(count(last, 'Stop hook feedback:'), 1)
  assert.ok(count(last, '[review.md] Run the type checker before you finish.') >= 1)
  assert.deepEqual(hookErrors(p.transcript(session)), [], 'no hook failed')
  // The delivery log says what reached the model, event by event.
  const state = path.join(p.home, '.local/state/wave-rules')
  const log = assertLogMatches({ state, work: p.work, session, body: last, agent: 'claude', count })
  assert.deepEqual([...new Set(log.map((d) => d.event))].sort(), ['prompt', 'start:startup', 'stop', 'tool-done'])
  // The Stop hook's reminder: logged as often as the model got it, with the every-turn rule.
  const stopped = log.filter((d) => d.event === 'stop')
  assert.equal(stopped.length, count(last, 'Stop hook feedback:'))
  assert.ok(stopped.every((d) => d.rules.map((r) => r.id).includes('review.md')), JSON.stringify(stopped))

  // Turn 2 (same session): the topic rule again, path rules not again.
  const t2 = await p.run(['-p', 'and the customer view READ:src/b.ts', '--resume', session])
  const last2 = t2.main.at(-1).body
  assert.equal(count(last2, DB), 2, 'MANDATORY rules come with every prompt that matches')
  assert.equal(count(last2, TS), 1, 'the path rule is not given twice in a session')
  assert.equal(count(last2, GENERAL), 1)
  assertLogMatches({ state, work: p.work, session, body: last2, agent: 'claude', count })

  // A real compaction, offline; then the next turn has every rule again.
  const beforeCompaction = Date.now()
  const compacted = await p.run(['-p', '/compact', '--resume', session])
  assert.ok(compacted.requests.length >= 1, `/compact sent a summary request\n${compacted.stdout}\n${compacted.stderr}`)
  const t3 = await p.run(['-p', 'continue READ:src/a.ts', '--resume', session])
  const last3 = t3.main.at(-1).body
  assert.equal(count(last3, TS), 1, 'after compaction the path rule comes again, once')
  assert.equal(count(last3, GENERAL), 1, 'after compaction the always-on rule comes again, once')
  assert.equal(count(last3, GEN), 1, 'every rule active in the session comes again')
  assert.equal(count(last3, DB), 1, 'the topic rule that fired in the session comes again')
  assertLogMatches({ state, work: p.work, session, body: last3, agent: 'claude', count, since: beforeCompaction })
  assert.deepEqual(hookErrors(p.transcript(session)), [], 'no hook failed')
})

test('Claude Code: with no rules, nothing reaches the model', { skip, timeout: 2 * TIMEOUT }, async () => {
  const p = project('none', { 'src/a.ts': 'export const a = 1\n' })
  const session = '0c0ffee0-0000-4000-8000-000000000002'
  const t = await p.run(['-p', 'fix the customer query READ:src/a.ts WRITE:src/c.ts', '--session-id', session])
  assert.ok(fs.existsSync(path.join(p.work, 'src/c.ts')))
  assert.equal(t.main.length, 3, 'two tool calls and an answer: no Stop reminder')
  const all = JSON.stringify(t.requests.map((q) => q.body.messages))
  for (const marker of ['=== MANDATORY RULES ===', '## Rules', STOP]) assert.ok(!all.includes(marker), `${marker} reached the model`)
  assert.ok(!p.transcript(session).includes('hook_additional_context'), 'no hook added context')
  assert.deepEqual(hookErrors(p.transcript(session)), [])
})

test('Claude Code: the Skill tool activates a skill: its skills: rule reaches the model once, and the memory reminder arrives at stop', { skip, timeout: 3 * TIMEOUT }, async () => {
  const REPLICA = 'Queries go to the read replica.'
  const MEMORY = "The skill 'db-work' you are using keeps memory."
  const p = project('skills', {
    ...rules('general'),
    'src/a.ts': 'export const a = 1\n',
    '.wave/rules/replica.md': `---\nskills: [db-work]\n---\n${REPLICA}\n`,
    // A skill whose SKILL.md uses the memory tools: no configuration beyond that.
    '.claude/skills/db-work/SKILL.md': '---\nname: db-work\ndescription: Database work on the customer tables\n---\nFirst recall with mcp__wave-rules__memory_read (topic db); at the end save findings with memory_write.\n',
  })
  const session = '0c0ffee0-0000-4000-8000-000000000003'
  const t = await p.run(['-p', `fix the slow query ${callDirective('Skill', { skill: 'db-work' })} READ:src/a.ts`, '--session-id', session])
  const tools = (t.main[0]?.body.tools ?? []).map((x) => x.name)
  assert.ok(tools.includes('Skill'), `Claude Code offers its Skill tool: ${tools.join(', ')}`)
  assert.equal(count(t.main[0].body, REPLICA), 0, 'no skill rule before the skill is active')
  const afterSkill = t.main.findIndex((q) => JSON.stringify(q.body.messages).includes('"name":"Skill"'))
  assert.ok(afterSkill >= 1, `the model called the Skill tool\n${t.stdout}\n${t.stderr}`)
  assert.equal(count(t.main[afterSkill].body, REPLICA), 1, 'the skills: rule arrived right after the Skill tool')
  const last = t.main.at(-1).body
  assert.equal(count(last, REPLICA), 1, 'the skills: rule once in the whole conversation')
  // The memory reminder blocked the stop once; the stop after it went through.
  const blocked = t.main.filter((q) => JSON.stringify(q.body.messages.at(-1)).includes(MEMORY))
  assert.equal(blocked.length, 1, 'one memory reminder at stop, no loop')
  assert.ok(count(last, 'memory_write') >= 1)
  assert.deepEqual(hookErrors(p.transcript(session)).filter((e) => !JSON.stringify(e).includes(MEMORY)), [], 'no hook failed')

  // A new session where the user types the skill as a slash command.
  const slash = await p.run(['-p', '/db-work fix the slow query', '--session-id', '0c0ffee0-0000-4000-8000-000000000004'])
  assert.ok(slash.main.length >= 1, `the model was asked\n${slash.stdout}\n${slash.stderr}`)
  assert.equal(count(slash.main[0].body, REPLICA), 1, 'the skills: rule arrived with the /db-work prompt')
  assert.equal(count(slash.main.at(-1).body, REPLICA), 1, 'once')
  assert.equal(slash.main.filter((q) => JSON.stringify(q.body.messages.at(-1)).includes(MEMORY)).length, 1, 'the memory reminder at stop')
})

test('Claude Code: a memory entry reaches the model in the turn of the prompt it is relevant to, not before, once, and again after /compact', { skip, timeout: 6 * TIMEOUT }, async () => {
  const p = project('memory', { ...rules('general'), 'src/a.ts': 'export const a = 1\n' })
  const session = '0c0ffee0-0000-4000-8000-000000000031'
  const LOOM = 'Loom tests need RUSTFLAGS="--cfg loom" and run only the tests under tokio/tests/loom_*.'
  const write = (topic, text) => {
    const r = spawnSync(bin, ['memory', 'write', topic, text, '--json'], { cwd: p.work, env: p.env, encoding: 'utf8' })
    return { code: r.status, ...(r.stdout.trim().startsWith('{') ? JSON.parse(r.stdout) : {}), stderr: r.stderr }
  }
  const stored = write('testing', LOOM)
  assert.equal(stored.action, 'stored', stored.stderr)
  for (const [topic, text] of [
    ['ci', 'CI runs clippy with -D warnings on stable and the MSRV job on 1.70.'],
    ['docs', 'Doc examples are compiled by cargo test --doc; keep them runnable.'],
    ['style', 'Imports are grouped std, external crates, then crate modules.'],
    ['release', 'Releases are cut from the release branch by the maintainers on Fridays.'],
  ]) assert.equal(write(topic, text).action, 'stored')
  // Hygiene on the same store the hooks recall from.
  assert.equal(write('testing', LOOM).action, 'folded')
  const secret = write('deploy', 'The CI token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ')
  assert.equal(secret.code, 1)
  assert.equal(secret.action, 'refused')

  const t1 = await p.run(['-p', 'write a haiku about the sea', '--session-id', session])
  assert.ok(t1.main.length >= 1, `no request\n${t1.stdout}\n${t1.stderr}`)
  assert.equal(count(t1.main.at(-1).body, '--cfg loom'), 0, 'not before its prompt')
  assert.ok(count(t1.main[0].body, 'testing') >= 1, 'the index of topics at the start')

  const t2 = await p.run(['-p', 'how do I run the loom tests?', '--resume', session])
  assert.equal(count(t2.main[0].body, '--cfg loom'), 1, "in that prompt's turn")
  assert.equal(count(t2.main.at(-1).body, 'Fridays'), 0, 'only what is relevant')

  const t3 = await p.run(['-p', 'and the loom tests again?', '--resume', session])
  assert.equal(count(t3.main.at(-1).body, '--cfg loom'), 1, 'given once in the conversation')

  const compacted = await p.run(['-p', '/compact', '--resume', session])
  assert.ok(compacted.requests.length >= 1, `/compact sent a summary request\n${compacted.stdout}\n${compacted.stderr}`)
  const t4 = await p.run(['-p', 'continue', '--resume', session])
  assert.ok(count(t4.main.at(-1).body, '--cfg loom') >= 1, 'after compaction the recalled entry comes again')
  assert.deepEqual(hookErrors(p.transcript(session)), [], 'no hook failed')
})

test('Claude Code: a memory note naming a folder reaches the model in the turn a file below it is read, once', { skip, timeout: 3 * TIMEOUT }, async () => {
  const p = project('memory-folder', {
    ...rules('general'),
    'services/billing/stripe/webhook_test.go': 'package stripe\n',
    'services/billing/stripe/client.go': 'package stripe\n',
    'tools/gen/main.go': 'package main\n',
  })
  const session = '0c0ffee0-0000-4000-8000-000000000041'
  const NOTE = 'services/billing/stripe talks to the Stripe sandbox: export STRIPE_API_KEY from the team vault before go test ./...'
  const write = (topic, text) => spawnSync(bin, ['memory', 'write', topic, text, '--json'], { cwd: p.work, env: p.env, encoding: 'utf8' })
  for (const [topic, text] of [
    ['billing', NOTE],
    ['auth', 'services/auth issues session cookies; keep them HttpOnly.'],
    ['release', 'Tag releases as vMAJOR.MINOR.PATCH from main.'],
  ]) {
    const r = write(topic, text)
    assert.equal(JSON.parse(r.stdout).action, 'stored', r.stderr)
  }
  // The reads are scripted in base64 (CALL:Read): the prompt itself names no file.
  const read = (file) => callDirective('Read', { file_path: path.join(p.work, file) })
  const t = await p.run(['-p', `look at these ${read('tools/gen/main.go')} ${read('services/billing/stripe/webhook_test.go')} ${read('services/billing/stripe/client.go')}`, '--session-id', session])
  assert.ok(t.main.length >= 4, `three reads and an answer, got ${t.main.length} requests\n${t.stdout}\n${t.stderr}`)
  const KEY = 'STRIPE_API_KEY'
  assert.equal(count(t.main[0].body, KEY), 0, 'not with the prompt')
  assert.equal(count(t.main[1].body, KEY), 0, 'not for an unrelated file')
  assert.equal(count(t.main[2].body, KEY), 1, 'in the turn the file below the folder was read')
  assert.equal(count(t.main.at(-1).body, KEY), 1, 'once: not again for a second file below it')
  assert.equal(count(t.main.at(-1).body, 'HttpOnly'), 0, 'not the note of another folder')
  assert.deepEqual(hookErrors(p.transcript(session)), [], 'no hook failed')
})
