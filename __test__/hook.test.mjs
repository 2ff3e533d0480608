// `wave-rules hook`: the Rust binary and `npx wave-rules` answer Claude
// Code's hook events with the same bytes, render exactly what the package's
// renderRules renders, never fail, and install into settings.json without
// touching anything else.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { tempTree, discovered } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const require = createRequire(import.meta.url)
const { renderRules, MemoryStore } = require('..')
const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const jsBin = path.join(root, 'bin/wave-rules.js')

const rust = rustBin()

/** Runs one hook event through `bin` (the Rust binary or the JS bin). */
function hook(bin, tree, event, input, extra = []) {
  const [cmd, args] = bin === 'js' ? [process.execPath, [jsBin]] : [rust, []]
  const r = spawnSync(cmd, [...args, 'hook', event, '--home', tree.homeDir, ...extra], {
    cwd: tree.workdir,
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, WAVE_RULES_STATE_DIR: path.join(tree.root, bin === 'js' ? 'state-js' : 'state-rust'), CLAUDE_PROJECT_DIR: '' },
  })
  return { stdout: r.stdout, stderr: r.stderr, status: r.status }
}
const context = (out) => (out.stdout ? JSON.parse(out.stdout).hookSpecificOutput.additionalContext : '')

function rules(tree) {
  tree.project('general.md', 'Keep functions small.\nTwo lines.')
  tree.project('db.md', '---\ntopics: [customer, sql]\npriority: 10\n---\nThe customer table is read-only.')
  tree.project('api/sql.md', '---\ntopics: sql\n---\nNo SELECT *.')
  tree.project('ts.md', '---\npaths: ["src/**/*.ts", "!**/*.test.ts"]\n---\nStrict TS.')
  tree.project('review.md', '---\npaths: src/**\nremind: every-turn\ndescription: Run tsc first.\n---\nRun `tsc --noEmit` before you finish.')
  tree.user('mine.md', 'User rule: terse answers.')
}

test('every event: the JS bin and the Rust binary print the same bytes, exit 0', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  tree.project('broken.md', '---\npaths: [src/**\n---\nbroken')
  const s = { session_id: 'sess-1', cwd: tree.workdir }
  const events = [
    ['SessionStart', { ...s, source: 'startup' }],
    ['UserPromptSubmit', { ...s, prompt: 'Fix the Customers SQL query' }],
    ['PostToolUse', { ...s, tool_name: 'Read', tool_input: { file_path: path.join(tree.workdir, 'src/app.ts') } }],
    ['PostToolUse', { ...s, tool_name: 'Edit', tool_input: { file_path: 'src/app.ts' } }],
    ['PostToolUse', { ...s, tool_name: 'Bash', tool_input: { command: 'ls' } }],
    ['Stop', { ...s, stop_hook_active: false }],
    ['Stop', { ...s, stop_hook_active: true }],
    ['SessionStart', { ...s, source: 'compact' }],
    ['UserPromptSubmit', '{not json'],
    ['Stop', ''],
  ]
  for (const [event, input] of events) {
    const a = hook('rust', tree, event, input)
    const b = hook('js', tree, event, input)
    assert.deepEqual(b, a, `${event} ${JSON.stringify(input)}`)
    assert.equal(a.status, 0)
    assert.ok(a.stderr.split('\n').filter(Boolean).length <= 1, `one stderr line at most: ${a.stderr}`)
  }
})

