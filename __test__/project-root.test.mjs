// The project root: the manager and `projectRoot` find it as the CLI does.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gitRoot, tempTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { RuleManager, projectRoot } = require('..')
const jsBin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin/wave-rules.js')

function project(t) {
  const tree = tempTree()
  t.after(tree.cleanup)
  gitRoot(tree.workdir)
  tree.project('api.md', '---\npaths: src/api/**\n---\nAPI rule.')
  const sub = path.join(tree.workdir, 'src', 'api')
  fs.mkdirSync(sub, { recursive: true })
  return { tree, sub }
}

test('projectRoot walks up to the nearest .wave, .claude or .git', (t) => {
  const { tree, sub } = project(t)
  assert.deepEqual(projectRoot(sub, tree.homeDir), { dir: tree.workdir, marker: '.wave' })
  // The home's own .claude is the user's settings, not a project.
  const loose = path.join(tree.homeDir, 'scratch', 'x')
  fs.mkdirSync(loose, { recursive: true })
  fs.mkdirSync(path.join(tree.homeDir, '.claude'))
  const r = projectRoot(loose, tree.homeDir)
  assert.equal(r.dir, loose)
  assert.equal(r.marker, undefined)
})

test('a manager given a subdirectory reads the project root rules; findRoot: false keeps it as given', async (t) => {
  const { tree, sub } = project(t)
  const m = new RuleManager({ workdir: sub, homeDir: tree.homeDir })
  await m.discoverRules()
  assert.deepEqual(m.getRules().map((r) => r.id), ['api.md'])
  // Context paths are relative to the root; absolute ones anywhere in it.
  assert.deepEqual(m.getActiveRules(['src/api/users.ts']).map((r) => r.id), ['api.md'])
  assert.deepEqual(m.getActiveRules([path.join(sub, 'users.ts')]).map((r) => r.id), ['api.md'])

  const asGiven = new RuleManager({ workdir: sub, homeDir: tree.homeDir, findRoot: false })
  await asGiven.discoverRules()
  assert.deepEqual(asGiven.getRules(), [])
})

test('the npm bin run from a subdirectory lists the project rules and names the root', (t) => {
  const { tree, sub } = project(t)
  const out = execFileSync(process.execPath, [jsBin, 'list', '--home', tree.homeDir], { cwd: sub, encoding: 'utf8' })
  assert.match(out, /^ID +SCOPE/)
  assert.match(out, /api\.md/)
  assert.ok(out.includes(`project root: ${tree.workdir} (has .wave)`), out)
})
