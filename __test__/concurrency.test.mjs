// Issue 9, finding 6 and the NUL part of 14: overlapping discoveries and
// reloads never leave rule objects, diagnostics and indices from different
// discoveries; the engine's kept file list cannot desync.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { tempTree } from './helpers.mjs'

const { RuleManager } = createRequire(import.meta.url)('..')

// Rule k fires for files under dir k only, and says so in its body.
const ruleText = (k, version) => `---\npaths: d${k}/**\n---\nrule ${k} v${version}`

test('concurrent reload loops under churn never return a wrong or undefined rule', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const N = 12
  for (let k = 0; k < N; k++) tree.project(`r${k}.md`, ruleText(k, 0))
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await m.discoverRules()
  let stop = false
  let wrong = 0
  let undef = 0
  let calls = 0
  let reloads = 0
  const loops = Array.from({ length: 4 }, async () => {
    for (let i = 0; i < 60 && !stop; i++) {
      await (i % 7 === 0 ? m.discoverRules() : m.reload())
      reloads++
    }
  })
  const churn = (async () => {
    for (let i = 0; i < 120 && !stop; i++) {
      const k = i % N
      const file = path.join(tree.workdir, '.wave/rules', `r${k}.md`)
      if (i % 3 === 0) fs.rmSync(file, { force: true })
      else {
        // Atomic, so a reader never sees a half-written (pathless) file.
        fs.writeFileSync(`${file}.tmp`, ruleText(k, i))
        fs.renameSync(`${file}.tmp`, file)
      }
      await new Promise((r) => setImmediate(r))
    }
  })()
  const check = (async () => {
    for (let i = 0; i < 3000; i++) {
      const k = i % N
      const files = [`d${k}/x.ts`, `d${(k + 1) % N}/y.ts`]
      for (const rule of m.getActiveRules(files, 'prompt')) {
        calls++
        if (rule === undefined) undef++
        else if (!(rule.metadata.paths[0] === `d${k}/**` || rule.metadata.paths[0] === `d${(k + 1) % N}/**`)) wrong++
        else if (!rule.content.startsWith(`rule ${rule.metadata.paths[0].slice(1, -3)} `)) wrong++
      }
      if (i % 10 === 0) await new Promise((r) => setImmediate(r))
    }
    stop = true
  })()
  await Promise.all([...loops, churn, check])
  assert.equal(undef, 0, `undefined entries in ${calls} results`)
  assert.equal(wrong, 0, `wrong rules in ${calls} results`)
  assert.ok(reloads > 0 && calls > 0)
  // After everything settles, the manager agrees with a fresh discovery.
  await m.reload()
  const fresh = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await fresh.discoverRules()
  assert.deepEqual(m.getRules().map((r) => r.content), fresh.getRules().map((r) => r.content))
})

test('two reloads in flight: the newest result is in use and objects match indices', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('a.md', '---\npaths: a/**\n---\nA')
  tree.project('b.md', '---\npaths: b/**\n---\nB')
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await m.discoverRules()
  fs.rmSync(path.join(tree.workdir, '.wave/rules/a.md'))
  const first = m.reload()
  const second = m.reload()
  // Before either resolves, the old rules are still used consistently.
  assert.deepEqual(m.getActiveRules(['a/x', 'b/x']).map((r) => r.content), ['A', 'B'])
  const results = await Promise.all([first, second])
  assert.ok(results.includes(true), 'one of them reports the change')
  assert.deepEqual(m.getActiveRules(['a/x', 'b/x']).map((r) => r.content), ['B'])
  assert.deepEqual(m.getRules().map((r) => r.id), ['b.md'])
})

test('a NUL inside a context path cannot desync the kept file list', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('a.md', '---\npaths: a/**\n---\nA')
  tree.project('b.md', '---\npaths: b/**\n---\nB')
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await m.discoverRules()
  const ids = (files) => m.getActiveRules(files).map((r) => r.id)
  const files = ['a/x\0b/y', 'c/z']
  assert.deepEqual(ids(files), [])
  assert.deepEqual(ids(files), [], 'the same call gives the same answer')
  assert.deepEqual(ids([...files, 'b/1']), ['b.md'])
  assert.deepEqual(ids(['a/1']), ['a.md'])
  // The raw engine refuses a count that does not match, and recovers.
  const { RuleEngine } = createRequire(import.meta.url)('../index.js')
  const e = new RuleEngine({ workdir: tree.workdir, homeDir: tree.homeDir })
  await e.discover()
  const out = new Uint32Array(4)
  assert.equal(e.activeDelta(0, 1, 'a/x\0b/y', null, out), 0xffffffff)
  assert.equal(e.activeDelta(5, 0, '', null, out), 0xffffffff)
  assert.equal(e.activeDelta(0, 2, 'a/x\0b/y', null, out), 2)
})
