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
  // The home's own .claude is the user's settings, not a project: the walk
  // passes it by, up to the tree's own root (a fence: what lies above the
  // temp folder is not this test's).
  gitRoot(tree.root)
  const loose = path.join(tree.homeDir, 'scratch', 'x')
  fs.mkdirSync(loose, { recursive: true })
  fs.mkdirSync(path.join(tree.homeDir, '.claude'))
  assert.deepEqual(projectRoot(loose, tree.homeDir), { dir: tree.root, marker: '.git' })
})

test("projectRoot passes by the agent SDK's and Claude Code's user data folders, not a project's .wave/rules", async (t) => {
  const tree = tempTree({ root: false })
  t.after(tree.cleanup)
  gitRoot(tree.root)
  const data = path.join(tree.root, 'data')
  for (const d of ['.wave/projects/-tmp-x', '.wave/plans', '.wave/file-history/s1', '.claude/todos']) fs.mkdirSync(path.join(data, d), { recursive: true })
  tree.write(path.join(data, 'AGENTS.md'), 'Not this project.\n')
  const app = path.join(data, 'app')
  const start = path.join(app, 'src')
  fs.mkdirSync(start, { recursive: true })
  assert.deepEqual(projectRoot(start, tree.homeDir), { dir: tree.root, marker: '.git' })
  // An empty .wave is no project's either.
  fs.mkdirSync(path.join(app, '.wave'))
  assert.deepEqual(projectRoot(start, tree.homeDir), { dir: tree.root, marker: '.git' })
  fs.mkdirSync(path.join(app, '.wave', 'rules'))
  assert.deepEqual(projectRoot(start, tree.homeDir), { dir: app, marker: '.wave' })
  // The data folder's AGENTS.md is no rule of the project's.
  fs.rmSync(path.join(app, '.wave'), { recursive: true })
  tree.write(path.join(app, '.claude', 'settings.json'), '{}')
  assert.deepEqual(projectRoot(start, tree.homeDir), { dir: app, marker: '.claude' })
  const m = new RuleManager({ workdir: start, homeDir: tree.homeDir, sources: ['agents-md'] })
  await m.discoverRules()
  assert.deepEqual(m.getRules(), [])
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
