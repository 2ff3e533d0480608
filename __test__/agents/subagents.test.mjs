// A subagent is a conversation of its own, in every agent that runs them:
// the real agents (pinned), headless, against the fake model, each with its
// own subagent tool (Claude Code `Agent`, Codex `spawn_agent` + `wait_agent`,
// Gemini CLI `invoke_agent`, Copilot CLI `task`, opencode `task`). The main
// prompt and the subagent's task each carry a mark, so the requests of each
// conversation can be told apart; assertions are on what reached the model
// in each.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { count, agentDirective } from './fake-model.mjs'
import { agentHarness, rules, SAID, waveRulesBinary } from './agents.mjs'
import { DRIVERS, conversation } from './drivers.mjs'

const { GENERAL, DB, API } = SAID
const FILES = {
  ...rules('general', 'db', 'api'),
  'src/api/orders.ts': 'export const orders = []\n',
  'src/a.ts': 'export const a = 1\n',
}

const h = agentHarness({ prefix: 'wave-subagents-', dump: 'subagents' })
let bin
before(async () => {
  if (Object.values(DRIVERS).every((d) => d.skip)) return
  bin = waveRulesBinary()
  await h.start()
})

for (const [key, driver] of Object.entries(DRIVERS)) {
  const skip = driver.skip
  test(`${driver.name}: main conversation first, then a subagent reads the same file: the path rule reaches each once; the subagent starts with the always-on rule and its task's topic rule`, { skip, timeout: 300_000 }, async () => {
    const p = driver.project(h, bin, `${key}-main-first`, FILES)
    const t = await p.run(`MAIN-TASK look at READ:src/api/orders.ts then ${agentDirective('SUB-TASK check the customer orders READ:src/api/orders.ts')} READ:src/a.ts`)
    const main = conversation(t.requests, 'MAIN-TASK')
    const sub = conversation(t.requests, 'SUB-TASK')
    assert.ok(sub.length >= 2, `the subagent read the file and answered: ${sub.length} requests\n${t.stderr.slice(-2000)}`)
    assert.ok(main.length >= 4, `the main conversation read, delegated, read again and answered: ${main.length} requests\n${t.stderr.slice(-2000)}`)
    assert.equal(count(sub[0].body, GENERAL), 1, 'the always-on rule at the subagent\'s start')
    assert.equal(count(sub[0].body, DB), 1, 'the topic rule of its task at its start')
    assert.equal(count(sub[0].body, API), 0, 'no path rule before it touched the file')
    assert.equal(count(sub.at(-1).body, API), 1, 'the path rule reached the subagent, once, though the main conversation had it')
    const last = main.at(-1).body
    assert.equal(count(last, API), 1, 'the main conversation got the path rule once')
    assert.equal(count(last, GENERAL), 1, 'and the always-on rule once')
    assert.equal(count(last, DB), 0, 'nothing the subagent got is in the main conversation')
  })

  test(`${driver.name}: a subagent reads the file first, then the main conversation: the path rule reaches each once`, { skip, timeout: 300_000 }, async () => {
    const p = driver.project(h, bin, `${key}-sub-first`, FILES)
    const t = await p.run(`MAIN-TASK ${agentDirective('SUB-TASK check the customer orders READ:src/api/orders.ts')} READ:src/api/orders.ts READ:src/a.ts`)
    const main = conversation(t.requests, 'MAIN-TASK')
    const sub = conversation(t.requests, 'SUB-TASK')
    assert.ok(sub.length >= 2, `the subagent read the file and answered: ${sub.length} requests\n${t.stderr.slice(-2000)}`)
    assert.equal(count(sub.at(-1).body, API), 1, 'the subagent got the path rule once')
    const after = main.findIndex((q) => count(q.body, API) > 0)
    assert.ok(after > 0, 'the main conversation got the path rule when it read the file, though the subagent had it')
    const last = main.at(-1).body
    assert.equal(count(last, API), 1, 'once')
    assert.equal(count(last, GENERAL), 1)
    assert.equal(count(last, DB), 0, 'nothing the subagent got is in the main conversation')
  })
}
