// The package's RuleManager (the root export; the agent SDK drop-in is wave-agent.test.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { discovered, onWasi, tempTree } from './helpers.mjs'

const require = createRequire(import.meta.url)
const pkg = require('..')
const { RuleManager } = pkg
const ids = (rules) => rules.map((r) => r.id)

test('require() and import() expose the same class', async () => {
  const esm = await import('wave-memory-rules')
  assert.equal(esm.RuleManager, RuleManager)
  assert.equal(typeof RuleManager, 'function')
})

test('the root has one rule manager: MemoryRuleManager is only the agent SDK drop-in', async () => {
  const esm = await import('wave-memory-rules')
  assert.equal(pkg.MemoryRuleManager, undefined)
  assert.equal(esm.MemoryRuleManager, undefined)
  assert.equal(typeof require('wave-memory-rules/wave-agent').MemoryRuleManager, 'function')
})

test('rules have the agent SDK shape', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('frontend/react.md', '---\npaths: ["src/**/*.tsx"]\npriority: 3\ntopics: react\ndescription: React\n---\n\nUse hooks.\n')
  tree.project('plain.md', 'Always on.')
  tree.user('mine.md', '---\ntopics: [deploy]\n---\nAsk first.')
  const m = await discovered(tree)
  assert.deepEqual(m.getRules(), [
    {
      id: 'frontend/react.md',
      content: 'Use hooks.',
      metadata: { paths: ['src/**/*.tsx'], priority: 3, topics: ['react'], description: 'React' },
      source: 'project',
      filePath: path.join(tree.workdir, '.wave/rules/frontend/react.md'),
    },
    { id: 'plain.md', content: 'Always on.', metadata: {}, source: 'project', filePath: path.join(tree.workdir, '.wave/rules/plain.md') },
    { id: 'mine.md', content: 'Ask first.', metadata: { topics: ['deploy'] }, source: 'user', filePath: path.join(tree.homeDir, '.wave/rules/mine.md') },
  ])
  assert.deepEqual(m.getDiagnostics(), [])
})

test('getActiveRules and getActiveRulesSplit', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ts.md', '---\npaths: ["src/**/*.ts", "!**/*.test.ts"]\n---\nTS')
  tree.project('db.md', '---\ntopics: [customer, sql]\npriority: 9\n---\nDB')
  tree.project('always.md', 'Always')
  tree.user('always.md', 'user version, overridden')
  const m = await discovered(tree)
  assert.deepEqual(ids(m.getActiveRules([])), ['always.md'])
  assert.deepEqual(ids(m.getActiveRules(['src/a/b.ts'])), ['always.md', 'ts.md'])
  assert.deepEqual(ids(m.getActiveRules(['src/a.test.ts'])), ['always.md'])
  assert.deepEqual(ids(m.getActiveRules([path.join(tree.workdir, 'src', 'x.ts')], 'List Customers')), ['db.md', 'always.md', 'ts.md'])
  assert.deepEqual(ids(m.getActiveRules(['src\\win\\x.ts'], 'MySQL please')), ['always.md', 'ts.md'])
  const split = m.getActiveRulesSplit(['./src/x.ts'], 'the SQL')
  assert.deepEqual(ids(split.unconditional), ['always.md'])
  assert.deepEqual(ids(split.conditional), ['db.md', 'ts.md'])
  // The same rule object each time: nothing is converted per message.
  assert.equal(m.getActiveRules([])[0], m.getRules().find((r) => r.id === 'always.md'))
  const overridden = m.getDiagnostics().find((d) => d.code === 'overridden')
  assert.equal(overridden.severity, 'info')
  assert.equal(overridden.filePath, path.join(tree.homeDir, '.wave/rules/always.md'))
})

