// Every file path README.md and docs/*.md name exists in this repository.
//
// What counts as a path of this repository (outside fenced code blocks, which
// hold commands and a user's example trees):
// - a code span (`crates/wave-rules/tests/cli.rs`) or a bare word in prose
//   (bench/report-tree.mjs) whose first segment is a top-level entry of the
//   repository (crates, docs, bench, scripts, ts, src, .ci, package.json, ...);
//   a `#anchor` or `:line` after it is dropped;
// - a relative Markdown link ([limits.md](limits.md)), from the doc's folder
//   (docs-snippets.test.mjs checks the headings links name);
// - a source file named from inside its crate or folder (`load/fresh.rs`,
//   `hook/watch.rs`: a code span with a folder and a .rs/.ts/.mjs/.js/.sh
//   name, beginning like nothing at the top): some file of the repository must
//   end with it.
// Not checked: spans with glob or placeholder characters (`src/**/*.ts`,
// `<state dir>/rules`), and paths that begin like nothing here: the files users
// create (`.wave/rules/x.md`, `~/.claude/rules`, `AGENTS.md` in their project).
// ALLOWED lists the few paths of a user's project or another repository that
// begin like one of ours (`src/api`, `.github/instructions/`), each with why.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DOCS = ['README.md', ...fs.readdirSync(path.join(repo, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
const IGNORED_TOP = new Set(['.git', 'node_modules', 'target', 'dist'])
const TOP = new Set(fs.readdirSync(repo).filter((n) => !IGNORED_TOP.has(n)))

/** Paths (or, ending in `/`, prefixes) that name a user's files or another repository's. */
const ALLOWED = new Map([
  ['.github/', "an agent's files in a user's project (Copilot instructions, hooks, skills, AGENTS.md)"],
  ['src/api', "the example project's folder in the CLI's walkthrough (a user's tree)"],
  ['src/db/pool.rs', "a user's file in docs/memory.md's example"],
  ['crates/biome_configuration', "a folder of biome's repository (the memory bench's example)"],
  ['bin/claude.exe', "Claude Code's own binary in its npm package"],
  ['tools/call', 'an MCP method, not a path'],
  ['docs/hooks.md', "a file of github.com/aws/amazon-q-developer-cli (Kiro's hook docs)"],
  ['src/proto', "a folder deep in another project's tree (docs/memory.md's retrieval examples)"],
  ['src/Text/Pandoc/Writers/Docx.hs', "a file of jgm/pandoc (docs/memory.md's dotted-module example)"],
  ['dist/extension.js', "a file inside the VS Code extension's .vsix (built by npm run package:vscode, not committed)"],
])

