// `wave-rules eval` end to end: every agent (pinned, headless) run by the
// command against the fake model, which here follows a rule only when the
// rule's text reached it (`obeyDirective`). With the rule the scenario
// passes every run, without it none; the other rule of the project still
// reaches the model in the arm without (the ablation removes one rule); the
// tokens are what the model reported; the project is not written; no
// process is left behind. `--agent command` runs a small SDK-style agent
// (it reads the rules itself) against a model that follows the rule with a
// seeded probability: the reported rate and interval are those of what the
// model did.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import crypto from 'node:crypto'
import { obeyDirective, obeyed, shDirective } from './fake-model.mjs'
import { agentHarness, waveRulesBinary, writeTree, run, repo, claudeBinary, codexBinary, geminiScript, copilotBinary, opencodeBinary } from './agents.mjs'
import { DRIVERS } from './drivers.mjs'

const LOGGING = 'Log with logger.debug, never console.log.'
const STYLE = 'Name every exported function for what it returns.'
const TIMEOUT = 600_000

/** The prompt: the model appends a logger.debug line when the rule reached it, a console.log line otherwise. */
function prompt(options) {
  const follow = shDirective("echo 'logger.debug(user.id)' >> src/app.ts")
  const ignore = shDirective("echo 'console.log(user.id)' >> src/app.ts")
  return `Add a debug line to src/app.ts that prints the user id. ${obeyDirective(LOGGING, follow, ignore, options)}`
}

function scenario(options) {
  return [
    `prompt: ${JSON.stringify(prompt(options))}`,
    'rules: [logging]',
    'files:',
    '  src/app.ts: "export function handler(user) { return user.id }\\n"',
    'expect:',
    '  - file: src/app.ts',
    '    contains: logger.debug',
    '  - command_not_run: "console\\\\.log"',
    '  - file: src/keep.ts',
    '    unchanged: true',
    '',
  ].join('\n')
}

/** The project: two always-on rules (one under test), a file the scenario must leave alone. */
function project(dir, options) {
  writeTree(dir, {
    '.wave/rules/logging.md': `${LOGGING}\n`,
    '.wave/rules/style.md': `${STYLE}\n`,
    '.wave/evals/logging.yaml': scenario(options),
    'src/keep.ts': 'export const keep = 1\n',
    'package.json': '{"name":"eval-fixture","private":true}\n',
  })
  // The package as a project installs it (opencode's plugin imports it).
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true })
  fs.symlinkSync(repo, path.join(dir, 'node_modules/wave-memory-rules'), 'dir')
}

/** A digest of every file under `dir` but the eval's own results (what `eval` must not change). */
function digest(dir) {
  const hash = crypto.createHash('sha256')
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      if (e.name === 'node_modules' || p.endsWith(path.join('.wave', 'evals', 'results'))) continue
      hash.update(p)
      if (e.isDirectory()) walk(p)
      else hash.update(fs.readFileSync(p))
    }
  }
  walk(dir)
  return hash.digest('hex')
}