test('a broken rule is a diagnostic with file, line and column; the others load', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ok.md', '---\npaths: src/**\n---\nfine')
  tree.project('bad.md', '---\ndescription: x\npaths: [src/**\n---\nnever loaded')
  tree.project('lenient.md', '---\npaths: *.ts\n---\nunquoted glob')
  tree.project('ext.md', '---\npaths: "+(a|b).ts"\n---\nextglob')
  const m = await discovered(tree)
  assert.deepEqual(ids(m.getRules()), ['ext.md', 'lenient.md', 'ok.md'])
  const diags = m.getDiagnostics().map((d) => [path.basename(d.filePath), d.severity, d.code, d.line, d.column])
  assert.deepEqual(diags, [
    ['bad.md', 'error', 'yaml-syntax', 3, 8],
    ['ext.md', 'error', 'unsupported-glob', 2, 9],
    ['lenient.md', 'warning', 'unquoted-value', 2, 8],
  ])
  assert.deepEqual(ids(m.getActiveRules(['a.ts'])), ['lenient.md'])
})

// WASI: walkdir's loop check needs same-file, which has no WASI support, so the
// fallback reports a symlinked directory as unreadable (docs/platforms.md, "WebAssembly fallback").
test('symlinked rules load and a cycle is reported, not looped', { skip: onWasi && 'no same-file on WASI' }, async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.write(path.join(tree.root, 'team/security.md'), '---\ntopics: token\n---\nNo secrets.')
  tree.project('a.md', 'A')
  fs.symlinkSync(path.join(tree.root, 'team'), path.join(tree.workdir, '.wave/rules/team'))
  fs.symlinkSync(path.join(tree.workdir, '.wave/rules'), path.join(tree.workdir, '.wave/rules/loop'))
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, allowDirs: [path.join(tree.root, 'team')] })
  await m.discoverRules()
  assert.deepEqual(ids(m.getRules()), ['a.md', 'team/security.md'])
  const cycle = m.getDiagnostics().find((d) => d.code === 'symlink-cycle')
  assert.equal(cycle.severity, 'warning')
  assert.equal(cycle.filePath, path.join(tree.workdir, '.wave/rules/loop'))
})

test('reload sees added, changed and removed files', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const a = tree.project('a.md', '---\npaths: a/**\n---\nA1')
  const m = await discovered(tree)
  assert.deepEqual(ids(m.getActiveRules(['a/x'])), ['a.md'])
  fs.writeFileSync(a, '---\npaths: b/**\n---\nA2')
  tree.project('c.md', 'C')
  await m.reload()
  assert.deepEqual(ids(m.getActiveRules(['a/x'])), ['c.md'])
  assert.equal(m.getActiveRules(['b/x'])[0].content, 'A2')
  fs.rmSync(a)
  await m.reload()
  assert.deepEqual(ids(m.getRules()), ['c.md'])
})

test('a rule object read after reloads still gives its own text, not the new rule at its index', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const b = tree.project('b.md', 'B1')
  tree.project('c.md', 'C1')
  const m = await discovered(tree)
  const [oldB, oldC] = m.getRules()
  assert.equal(oldC.content, 'C1')
  // oldB not read yet; the rules change and an added rule takes index 0.
  fs.writeFileSync(b, 'B2, longer than before')
  tree.project('a.md', 'A1')
  assert.equal(await m.reload(), true)
  fs.rmSync(b)
  assert.equal(await m.reload(), true)
  assert.deepEqual(m.getRules().map((r) => [r.id, r.content]), [['a.md', 'A1'], ['c.md', 'C1']])
  assert.equal(oldB.content, 'B1')
  assert.equal(oldC.content, 'C1')
})

test('the content of a rule is an own enumerable property: keys, spread, JSON and assignment as before', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('a.md', '---\npaths: ["x/**"]\n---\nThe text.')
  const m = await discovered(tree)
  const [rule] = m.getRules()
  // Read from the engine when asked, not held by the object (the text lives once, in the core).
  assert.equal(typeof Object.getOwnPropertyDescriptor(rule, 'content').get, 'function')
  assert.deepEqual(Object.keys(rule), ['id', 'content', 'metadata', 'source', 'filePath'])
  assert.equal({ ...rule }.content, 'The text.')
  assert.equal(JSON.parse(JSON.stringify(rule)).content, 'The text.')
  assert.equal(structuredClone(rule).content, 'The text.')
  const [mine] = m.getRules()
  mine.content = 'Changed by the caller.'
  assert.equal(mine.content, 'Changed by the caller.')
  assert.deepEqual(Object.keys(mine), ['id', 'content', 'metadata', 'source', 'filePath'])
})

test('bad input to the per-message call never throws', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('all.md', '---\npaths: "**"\n---\nany file')
  tree.project('always.md', 'always')
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  assert.deepEqual(m.getActiveRules(['x']), [], 'before discovery: no rules, no throw')
  await m.discoverRules()
  for (const files of [undefined, null, 42, 'src/a.ts', {}, [null, 7, {}, 'ok.txt'], ['', '/', '..', '\u0000', 'é'.repeat(10000)]]) {
    assert.doesNotThrow(() => m.getActiveRules(files, 12), String(files))
    assert.doesNotThrow(() => m.getActiveRulesSplit(files, { prompt: 1 }), String(files))
  }
  assert.deepEqual(ids(m.getActiveRules([null, 7, 'ok.txt'])), ['all.md', 'always.md'])
  assert.deepEqual(ids(m.getActiveRules('src/a.ts')), ['always.md'])
})

test('constructor validates its options; homeDir defaults to the user home', async (t) => {
  assert.throws(() => new RuleManager({}), /workdir/)
  assert.throws(() => new RuleManager(), /workdir/)
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.user('from-home.md', 'found through os.homedir()')
  const script = `const { RuleManager } = require(${JSON.stringify(path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..'))});
    const m = new RuleManager({ workdir: ${JSON.stringify(tree.workdir)} });
    m.discoverRules().then(() => console.log(m.getRules().map((r) => r.id + ':' + r.source).join(',')))`
  const out = execFileSync(process.execPath, ['-e', script], { env: { ...process.env, HOME: tree.homeDir } }).toString().trim()
  assert.equal(out, 'from-home.md:user')
})

test('discovery is asynchronous: rules change only when the promise resolves', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  for (let i = 0; i < 400; i++) tree.project(`r${String(i).padStart(3, '0')}.md`, `---\npaths: "src/${i}/**"\ntopics: [kw${i}z]\n---\nrule ${i}`)
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  const pending = m.discoverRules()
  assert.equal(m.getRules().length, 0, 'rules change only when the promise resolves')
  await pending
  assert.equal(m.getRules().length, 400)
  assert.deepEqual(ids(m.getActiveRules(['src/7/a.ts'], 'see KW12z')), ['r007.md', 'r012.md'])
})

test('the engine-kept file list gives the same answers as a stateless call, whatever the sequence', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ts.md', '---\npaths: ["src/**/*.ts", "!**/*.test.ts"]\n---\nx')
  tree.project('md.md', '---\npaths: "**/*.md"\n---\nx')
  tree.project('lib.md', '---\npaths: "lib/*"\n---\nx')
  tree.project('db.md', '---\ntopics: sql\n---\nx')
  const m = await discovered(tree)
  const { RuleEngine } = require('../index.js')
  const engine = new RuleEngine({ workdir: tree.workdir, homeDir: tree.homeDir })
  await engine.discover()
  const rules = m.getRules().map((r) => r.id)
  const pool = ['src/a.ts', 'src/a.test.ts', 'README.md', 'lib/x', 'lib/y/z', 'other.txt', '', 'src/b.ts']
  let seed = 42
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n)
  let files = []
  for (let step = 0; step < 500; step++) {
    const op = rand(5)
    if (op === 0) files = [...files, pool[rand(pool.length)]] // grow
    else if (op === 1) files = files.slice(0, rand(files.length + 1)) // shrink
    else if (op === 2) files = files.map((f) => (rand(3) === 0 ? pool[rand(pool.length)] : f)) // replace some
    else if (op === 3) files = [...files].reverse() // reorder
    else files.push(pool[rand(pool.length)]) // mutate the same array in place
    const prompt = rand(2) ? 'write SQL' : undefined
    const want = Array.from(engine.active([...files], prompt), (i) => rules[i])
    assert.deepEqual(ids(m.getActiveRules(files, prompt)), want, `step ${step}: ${JSON.stringify(files)}`)
  }
})

