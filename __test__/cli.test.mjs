// `npx wave-rules` (the JS bin over the addon) prints exactly what the Rust
// binary prints, with the same exit code, for every subcommand.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { onWasi, tempTree } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const jsBin = path.join(root, 'bin/wave-rules.js')


const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' })
  return { stdout: r.stdout, stderr: r.stderr, status: r.status }
}

test('the JS bin and the Rust binary give identical output and exit codes', async (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ts.md', '---\npaths: ["src/**/*.ts", "!**/*.test.ts"]\ntopics: typescript\n---\nStrict TS.')
  tree.project('broken.md', '---\npaths: [src/**\n---\nbroken')
  tree.project('cursor.md', '---\nglobs: *.md\nalwaysApply: false\n---\nCursor rule')
  tree.user('mine.md', 'Mine.')
  const rust = rustBin()
  const home = ['--home', tree.homeDir]
  const cases = [
    ['validate', ...home],
    ['validate', '--strict', '--format', 'github', ...home],
    ['validate', '--json', ...home],
    ['validate', 'missing.md', ...home],
    ['list', ...home],
    ['list', '--json', ...home],
    ['match', '--all', '--prompt', 'TypeScript please', 'src/a.test.ts', 'src/b.ts', '../x.ts', ...home],
    ['match', '--json', 'src/b.ts', ...home],
    ['add', 'no trigger given', ...home],
    ['remove', '../escape', ...home],
    ['remove', 'nope', ...home],
    ['validate', '--format', 'nope', ...home],
    ['report', ...home],
    ['report', '--json', ...home],
    ['report', '--check', '1', ...home],
    ['log', ...home],
    ['log', '--all', '--json', ...home],
    ['--help'],
  ]
  for (const args of cases) {
    const a = run(rust, args, tree.workdir)
    const b = run(process.execPath, [jsBin, ...args], tree.workdir)
    // WASI numbers its errors its own way ("os error 44" is ENOENT there).
    if (onWasi) for (const r of [a, b]) r.stderr = r.stderr.replace(/\(os error \d+\)/g, '(os error N)')
    assert.deepEqual(b, a, `wave-rules ${args.join(' ')}`)
  }
  // add and remove change the tree: run each once per implementation.
  const addArgs = (text) => ['add', '--topics', 'customer,sql', '--paths', 'db/**', text, ...home]
  const a = run(rust, addArgs('The customer table is read-only'), tree.workdir)
  const b = run(process.execPath, [jsBin, ...addArgs('The customer table is read-only!')], tree.workdir)
  assert.equal(a.status, 0, a.stderr)
  assert.equal(b.stdout, a.stdout.replaceAll('read-only.md', 'read-only-2.md'))
  const written = (id) => fs.readFileSync(path.join(tree.workdir, '.wave/rules', id), 'utf8')
  assert.equal(written('the-customer-table-is-read-only-2.md'), written('the-customer-table-is-read-only.md').replace('read-only\n', 'read-only!\n'))
  // The same rule again: both say it is there and write nothing.
  const again = addArgs('The customer table is read-only')
  assert.deepEqual(run(process.execPath, [jsBin, ...again], tree.workdir), run(rust, again, tree.workdir))
  const r1 = run(rust, ['remove', 'the-customer-table-is-read-only', ...home], tree.workdir)
  const r2 = run(process.execPath, [jsBin, 'remove', 'the-customer-table-is-read-only-2', ...home], tree.workdir)
  assert.equal(r1.status, 0)
  assert.equal(r2.stdout, r1.stdout.replaceAll('read-only.md', 'read-only-2.md'))
})

test('the bin exits with the CLI exit code', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('bad.md', '---\npriority: high\n---\nx')
  const r = run(process.execPath, [jsBin, 'validate', '--home', tree.homeDir], tree.workdir)
  assert.equal(r.status, 1)
  assert.match(r.stdout, /^\.wave\/rules\/bad\.md:2:1: error\[invalid-field\]: 'priority' must be an integer, not "high"; using 0\n  2 \| priority: high\n/)
})