/** Processes still running whose command line or directory is an eval scratch copy. */
function leftovers() {
  const out = []
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`)
      if (/wave-eval-\d+-\d+-\d+/.test(cmd + cwd)) out.push(`${pid}: ${cmd.replaceAll('\0', ' ')}`)
    } catch {}
  }
  return out
}

const AGENTS = {
  claude: { bin: claudeBinary, base: '', model: 'claude-sonnet-4-5' },
  codex: { bin: codexBinary, base: '/v1', model: 'fake-model' },
  gemini: { bin: geminiScript, base: '', model: 'gemini-2.5-pro' },
  copilot: { bin: copilotBinary, base: '/v1', model: 'gpt-4.1' },
  opencode: { bin: opencodeBinary, base: '/v1', model: 'fake-model' },
}

const h = agentHarness({ prefix: 'wave-eval-test-', dump: 'eval' })
let bin
before(async () => {
  bin = waveRulesBinary()
  await h.start()
})

async function evaluate(work, args) {
  const r = await run(bin, ['eval', '--json', '--timeout', '240', ...args], { cwd: work, env: { ...process.env, NO_COLOR: '1' }, timeout: TIMEOUT })
  return { ...r, json: r.stdout.trim().startsWith('{') ? JSON.parse(r.stdout) : null }
}

for (const [name, agent] of Object.entries(AGENTS)) {
  test(`${name}: a rule the model follows only when it reaches it gives 100% with it, 0% without it`, { skip: DRIVERS[name].skip, timeout: TIMEOUT }, async () => {
    const work = path.join(h.root, `agent-${name}`)
    project(work)
    const before = digest(work)
    const first = h.server.requests.length
    const decided = obeyed.length
    const r = await evaluate(work, ['--agent', name, '--agent-bin', agent.bin(), '--base-url', `${h.server.url}${agent.base}`, '--model', agent.model, '--runs', '3', '--jobs', '2'])
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`)
    const [s] = r.json.scenarios
    assert.equal(s.agent, name)
    assert.deepEqual([s.arms.with.passed, s.arms.with.judged, s.arms.with.rate], [3, 3, 1], JSON.stringify(s.runs, null, 1))
    assert.deepEqual([s.arms.without.passed, s.arms.without.judged, s.arms.without.rate], [0, 3, 0], JSON.stringify(s.runs, null, 1))
    assert.deepEqual([s.arms.with.ruleReached, s.arms.without.ruleReached], [3, 0])
    assert.ok(s.uplift.value === 1 && s.uplift.interval[0] > 0, JSON.stringify(s.uplift))
    // Why the runs without the rule failed: the check names the file and the text.
    for (const run of s.runs.filter((x) => x.arm === 'without')) assert.ok(run.failures.some((f) => f.includes("src/app.ts does not contain 'logger.debug'")), run.failures.join('; '))
    // The ablation took one rule out: in every run without it, the other rule still reached the model.
    const requests = h.server.requests.slice(first)
    const runs = obeyed.slice(decided).filter((o) => !o.reached).map((o) => o.run)
    assert.equal(new Set(runs).size, 3, JSON.stringify(obeyed.slice(decided)))
    for (const key of new Set(runs)) assert.ok(requests.some((q) => JSON.stringify(q.body).includes(key) && JSON.stringify(q.body).includes(STYLE)), `${key}: the other rule never reached the model`)
    // The tokens are the model's own counts: the fake model reports 10 input and 5 output tokens an answer.
    const answers = requests.filter((q) => /\/messages$|\/messages\?|chat\/completions|\/responses|:(stream)?[gG]enerateContent/.test(q.path) && !q.path.includes('count_tokens')).length
    assert.ok(answers >= 4, `${answers} answers`)
    assert.equal(s.runs.reduce((n, x) => n + x.outputTokens, 0), 5 * answers)
    assert.equal(s.runs.reduce((n, x) => n + x.inputTokens, 0), 10 * answers)
    assert.ok(s.tokens.with.input > 0 && s.tokens.without.output > 0, JSON.stringify(s.tokens))
    assert.equal(digest(work), before, 'eval changed the project')
    assert.deepEqual(leftovers(), [])
    // 3 of 3 against 0 of 3: the uplift's interval clears 0 (docs/eval.md).
    // A second eval finds every run stored under the same key: nothing is sent.
    const again = h.server.requests.length
    const cached = await evaluate(work, ['--agent', name, '--agent-bin', agent.bin(), '--base-url', `${h.server.url}${agent.base}`, '--model', agent.model, '--runs', '3'])
    assert.equal(cached.status, 0, cached.stderr)
    assert.equal(h.server.requests.length, again)
    assert.deepEqual(cached.json.scenarios[0].arms, s.arms)
  })
}