test('the four default sources, later overriding earlier by id; .claude/rules at any depth', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const at = (base, rel, text) => tree.write(path.join(base, rel), text)
  at(tree.homeDir, '.claude/rules/all.md', 'user claude')
  at(tree.homeDir, '.wave/rules/all.md', 'user wave')
  at(tree.workdir, '.claude/rules/all.md', 'project claude')
  at(tree.workdir, '.wave/rules/all.md', 'project wave')
  at(tree.homeDir, '.claude/rules/user.md', 'user claude')
  at(tree.homeDir, '.wave/rules/user.md', 'user wave')
  at(tree.workdir, '.claude/rules/a/b/deep.md', '---\npaths: src/**\n---\nproject claude, deep')
  const m = await discovered(tree)
  const got = Object.fromEntries(m.getRules().map((r) => [r.id, `${r.source}:${r.content}`]))
  assert.deepEqual(got, { 'all.md': 'project:project wave', 'user.md': 'user:user wave', 'a/b/deep.md': 'project:project claude, deep' })
  const overridden = m.getDiagnostics().filter((d) => d.code === 'overridden').map((d) => path.relative(tree.root, d.filePath))
  assert.deepEqual(overridden, ['home/.claude/rules/all.md', 'home/.claude/rules/user.md', 'home/.wave/rules/all.md', 'work/.claude/rules/all.md'])
  assert.deepEqual(pkg.defaultSources(tree.workdir, tree.homeDir).map((s) => [path.relative(tree.root, s.dir), s.scope, s.depth]), [
    ['home/.claude/rules', 'user', 'any'],
    ['home/.wave/rules', 'user', 1],
    ['work/.claude/rules', 'project', 'any'],
    ['work/.wave/rules', 'project', 1],
  ])
})