const allowed = (p) => [...ALLOWED.keys()].some((a) => (a.endsWith('/') ? p.startsWith(a) : p === a))
const PLACEHOLDER = /[*?{}<>$[\]|]|\.\.\./
// A bare path in prose: a top-level folder of ours, then segments.
const BARE = /(?<![\w./~@-])([\w.-]+\/[\w./@-]*[\w@-])/g
const SPAN = /`([^`\n]+)`/g
const LINK = /\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g
const SOURCE = /^[\w-]+(\/[\w.-]+)+\.(rs|ts|mjs|js|cjs|sh)$/
const SKIPPED_WALK = new Set([...IGNORED_TOP, 'node_modules'])

/** Every file of the repository (built outputs and dependencies left out), by path. */
function repoFiles(dir = repo, rel = '', out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_WALK.has(e.name)) continue
    const p = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) repoFiles(path.join(dir, e.name), p, out)
    else out.push(p)
  }
  return out
}

/** A candidate's path in the repository, or null when it is not one of ours. */
function repoPath(raw) {
  const p = raw.trim().replace(/[#:].*$/, '').replace(/^\.\//, '').replace(/\/$/, '')
  if (!p || /\s/.test(p) || PLACEHOLDER.test(p) || /^[a-z]+:\/\//i.test(raw)) return null
  if (!TOP.has(p.split('/')[0]) || (!p.includes('/') && !TOP.has(p))) return null
  return p
}

/** A source file named from inside its folder (`hook/watch.rs`), or null. */
function tailPath(raw) {
  const p = raw.trim().replace(/:\d+$/, '')
  return SOURCE.test(p) && !TOP.has(p.split('/')[0]) ? p : null
}

/** The repository paths a Markdown text names: `{ line, path, kind }`. */
export function pathsOf(text, file) {
  const out = []
  let fence = null
  text.split('\n').forEach((line, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)
    if (open && (fence === null || open[1][0] === fence[0])) {
      fence = fence === null ? open[1] : null
      return
    }
    if (fence !== null) return
    const add = (kind, p) => p && out.push({ line: i + 1, path: p, kind })
    for (const m of line.matchAll(SPAN)) {
      add('code', repoPath(m[1]))
      add('tail', tailPath(m[1]))
    }
    const prose = line.replace(SPAN, ' ')
    for (const m of prose.matchAll(LINK)) {
      if (!/^[a-z]+:/i.test(m[1])) add('link', path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])))
    }
    for (const m of prose.replace(LINK, ' ').matchAll(BARE)) add('prose', repoPath(m[1]))
  })
  return out
}

test('the path finder takes code spans, prose paths and links, and leaves out fences, patterns and user files', () => {
  const md = [
    'See `crates/wave-rules/tests/cli.rs:12` and bench/lsp.mjs, [limits](limits.md#links).',
    '`.wave/rules/x.md`, `src/**/*.ts`, `<state dir>/rules`, https://example.com/docs/x.md',
    '```sh',
    'node crates/nowhere.mjs',
    '```',
    '`package.json` and `docs/` and [home](../README.md), `load/fresh.rs:3` and `.opencode/x.js`',
  ].join('\n')
  assert.deepEqual(pathsOf(md, 'docs/x.md'), [
    { line: 1, path: 'crates/wave-rules/tests/cli.rs', kind: 'code' },
    { line: 1, path: 'docs/limits.md', kind: 'link' },
    { line: 1, path: 'bench/lsp.mjs', kind: 'prose' },
    { line: 6, path: 'package.json', kind: 'code' },
    { line: 6, path: 'docs', kind: 'code' },
    { line: 6, path: 'load/fresh.rs', kind: 'tail' },
    { line: 6, path: 'README.md', kind: 'link' },
  ])
})

test('every file path README.md and docs/*.md name exists in the repository', () => {
  const files = repoFiles()
  const exists = (p, kind) => (kind === 'tail' ? files.some((f) => f.endsWith(`/${p}`)) : fs.existsSync(path.join(repo, p)))
  const dead = []
  let checked = 0
  for (const file of DOCS) {
    for (const { line, path: p, kind } of pathsOf(fs.readFileSync(path.join(repo, file), 'utf8'), file)) {
      if (allowed(p)) continue
      checked++
      if (!exists(p, kind)) dead.push(`${file}:${line}: ${p} (${kind === 'tail' ? 'no file ends with it' : kind}) does not exist`)
    }
  }
  assert.ok(checked > 100, `only ${checked} paths found: the finder is broken`)
  assert.deepEqual(dead, [], `dead paths in the docs (fix them, or add a user's path to ALLOWED with why):\n${dead.join('\n')}`)
})

test('every allowed path is still named by a doc and names nothing of ours', () => {
  const named = new Set(DOCS.flatMap((f) => pathsOf(fs.readFileSync(path.join(repo, f), 'utf8'), f).map((x) => x.path)))
  for (const a of ALLOWED.keys()) {
    if (a.endsWith('/')) continue
    assert.ok(named.has(a), `ALLOWED has '${a}', which no doc names any more: remove it`)
    assert.ok(!fs.existsSync(path.join(repo, a)), `ALLOWED has '${a}', which exists here: check it like any other path`)
  }
})
