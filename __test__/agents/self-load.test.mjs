// What each real agent gives the model by itself, and exactly once with our
// hooks for every source. Part one runs each agent with no hooks at all
// against the loopback model and counts, in the conversation's last request
// (which holds the whole conversation), each rule file's text: the facts of
// the core's `self_load` table (crates/memory-rules/src/sources/self_load.rs,
// docs/agents.md) are these counts. Part two installs the hooks with
// `--sources all` (the choice goes to .wave/config.toml) and checks that
// every rule reaches the model exactly once, whoever delivers it.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { count } from './fake-model.mjs'
import { agentHarness, waveRulesBinary, writeTree } from './agents.mjs'
import { DRIVERS, conversation } from './drivers.mjs'

const TIMEOUT = 150_000
const h = agentHarness({ prefix: 'wave-self-load-', dump: 'self-load' })
let bin
before(async () => {
  bin = waveRulesBinary()
  await h.start()
})

// One marker per rule file; each file's rule applies to src/ or always.
const MARK = {
  claudeMd: 'Marker claude-md-q7.',
  agentsMd: 'Marker agents-md-q7.',
  geminiMd: 'Marker gemini-md-q7.',
  copilotRepo: 'Marker copilot-repo-q7.',
  copilotPath: 'Marker copilot-path-q7.',
  claudeRule: 'Marker claude-rule-q7.',
  cursorRule: 'Marker cursor-rule-q7.',
  waveRule: 'Marker wave-rule-q7.',
}
const FILES = {
  'CLAUDE.md': `# Project\n\n${MARK.claudeMd}\n`,
  'AGENTS.md': `# Agents\n\n${MARK.agentsMd}\n`,
  'GEMINI.md': `# Gemini\n\n${MARK.geminiMd}\n`,
  '.github/copilot-instructions.md': `${MARK.copilotRepo}\n`,
  '.github/instructions/ts.instructions.md': `---\napplyTo: "src/**"\n---\n${MARK.copilotPath}\n`,
  // Its own name: .claude/rules and .wave/rules share one id space (the later wins).
  '.claude/rules/claude-ts.md': `---\npaths: ["src/**"]\n---\n${MARK.claudeRule}\n`,
  '.cursor/rules/ts.mdc': `---\nglobs: src/**\nalwaysApply: false\n---\n${MARK.cursorRule}\n`,
  '.wave/rules/ts.md': `---\npaths: ["src/**"]\n---\n${MARK.waveRule}\n`,
  'src/a.ts': 'export const a = 1\n',
}
const without = (name) => Object.fromEntries(Object.entries(FILES).filter(([f]) => f !== name))

/** How many times each marker reached the model in one headless turn; `outer`: files in the folder above the project. */
async function reachedCounts(agent, name, files, prompt, install, outer = {}) {
  const d = DRIVERS[agent]
  const p = d.project(h, bin, name, files, { install })
  writeTree(path.join(h.root, name), outer)
  const tag = `q7-${name}`
  const r = await p.run(`${tag} ${prompt}`)
  const requests = conversation(r.requests, tag)
  assert.ok(requests.length >= 2, `${d.name} ${name}: the tool call and the answer reached the model\n${r.stdout}\n${r.stderr.slice(-2000)}`)
  const last = requests.at(-1).body
  const counts = Object.fromEntries(Object.entries(MARK).map(([k, m]) => [k, count(last, m)]))
  const first = Object.fromEntries(Object.entries(MARK).map(([k, m]) => [k, count(requests[0].body, m)]))
  console.log(`# ${agent} ${name}: ${JSON.stringify(counts)} (in the first request: ${JSON.stringify(first)})`)
  return { counts, requests }
}

/** What each agent gives the model by itself (no hooks), after a read of src/a.ts. */
const ITSELF = {
  claude: { claudeMd: 1, claudeRule: 1, agentsMd: 0 },
  codex: { agentsMd: 1, claudeMd: 0, claudeRule: 0, geminiMd: 0 },
  gemini: { geminiMd: 1, agentsMd: 0, claudeMd: 0, claudeRule: 0 },
  copilot: { claudeMd: 1, geminiMd: 1, agentsMd: 1, copilotRepo: 1, copilotPath: 1, claudeRule: 1 },
  opencode: { agentsMd: 1, claudeMd: 0, claudeRule: 0 },
}

for (const [agent, expected] of Object.entries(ITSELF)) {
  const d = DRIVERS[agent]
  test(`${d.name} by itself (no hooks) gives the model ${Object.keys(expected).filter((k) => expected[k]).join(', ')} and nothing of the other rule files`, { skip: d.skip, timeout: TIMEOUT }, async () => {
    const { counts } = await reachedCounts(agent, `${agent}-itself`, FILES, 'READ:src/a.ts', false)
    for (const [k, n] of Object.entries(expected)) assert.equal(counts[k], n, `${k}: ${JSON.stringify(counts)}`)
    assert.equal(counts.cursorRule, 0)
    assert.equal(counts.waveRule, 0)
  })
}

