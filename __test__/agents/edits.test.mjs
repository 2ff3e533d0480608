// Rules at the edit they govern, in a long conversation of each real agent
// (pinned, headless, against the fake model): a path rule given at the first
// read comes back once, in short form (its `summary`), when the agent writes
// a governed file more than the configured distance (here 3 tool calls,
// `hook install --edit-distance 3`; the opencode plugin's `editDistance`)
// later, in the request after the write (every agent puts a hook's text
// there: docs/subagents.md); the next write right after brings nothing.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { count } from './fake-model.mjs'
import { agentHarness, waveRulesBinary } from './agents.mjs'
import { DRIVERS } from './drivers.mjs'

const BODY = 'API handlers validate input with the zod schemas of src/api/schemas.ts.'
const SHORT = '[api.md] Validate input with zod.'
const FILES = {
  '.wave/rules/api.md': `---\npaths: src/api/**\nsummary: Validate input with zod.\n---\n${BODY}\nNever trust a query string.\n`,
  'src/api/orders.ts': 'export const orders = []\n',
  'src/a.ts': 'export const a = 1\n',
  'src/b.ts': 'export const b = 1\n',
  'src/c.ts': 'export const c = 1\n',
  'src/d.ts': 'export const d = 1\n',
}
const SCRIPT = 'MAIN-TASK READ:src/api/orders.ts READ:src/a.ts READ:src/b.ts READ:src/c.ts READ:src/d.ts EDIT:src/api/orders.ts WRITE:src/api/new.ts'

const h = agentHarness({ prefix: 'wave-edits-', dump: 'edits' })
let bin
before(async () => {
  if (Object.values(DRIVERS).every((d) => d.skip)) return
  bin = waveRulesBinary()
  await h.start()
})

for (const [key, driver] of Object.entries(DRIVERS)) {
  test(`${driver.name}: a path rule given long ago comes back once, in short form, right after the write it governs`, { skip: driver.skip, timeout: 300_000 }, async () => {
    const p = driver.project(h, bin, `${key}-edit`, FILES, { install: ['--edit-distance', '3'], opencode: {} })
    const t = await p.run(SCRIPT)
    const q = t.requests
    assert.ok(q.length >= 8, `seven tool calls and an answer: ${q.length} requests\n${t.stderr.slice(-2000)}`)
    assert.equal(count(q[1].body, BODY), 1, 'the rule in full after the first read')
    assert.equal(count(q[1].body, SHORT), 0)
    const back = q.findIndex((r) => count(r.body, SHORT) > 0)
    assert.equal(back, 6, 'the short form arrived in the request after the edit (the sixth call)')
    const last = q.at(-1).body
    assert.equal(count(last, SHORT), 1, 'once: the write right after brought nothing')
    assert.equal(count(last, BODY), 1, 'the full text was not repeated')
  })
}