test('the hook renders byte for byte what renderRules renders', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  for (let i = 0; i < 30; i++) tree.project(`bulk/r${i}.md`, `---\ntopics: [customer]\npriority: ${i % 4}\n---\nRule ${i}: ${'ü'.repeat(i)} text.\nSecond line.`)
  const memory = new MemoryStore({ workdir: tree.workdir, homeDir: tree.homeDir })
  await memory.writeTopic('project', 'Staging DB', 'read-only; use the replica')
  const m = await discovered(tree)
  const s = { session_id: 'render', cwd: tree.workdir }

  // SessionStart with `--memory lines`: the always-on rules, then the first lines of memory.
  const start = context(hook('rust', tree, 'SessionStart', { ...s, source: 'startup' }, ['--memory', 'lines']))
  const always = m.getUnconditionalRules()
  assert.equal(start, renderRules(always, { maxBytes: 9000, memory: await memory.loadForPrompt({ maxLines: 120 }) }))
  assert.match(start, /## Project Memory/)
  // By default (recall): the always-on rules, then the index of topics.
  const recalled = context(hook('rust', tree, 'SessionStart', { ...s, session_id: 'render-recall', source: 'startup' }))
  assert.ok(recalled.startsWith(renderRules(always, { maxBytes: 9000 })), recalled)
  assert.match(recalled, /## Memory\n.*\n- project: Staging DB \(staging-db\.md, 1 note\)$/)

  // UserPromptSubmit: topic rules as MANDATORY, under budgets that leave rules out.
  const prompt = 'the customer SQL'
  const topic = m.getTopicRules(prompt)
  for (const budget of [[], ['--max-bytes', '600'], ['--max-lines', '9'], ['--max-lines', '3', '--max-bytes', '100000']]) {
    const got = context(hook('rust', tree, 'UserPromptSubmit', { ...s, prompt }, budget))
    const opts = { topicRuleIds: topic.map((r) => r.id), maxBytes: 9000 }
    for (let i = 0; i < budget.length; i += 2) opts[budget[i] === '--max-bytes' ? 'maxBytes' : 'maxLines'] = Number(budget[i + 1])
    assert.equal(got, renderRules(topic, opts), `budget ${budget.join(' ')}`)
    if (budget.length) assert.match(got, /\(left out to fit the budget: /, 'the budget left rules out')
  }
  assert.match(context(hook('rust', tree, 'UserPromptSubmit', { ...s, prompt })), /^=== MANDATORY RULES ===\n\[db.md\]/)
})

test('path rules once per session, created files included; compaction gives every active rule again', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  const s = { session_id: 'once', cwd: tree.workdir }
  const post = (tool, file) => context(hook('rust', tree, 'PostToolUse', { ...s, tool_name: tool, tool_input: { file_path: file } }))
  assert.equal(context(hook('rust', tree, 'SessionStart', { ...s, source: 'startup' })), '## Rules\n[general.md] Keep functions small.\nTwo lines.\n[mine.md] User rule: terse answers.')
  assert.equal(post('Write', path.join(tree.workdir, 'src/new.ts')), '## Rules\n[review.md] Run `tsc --noEmit` before you finish.\n[ts.md] Strict TS.')
  assert.equal(post('Read', 'src/other.ts'), '', 'once per session')
  assert.equal(post('Read', 'src/a.test.ts'), '', 'excluded by ! and review.md already given')
  assert.equal(post('Read', '/elsewhere/src/x.ts'), '', 'outside the workdir')
  const stop = JSON.parse(hook('rust', tree, 'Stop', { ...s, stop_hook_active: false }).stdout)
  assert.equal(stop.decision, 'block')
  assert.match(stop.reason, /\[review.md\] Run tsc first\./)
  assert.equal(hook('rust', tree, 'Stop', { ...s, stop_hook_active: true }).stdout, '', 'never a loop')
  assert.equal(
    context(hook('rust', tree, 'SessionStart', { ...s, source: 'compact' })),
    '## Rules\n[general.md] Keep functions small.\nTwo lines.\n[review.md] Run `tsc --noEmit` before you finish.\n[ts.md] Strict TS.\n[mine.md] User rule: terse answers.',
  )
  assert.equal(post('Read', 'src/other.ts'), '', 'given again by the compaction, not twice')
  // Another session starts from nothing.
  assert.match(context(hook('rust', tree, 'PostToolUse', { session_id: 'two', cwd: tree.workdir, tool_name: 'NotebookEdit', tool_input: { notebook_path: 'src/n.ts' } })), /\[ts.md\]/)
})

test('no rules: no output at all; an unreadable state file is one stderr line', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const s = { session_id: 'empty', cwd: tree.workdir }
  for (const [event, input] of [
    ['SessionStart', { ...s, source: 'startup' }],
    ['UserPromptSubmit', { ...s, prompt: 'customer' }],
    ['PostToolUse', { ...s, tool_name: 'Read', tool_input: { file_path: 'src/a.ts' } }],
    ['Stop', s],
  ]) {
    assert.deepEqual(hook('rust', tree, event, input), { stdout: '', stderr: '', status: 0 }, event)
  }
  rules(tree)
  const file = path.join(tree.root, 'state-rust/sessions/empty.json')
  fs.writeFileSync(file, '{"delivered": 12')
  const r = hook('rust', tree, 'Stop', { ...s, stop_hook_active: false })
  assert.equal(r.status, 0)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, /^wave-rules hook: .*empty\.json is unreadable/)
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1)
  const again = hook('rust', tree, 'UserPromptSubmit', { ...s, prompt: 'sql' })
  assert.match(context(again), /MANDATORY/, 'the session starts afresh')
})

