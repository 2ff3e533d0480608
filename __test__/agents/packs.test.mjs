// Rule packs and the policy, end to end through a real agent: Claude Code
// (pinned devDependency) with the hooks installed by `wave-rules hook
// install`, against the fake model server. The project names three packs:
// an npm package made with `npm pack` and installed with `npm install` from
// the tarball (offline), a git repository at a tag (a bare repository over
// file://, checked out by `wave-rules packs sync`), a folder; the policy
// directory (WAVE_POLICY_DIR) holds a locked rule the project tries to
// replace. Each pack kind's rule must reach the model, the policy's text
// instead of the project's.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { count } from './fake-model.mjs'
import { agentHarness, claudeEnv, installBin, claudeBinary, waveRulesBinary, run, writeTree } from './agents.mjs'

const claude = claudeBinary()
const has = (cmd) => {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const skip = !claude ? 'the @anthropic-ai/claude-code devDependency is not installed' : !has('git') ? 'git is not installed' : false
const TIMEOUT = 90_000
const MODEL = 'claude-sonnet-4-5'

const NPM = '[npm-sql.md] Pack from npm: use parameterized queries.'
const GIT = '[git-security.md] Pack from git: validate every input.'
const FOLDER = '[folder-customer.md] Pack from a folder: customer data is personal.'
const POLICY = '[secrets.md] Policy: never commit secrets.'
const REPLACED = 'Project: secrets may be committed.'

const h = agentHarness({ prefix: 'wave-packs-', dump: 'packs' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

const quiet = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_offline: 'true' }
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' }, encoding: 'utf8' })

test('Claude Code: an npm pack, a git pack and a folder pack reach the model through the hooks, and the locked policy wins', { skip, timeout: 4 * TIMEOUT }, async () => {
  const root = path.join(h.root, 'packs')
  const work = path.join(root, 'work')
  const home = path.join(root, 'home')
  const policy = path.join(root, 'policy')
  fs.mkdirSync(home, { recursive: true })

  // The npm pack: npm pack, then npm install of the tarball, offline.
  writeTree(path.join(root, 'npm-src'), {
    'package.json': JSON.stringify({ name: '@acme/rules', version: '2.3.1', files: ['rules'], waveRules: { rules: 'rules' } }),
    'rules/npm-sql.md': 'Pack from npm: use parameterized queries.\n',
  })
  const tgz = execFileSync('npm', ['pack', '--silent', '--pack-destination', root], { cwd: path.join(root, 'npm-src'), env: { ...process.env, ...quiet }, encoding: 'utf8' }).trim().split('\n').at(-1)
  writeTree(work, {
    'package.json': JSON.stringify({ name: 'work', private: true }),
    'src/a.ts': 'export const a = 1\n',
    '.wave/rules/secrets.md': `${REPLACED}\n`,
    'team/rules/folder-customer.md': '---\ntopics: [customer]\n---\nPack from a folder: customer data is personal.\n',
  })
  execFileSync('npm', ['install', '--no-save', path.join(root, tgz)], { cwd: work, env: { ...process.env, ...quiet }, stdio: 'ignore' })

  // The git pack: a repository at tag v1, its bare clone served over file://.
  writeTree(path.join(root, 'git-src'), { 'rules/git-security.md': '---\npaths: src/**\n---\nPack from git: validate every input.\n' })
  git(path.join(root, 'git-src'), 'init', '-q')
  git(path.join(root, 'git-src'), 'add', '-A')
  git(path.join(root, 'git-src'), 'commit', '-qm', 'rules')
  git(path.join(root, 'git-src'), 'tag', 'v1')
  git(root, 'clone', '-q', '--bare', 'git-src', 'rules.git')

  // The policy: one locked rule, the same id as a project rule.
  writeTree(policy, { 'rules/secrets.md': 'Policy: never commit secrets.\n' })

  const env = claudeEnv(home, h.server.url, { WAVE_POLICY_DIR: policy })
  installBin(work, bin)
  for (const spec of ['@acme/rules@^2', `git+file://${path.join(root, 'rules.git')}#v1`, './team']) {
    execFileSync(bin, ['packs', 'add', spec], { cwd: work, env, encoding: 'utf8' })
  }
  execFileSync(bin, ['packs', 'sync', '--frozen'], { cwd: work, env, encoding: 'utf8' })
  execFileSync(bin, ['hook', 'install'], { cwd: work, env, encoding: 'utf8' })
  const why = execFileSync(bin, ['packs', 'why', 'secrets.md'], { cwd: work, env, encoding: 'utf8' })
  assert.match(why, /is used \(locked\)/)

  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const r = await run(claude, ['-p', 'fix the customer query READ:src/a.ts', '--session-id', '0c0ffee0-0000-4000-8000-00000000a031', '--model', MODEL, '--output-format', 'json', '--permission-mode', 'acceptEdits'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `claude timed out\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => q.path.includes('/messages') && (q.body.tools ?? []).length > 0)
  assert.ok(main.length >= 2, `a tool call and an answer, got ${main.length} requests\n${r.stdout}\n${r.stderr}`)
  const opening = main[0].body
  assert.equal(count(opening, NPM), 1, 'the npm pack rule (always on) came at SessionStart')
  assert.equal(count(opening, POLICY), 1, 'the policy rule came at SessionStart')
  assert.equal(count(opening, FOLDER), 1, 'the folder pack rule came with the topic prompt')
  assert.equal(count(opening, GIT), 0, 'the git pack rule waits for its file')
  const last = main.at(-1).body
  assert.equal(count(last, GIT), 1, 'the git pack rule came after the Read of src/a.ts')
  for (const said of [NPM, POLICY, FOLDER]) assert.equal(count(last, said), 1, `${said} once in the conversation`)
  assert.equal(count(last, REPLACED), 0, 'the project rule does not replace the locked policy rule')
})