/** Whether a folder above `dir` holds a CLAUDE.md (CI's temp folder lies under one: .ci/run). */
function claudeMdAbove(dir) {
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'CLAUDE.md'))) return true
  }
  return false
}

test('Claude Code by itself gives the model AGENTS.md when there is no CLAUDE.md (in the project or above it), and a .claude/rules path rule after a Write and after a shell cat', { skip: DRIVERS.claude.skip, timeout: 3 * TIMEOUT }, async () => {
  const noClaudeMd = await reachedCounts('claude', 'claude-no-claude-md', without('CLAUDE.md'), 'READ:src/a.ts', false)
  assert.equal(noClaudeMd.counts.agentsMd, claudeMdAbove(h.root) ? 0 : 1, 'AGENTS.md, unless a CLAUDE.md lies above the temp folder')
  const write = await reachedCounts('claude', 'claude-write', FILES, 'WRITE:src/new.ts', false)
  assert.equal(write.counts.claudeRule, 1, 'the path rule after a Write')
  const cat = await reachedCounts('claude', 'claude-cat', FILES, 'CAT:src/a.ts', false)
  assert.equal(cat.counts.claudeRule, 1, 'the path rule after a shell cat')
})

test('a CLAUDE.md in a folder above the project: Claude Code gives no AGENTS.md by itself, and with the hooks it reaches the model once', { skip: DRIVERS.claude.skip, timeout: 2 * TIMEOUT }, async () => {
  const outer = { 'CLAUDE.md': 'Above the project.\n' }
  const itself = await reachedCounts('claude', 'claude-outer-itself', without('CLAUDE.md'), 'READ:src/a.ts', false, outer)
  assert.equal(itself.counts.agentsMd, 0, JSON.stringify(itself.counts))
  const hooked = await reachedCounts('claude', 'claude-outer-hooks', without('CLAUDE.md'), 'READ:src/a.ts', ['--sources', 'all'], outer)
  assert.equal(hooked.counts.agentsMd, 1, JSON.stringify(hooked.counts))
})

test('opencode by itself gives the model CLAUDE.md when there is no AGENTS.md', { skip: DRIVERS.opencode.skip, timeout: TIMEOUT }, async () => {
  const { counts } = await reachedCounts('opencode', 'opencode-no-agents-md', without('AGENTS.md'), 'READ:src/a.ts', false)
  assert.equal(counts.claudeMd, 1)
  assert.equal(counts.claudeRule, 0)
})

// With the hooks for every source: each rule file once, whoever gave it.
const ONCE = ['claudeMd', 'agentsMd', 'geminiMd', 'claudeRule', 'cursorRule', 'waveRule']
for (const agent of Object.keys(ITSELF)) {
  const d = DRIVERS[agent]
  test(`${d.name} with the hooks for --sources all: every rule reaches the model exactly once after a read, and after a write`, { skip: d.skip, timeout: 3 * TIMEOUT }, async () => {
    const install = agent === 'opencode' ? [] : ['--sources', 'all']
    const files = agent === 'opencode' ? { ...FILES, '.wave/config.toml': 'sources = ["all"]\n' } : FILES
    for (const [step, prompt] of [['read', 'READ:src/a.ts READ:src/a.ts'], ['write', 'WRITE:src/new.ts READ:src/a.ts']]) {
      const { counts, requests } = await reachedCounts(agent, `${agent}-all-${step}`, files, prompt, install)
      for (const k of ONCE) assert.equal(counts[k], 1, `${agent} ${step}: ${k} reached the model ${counts[k]} times: ${JSON.stringify(counts)}`)
      // The path rules arrive with the first tool call's result (the read,
      // or the write); Copilot CLI gives its own .claude/rules rule after a
      // read only (measured: not after its create), so after the later read.
      const afterFirstTool = requests[1].body
      const own = agent === 'copilot' && step === 'write' ? ['claudeRule'] : []
      for (const k of ['claudeRule', 'cursorRule', 'waveRule']) {
        assert.equal(count(afterFirstTool, MARK[k]), own.includes(k) ? 0 : 1, `${agent} ${step}: ${k} after the first tool call`)
      }
    }
    if (agent !== 'opencode') {
      const work = path.join(h.root, `${agent}-all-read`, 'work')
      assert.match(fs.readFileSync(path.join(work, '.wave/config.toml'), 'utf8'), /sources = \["all"\]/)
    }
  })
}