test('hook install merges into settings.json, is idempotent, uninstall removes only ours', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  const file = path.join(tree.workdir, '.claude/settings.json')
  const local = path.join(tree.workdir, '.claude/settings.local.json')
  const mine = {
    permissions: { allow: ['Bash(npm test)'], deny: [] },
    zeta: 1,
    hooks: {
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter --fix' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    },
    alpha: { nested: { z: 1, a: 2 } },
  }
  tree.write(file, JSON.stringify(mine, null, 2) + '\n')
  // The package installed in the project: node_modules/.bin/wave-rules.
  fs.mkdirSync(path.join(tree.workdir, 'node_modules/.bin'), { recursive: true })
  fs.symlinkSync(rust, path.join(tree.workdir, 'node_modules/.bin/wave-rules'))
  const install = (bin, ...extra) => {
    const [cmd, args] = bin === 'js' ? [process.execPath, [jsBin]] : [rust, []]
    return spawnSync(cmd, [...args, 'hook', 'install', '--home', tree.homeDir, ...extra], { cwd: tree.workdir, encoding: 'utf8' })
  }
  const r = install('rust')
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /safe to commit: it names no path of this machine/)
  const text = fs.readFileSync(file, 'utf8')
  const settings = JSON.parse(text)
  assert.deepEqual(Object.keys(settings), ['permissions', 'zeta', 'hooks', 'alpha'], 'keys keep their order')
  assert.deepEqual(settings.alpha, mine.alpha)
  assert.equal(text.indexOf('"z"') < text.indexOf('"a": 2'), true, 'nested order kept')
  const commands = (s, event) => s.hooks[event].flatMap((g) => g.hooks.map((h) => h.command))
  const portable = (e) => `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules hook ${e}`
  assert.deepEqual(commands(settings, 'PostToolUse'), ['my-linter --fix', portable('PostToolUse')])
  assert.deepEqual(commands(settings, 'Stop'), ['notify-send done', portable('Stop')])
  assert.equal(settings.hooks.PostToolUse[1].matcher, 'Read|Edit|MultiEdit|Write|NotebookEdit|Bash|Skill')
  for (const e of ['SessionStart', 'UserPromptSubmit']) assert.deepEqual(commands(settings, e), [portable(e)])
  assert.ok(!text.includes(tree.root), 'no path of this machine')

  assert.match(install('rust').stdout, /already installed/)
  assert.equal(fs.readFileSync(file, 'utf8'), text, 'idempotent')
  // From npm, the same portable entries.
  assert.equal(install('js').status, 0)
  assert.equal(fs.readFileSync(file, 'utf8'), text, 'the npm bin writes the same')

  // Without the package in the project: this machine's program, in the
  // local settings file Claude Code keeps out of git; the shared file loses ours.
  fs.rmSync(path.join(tree.workdir, 'node_modules'), { recursive: true })
  const m = install('rust')
  assert.equal(m.status, 0, m.stderr)
  assert.match(m.stdout, /settings\.local\.json/)
  assert.match(m.stdout, /not for committing/)
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), mine)
  assert.deepEqual(commands(JSON.parse(fs.readFileSync(local, 'utf8')), 'Stop'), [`${rust} hook Stop`])
  const js = install('js')
  assert.equal(js.status, 0, js.stderr)
  assert.deepEqual(commands(JSON.parse(fs.readFileSync(local, 'utf8')), 'Stop'), [`${process.execPath} ${fs.realpathSync(jsBin)} hook Stop`])

  const u = spawnSync(rust, ['hook', 'uninstall', '--home', tree.homeDir], { cwd: tree.workdir, encoding: 'utf8' })
  assert.equal(u.status, 0, u.stderr)
  assert.match(u.stdout, /removed 8 wave-rules hooks from .*settings\.local\.json/)
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), mine)

  // A broken settings file is never overwritten.
  tree.write(local, '{"hooks": [1,')
  const bad = install('rust')
  assert.equal(bad.status, 1)
  assert.match(bad.stderr, /settings\.local\.json:1:\d+: not valid JSON/)
  assert.equal(fs.readFileSync(local, 'utf8'), '{"hooks": [1,')

  // --scope user writes ~/.claude/settings.json.
  assert.equal(install('rust', '--scope', 'user').status, 0)
  assert.ok(fs.existsSync(path.join(tree.homeDir, '.claude/settings.json')))
})

