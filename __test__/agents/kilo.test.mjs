// Kilo Code's CLI, the real binary (pinned devDependency @kilocode/cli, an
// opencode fork), run headless (`kilo run --auto`) against the fake model
// server (an `@ai-sdk/openai-compatible` provider in the project's
// kilo.json), with our opencode plugin loaded from `.kilo/plugin/` the way
// a user adds it (the package in the project's node_modules). Kilo reads
// opencode's config names too (opencode.json, .opencode/); these tests use
// its own. Its first run tries to install @kilocode/plugin at its own
// version from the npm registry and goes on when that fails (7.7.7 is not
// published there). Measured with 7.7.7: the plugin's tool hooks run (path
// rules, refusals) and `session.created` reaches it, and the message it sends
// then (`session.prompt` with `noReply`) is stored in the session, but the
// model's requests of that first `kilo run` turn do not hold it: it reaches
// the model from the session's next turn (`kilo run --continue`), once.
// Assertions are on what reached the model.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { count } from './fake-model.mjs'
import { agentHarness, kiloBinary, repo, run, isolatedEnv, writeTree, rules, SAID } from './agents.mjs'

const kilo = kiloBinary()
const built = fs.existsSync(path.join(repo, 'dist/opencode.js'))
const skip = !kilo ? 'the @kilocode/cli devDependency is not installed for this platform' : !built ? 'run `npm run build` first (dist/opencode.js)' : false
const TIMEOUT = 150_000
const { GENERAL, TS, GEN } = SAID
const GUARD = 'Generated files are rebuilt by `npm run gen`.'
const REFUSED = "Refused by the project's rules: writing gen/new.ts"

const h = agentHarness({ prefix: 'wave-kilo-', dump: 'kilo' })
before(async () => {
  if (skip) return
  await h.start()
})

/** A project with the plugin as a user adds it; `turn(prompt)` runs one headless turn. */
function project(name, files) {
  const work = path.join(h.root, name, 'work')
  const home = path.join(h.root, name, 'home')
  fs.mkdirSync(home, { recursive: true })
  writeTree(work, {
    ...files,
    '.kilo/plugin/wave-memory-rules.js': "export { WaveMemoryRules } from 'wave-memory-rules/opencode'\n",
    'kilo.json': JSON.stringify({
      provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${h.server.url}/v1`, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake model' } } } },
      model: 'fake/fake-model',
      small_model: 'fake/fake-model',
    }),
  })
  fs.mkdirSync(path.join(work, 'node_modules'), { recursive: true })
  fs.symlinkSync(repo, path.join(work, 'node_modules/wave-memory-rules'), 'dir')
  const env = isolatedEnv(home, { KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1' })
  return {
    work,
    async turn(prompt, extra = []) {
      h.server.setWorkdir(work)
      const first = h.server.requests.length
      const r = await run(kilo, ['run', ...extra, prompt, '--model', 'fake/fake-model', '--auto'], { cwd: work, env, timeout: TIMEOUT })
      assert.ok(!r.timedOut, `kilo run timed out\n${r.stderr.slice(-3000)}`)
      const main = h.server.requests.slice(first).filter((q) => q.path.includes('/chat/completions') && Array.isArray(q.body.messages) && (q.body.tools ?? []).length > 0)
      return { ...r, main }
    },
  }
}

test('Kilo Code CLI: the opencode plugin gives a path rule once, after its read tool reads a matching file, and at a write; the always-on rule from the next turn on, once', { skip, timeout: 2 * TIMEOUT }, async () => {
  const p = project('paths', { ...rules('general', 'ts', 'gen'), 'src/a.ts': 'export const a = 1\n' })
  const t = await p.turn('fix it READ:src/a.ts READ:src/a.ts WRITE:gen/new.ts')
  assert.equal(t.status, 0, t.stderr.slice(-3000))
  assert.ok(fs.existsSync(path.join(p.work, 'gen/new.ts')), `the write was done\n${t.stderr.slice(-2000)}`)
  assert.ok(t.main.length >= 4, `three tool calls and an answer, got ${t.main.length}\n${t.stderr.slice(-2000)}`)
  assert.equal(count(t.main[0].body, TS), 0, 'no path rule before a file is touched')
  assert.equal(count(t.main[1].body, TS), 1, 'the path rule came with the read')
  const last = t.main.at(-1).body
  for (const text of [TS, GEN]) assert.equal(count(last, text), 1, `${text} once in the session`)
  // The session's next turn: the always-on rule sent at session.created is
  // there now, and nothing is twice.
  const t2 = await p.turn('again READ:src/a.ts', ['--continue'])
  assert.equal(t2.status, 0, t2.stderr.slice(-3000))
  assert.ok(t2.main.length >= 2, `a read and an answer, got ${t2.main.length}`)
  for (const text of [GENERAL, TS, GEN]) assert.equal(count(t2.main.at(-1).body, text), 1, `${text} once after --continue`)
})

test('Kilo Code CLI: an enforce: block rule refuses its write tool and the model reads the rule as the reason', { skip, timeout: 2 * TIMEOUT }, async () => {
  const p = project('enforce', { '.wave/rules/gen.md': `---\npaths: gen/**\nenforce: block\n---\n${GUARD}\n` })
  const t = await p.turn('regenerate WRITE:gen/new.ts')
  assert.ok(!fs.existsSync(path.join(p.work, 'gen/new.ts')), `the write was refused\n${t.stderr.slice(-2000)}`)
  assert.ok(t.main.length >= 2, `the call and an answer, got ${t.main.length}\n${t.stderr.slice(-2000)}`)
  const last = t.main.at(-1).body
  assert.equal(count(last, REFUSED), 1, 'the refusal came back as the call\'s result')
  assert.ok(count(last, GUARD) >= 1, 'with the rule\'s text')
})