/** A small SDK-style agent: the project's rules in its system prompt (as an SDK app gives them), one shell tool, at most 5 steps. */
const MINI_AGENT = `
const fs = require('node:fs'), path = require('node:path'), { execSync } = require('node:child_process')
const dir = '.wave/rules'
const rules = fs.existsSync(dir) ? fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\\n') : ''
const messages = [{ role: 'system', content: 'Working directory: ' + process.cwd() + '\\nProject rules:\\n' + rules }, { role: 'user', content: process.env.WAVE_EVAL_PROMPT }]
const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }]
;(async () => {
  for (let step = 0; step < 5; step++) {
    const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY }, body: JSON.stringify({ model: 'fake-model', messages, tools }) })
    const m = (await r.json()).choices[0].message
    messages.push(m)
    if (!m.tool_calls) { console.log(m.content); return }
    for (const c of m.tool_calls) messages.push({ role: 'tool', tool_call_id: c.id, content: execSync(JSON.parse(c.function.arguments).command, { encoding: 'utf8' }) })
  }
})()
`

test('command: the reported rate and interval are those of what a seeded model did', { timeout: TIMEOUT }, async () => {
  const work = path.join(h.root, 'command')
  project(work, { p: 0.5, seed: 7 })
  fs.writeFileSync(path.join(work, 'agent.cjs'), MINI_AGENT)
  const decided = obeyed.length
  const r = await evaluate(work, ['--agent', 'command', '--cmd', 'node agent.cjs', '--base-url', `${h.server.url}/v1`, '--runs', '12', '--jobs', '2'])
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`)
  const [s] = r.json.scenarios
  const decisions = obeyed.slice(decided)
  const followed = decisions.filter((o) => o.reached && o.followed).length
  assert.equal(decisions.filter((o) => o.reached).length, 12)
  assert.equal(s.arms.with.passed, followed)
  assert.equal(s.arms.without.passed, 0)
  assert.ok(followed > 0 && followed < 12, `a draw under 0.5 in ${followed} of 12 conversations`)
  const [lo, hi] = s.arms.with.interval
  assert.ok(lo <= followed / 12 && followed / 12 <= hi && lo > 0 && hi < 1, JSON.stringify(s.arms.with))
  assert.deepEqual(leftovers(), [])
  // The report shows the rule's last measured effect beside its tokens.
  const report = await run(bin, ['report', '--json'], { cwd: work, env: process.env, timeout: 60_000 })
  const rule = JSON.parse(report.stdout).rules.find((x) => x.id === 'logging.md')
  assert.deepEqual([rule.effect.scenario, rule.effect.agent, rule.effect.with, rule.effect.without], ['logging', 'command', [followed, 12], [0, 12]])
  assert.ok(rule.tokens > 0 && rule.effect.uplift === s.uplift.value, JSON.stringify(rule))
  assert.equal(JSON.parse(report.stdout).rules.find((x) => x.id === 'style.md').effect, undefined)
})

// --against: the rule's text now against its text at a git ref, end to end
// with real agents. At HEAD the rule said something else, so the base arm
// runs with that text (which the model does not obey) and the current arm
// with the logging rule (which it does).
const OLD_LOGGING = 'Write a line to the log whenever you see fit.'
import { spawnSync } from 'node:child_process'

function git(cwd, ...args) {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
}

for (const name of ['claude', 'codex']) {
  const agent = AGENTS[name]
  test(`${name}: --against HEAD runs the rule's text now against its text at HEAD`, { skip: DRIVERS[name].skip, timeout: TIMEOUT }, async () => {
    const work = path.join(h.root, `against-${name}`)
    project(work)
    fs.writeFileSync(path.join(work, '.wave/rules/logging.md'), `${OLD_LOGGING}\n`)
    fs.writeFileSync(path.join(work, '.gitignore'), 'node_modules\n')
    git(work, 'init', '-q')
    git(work, 'add', '-A')
    git(work, 'commit', '-qm', 'base')
    fs.writeFileSync(path.join(work, '.wave/rules/logging.md'), `${LOGGING}\n`)
    const first = h.server.requests.length
    const r = await evaluate(work, ['--agent', name, '--agent-bin', agent.bin(), '--base-url', `${h.server.url}${agent.base}`, '--model', agent.model, '--runs', '3', '--jobs', '2', '--against', 'HEAD', '--min-uplift', '-0.1'])
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`)
    assert.deepEqual(r.json.arms, ['current', 'base'])
    assert.equal(r.json.against.ref, 'HEAD')
    const [s] = r.json.scenarios
    assert.deepEqual([s.arms.current.passed, s.arms.current.judged, s.arms.base.passed, s.arms.base.judged], [3, 3, 0, 3], JSON.stringify(s.runs, null, 1))
    assert.equal(s.rules[0].file, '.wave/rules/logging.md')
    assert.ok(s.rules[0].current && s.rules[0].base && s.rules[0].current !== s.rules[0].base, JSON.stringify(s.rules))
    // The base arm's runs got the text at HEAD, the current arm's the text now.
    const bodies = h.server.requests.slice(first).map((q) => JSON.stringify(q.body))
    assert.ok(bodies.some((b) => b.includes(OLD_LOGGING)), 'the text at HEAD never reached the model')
    assert.ok(bodies.some((b) => b.includes(LOGGING)), 'the text now never reached the model')
    assert.deepEqual(leftovers(), [])
  })
}

// turns: one conversation of two turns, end to end with real agents, each
// continuing by its own means (Claude Code --continue, Codex exec resume
// --last). The second turn's directive is followed only when the first
// turn's prompt is still in the request (the conversation went on);
// `after_turn: 1` checks the file between the turns.
const FIRST_TURN = 'Start the notes file for the release.'
function twoTurns() {
  const first = `${FIRST_TURN} ${shDirective("echo one > notes.txt")}`
  const second = `Add the second line. ${obeyDirective(FIRST_TURN, shDirective("echo two >> notes.txt"), shDirective("echo lost >> notes.txt"))}`
  return [
    'turns:',
    `  - ${JSON.stringify(first)}`,
    `  - ${JSON.stringify(second)}`,
    'rules: [logging]',
    'expect:',
    '  - file: notes.txt',
    '    contains: one',
    '    after_turn: 1',
    '  - file: notes.txt',
    '    not_contains: two',
    '    after_turn: 1',
    '  - file: notes.txt',
    '    matches: "^one\\\\ntwo\\\\n$"',
    '',
  ].join('\n')
}

for (const name of ['claude', 'codex']) {
  const agent = AGENTS[name]
  test(`${name}: turns run one conversation, the second turn continuing the first, and after_turn checks between them`, { skip: DRIVERS[name].skip, timeout: TIMEOUT }, async () => {
    const work = path.join(h.root, `turns-${name}`)
    project(work)
    fs.writeFileSync(path.join(work, '.wave/evals/logging.yaml'), twoTurns())
    const first = h.server.requests.length
    const r = await evaluate(work, ['--agent', name, '--agent-bin', agent.bin(), '--base-url', `${h.server.url}${agent.base}`, '--model', agent.model, '--runs', '1', '--jobs', '2'])
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`)
    const [s] = r.json.scenarios
    assert.deepEqual([s.arms.with.passed, s.arms.without.passed], [1, 1], JSON.stringify(s.runs, null, 1))
    // Every request of a second turn to the model at work (one offered
    // tools: not a title or topic request) held the first turn's prompt,
    // and in the arm with the rule, the rule too.
    const bodies = h.server.requests.slice(first).filter((q) => q.body?.tools?.length).map((q) => JSON.stringify(q.body))
    const second = bodies.filter((b) => b.includes('Add the second line.'))
    assert.ok(second.length >= 2, `${second.length} requests of a second turn`)
    for (const b of second) assert.ok(b.includes(FIRST_TURN), 'a second turn started a new conversation')
    assert.ok(second.some((b) => b.includes(LOGGING)), 'the rule did not reach the model in the second turn')
    assert.deepEqual(leftovers(), [])
  })
}