test('user-scope installs refuse to point into one project\'s node_modules', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  // A wave-rules inside some project's node_modules (a package.json above it).
  const other = path.join(tree.root, 'other-project')
  const inside = path.join(other, 'node_modules/wave-memory-rules/bin/wave-rules')
  fs.mkdirSync(path.dirname(inside), { recursive: true })
  fs.writeFileSync(path.join(other, 'package.json'), '{}')
  fs.copyFileSync(rust, inside)
  fs.chmodSync(inside, 0o755)
  for (const args of [['hook', 'install'], ['mcp', 'install', '--client', 'codex']]) {
    const r = spawnSync(inside, [...args, '--scope', 'user', '--home', tree.homeDir], { cwd: tree.workdir, encoding: 'utf8' })
    assert.equal(r.status, 1, r.stdout)
    assert.match(r.stderr, /node_modules of the project .*other-project/)
    assert.match(r.stderr, /npm install -g wave-memory-rules/)
  }
  assert.ok(!fs.existsSync(path.join(tree.homeDir, '.claude/settings.json')))
  assert.ok(!fs.existsSync(path.join(tree.homeDir, '.codex/config.toml')))
})

test('the compiled-rules cache: used while the stamps match, refreshed when a rule file changes', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  rules(tree)
  tree.project('broken.md', '---\npaths: [src/**\n---\nbroken')
  const old = new Date(Date.now() - 3600_000)
  const age = () => {
    for (const dir of [path.join(tree.workdir, '.wave/rules'), path.join(tree.homeDir, '.wave/rules')]) {
      for (const f of fs.readdirSync(dir, { recursive: true })) fs.utimesSync(path.join(dir, f), old, old)
    }
  }
  age()
  const s = { cwd: tree.workdir, prompt: 'customer' }
  let n = 0
  const ask = () => hook('rust', tree, 'UserPromptSubmit', { ...s, session_id: `c${n++}` })
  const first = ask()
  const cacheDir = path.join(tree.root, 'state-rust/rules')
  assert.equal(fs.readdirSync(cacheDir).length, 1, 'the cache was written')
  const second = ask()
  assert.deepEqual(second, first, 'same answer and the same stderr line from the cache')
  assert.match(second.stderr, /skipped 1 broken rule: \.wave\/rules\/broken\.md:2/)

  // Proof that the second run read the cache: a change that keeps size,
  // mtime and inode is not seen (as with git's index); any other change is.
  const db = path.join(tree.workdir, '.wave/rules/db.md')
  const text = fs.readFileSync(db, 'utf8')
  const fd = fs.openSync(db, 'r+')
  fs.writeSync(fd, text.replace('read-only', 'READ-ONLY'), 0)
  fs.closeSync(fd)
  fs.utimesSync(db, old, old)
  assert.match(context(ask()), /read-only/, 'served from the cache')
  fs.writeFileSync(db, text.replace('read-only.', 'read-only; ask first.'))
  assert.match(context(ask()), /read-only; ask first\./, 'a new stamp reloads')
  age()
  assert.match(context(ask()), /read-only; ask first\./)
  fs.rmSync(db)
  const gone = context(ask())
  assert.doesNotMatch(gone, /customer table/, 'a deleted rule is gone')
  assert.match(gone, /\[general\.md\]/, 'the others are still there')
  fs.writeFileSync(path.join(cacheDir, fs.readdirSync(cacheDir)[0]), '{garbage')
  tree.project('db.md', text)
  age()
  assert.match(context(ask()), /read-only/, 'a bad cache file is ignored')
})

test('rules Claude Code reads itself (.claude/rules) are not sent again, even when sources are chosen', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('general.md', 'Wave rule.')
  tree.write(path.join(tree.workdir, '.claude/rules/native.md'), 'Claude Code loads this one itself.')
  const s = { session_id: 'claude-native', cwd: tree.workdir, source: 'startup' }
  assert.equal(context(hook('rust', tree, 'SessionStart', s)), '## Rules\n[general.md] Wave rule.')
  // Chosen by hand, they would reach the model twice: still left out (the core's self_load table).
  const chosen = context(hook('rust', tree, 'SessionStart', s, ['--sources', 'claude,wave']))
  assert.doesNotMatch(chosen, /Claude Code loads this one itself\./)
  assert.match(chosen, /Wave rule\./)
})