test('sources: a given list, a function of the home, and a home resolved at each discovery', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.write(path.join(tree.root, 'team/flat.md'), 'team')
  tree.write(path.join(tree.root, 'team/sub/nested.md'), 'nested')
  tree.project('p.md', 'project')
  const team = { dir: path.join(tree.root, 'team'), scope: 'user', depth: 0 }
  const m = new RuleManager({ workdir: tree.workdir, sources: [team, { dir: '.wave/rules', scope: 'project' }] })
  await m.discoverRules()
  assert.deepEqual(ids(m.getRules()), ['p.md', 'flat.md'])
  assert.deepEqual(m.getDiagnostics().map((d) => d.code), ['too-deep'])

  // No homeDir: os.homedir() at every discovery, as the agent SDK does.
  const homes = [path.join(tree.root, 'h1'), path.join(tree.root, 'h2')]
  tree.write(path.join(homes[0], '.wave/rules/one.md'), 'first home')
  tree.write(path.join(homes[1], '.claude/rules/two.md'), 'second home')
  const saved = process.env.HOME
  t.after(() => (process.env.HOME = saved))
  const byHome = new RuleManager({ workdir: tree.workdir })
  process.env.HOME = homes[0]
  await byHome.discoverRules()
  assert.deepEqual(ids(byHome.getRules()), ['p.md', 'one.md'])
  process.env.HOME = homes[1]
  assert.equal(await byHome.reload(), true)
  assert.deepEqual(ids(byHome.getRules()), ['p.md', 'two.md'])

  const fn = new RuleManager({ workdir: tree.workdir, homeDir: homes[0], sources: ({ homeDir }) => [{ dir: path.join(homeDir, '.wave/rules'), scope: 'user' }] })
  await fn.discoverRules()
  assert.deepEqual(ids(fn.getRules()), ['one.md'])

  assert.throws(() => new RuleManager({ workdir: tree.workdir, sources: [{ dir: 'x', scope: 'team' }] }), /scope must be 'project' or 'user', not 'team'/)
  assert.throws(() => new RuleManager({ workdir: tree.workdir, sources: [{ dir: 'x', scope: 'user', depth: 'deep' }] }), /depth must be a number or 'any'/)
})

test('without sources, the manager reads the project\'s choice in .wave/config.toml, and leaves out what its agent loads by itself', async (t) => {
  const { RuleManager } = require('wave-memory-rules')
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.write(path.join(tree.workdir, '.cursor/rules/api.mdc'), '---\nalwaysApply: true\n---\nCursor rule.\n')
  tree.write(path.join(tree.workdir, 'AGENTS.md'), 'Agents file.\n')
  tree.write(path.join(tree.workdir, '.wave/config.toml'), 'sources = ["cursor", "agents-md"]\n')
  const all = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, findRoot: false })
  await all.discoverRules()
  assert.deepEqual(all.getRules().map((r) => r.content).sort(), ['Agents file.', 'Cursor rule.'])
  // opencode reads AGENTS.md itself: its manager leaves it out.
  const opencode = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, findRoot: false, agent: 'opencode' })
  await opencode.discoverRules()
  assert.deepEqual(opencode.getRules().map((r) => r.content), ['Cursor rule.'])
  // A config that names an unknown source: an error naming the file and line.
  tree.write(path.join(tree.workdir, '.wave/config.toml'), 'packs = []\nsources = ["cursr"]\n')
  assert.throws(() => new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir, findRoot: false }), /config\.toml:2:\d+: .*'cursr'.*did you mean 'cursor'/)
})
