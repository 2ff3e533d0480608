// The snippets of README.md and docs/*.md, tested as a user would use them.
//
// - ```ts / ```typescript: compiled, all in one `tsc --noEmit` run, in a temp
//   project whose node_modules/wave-memory-rules links to this repository
//   (its built dist/ and index.d.ts) and whose other node_modules entries link
//   to the repository's (the SDK packages and their types). An error names the
//   Markdown file and line.
// - ```sh / ```bash / ```shell: run with `bash -e -o pipefail` in a temp copy of
//   examples/project (with the package in its node_modules and its bins on
//   PATH, HOME a temp directory, npm offline), and must exit 0, or N with
//   the flag `exit=N` in the info string.
// - ```js / ```mjs / ```javascript: syntax-checked (`node --check`), then run
//   the same way.
// - A block that cannot run offline says why: ```sh no-run <reason> (printed
//   here); a JS block marked so is still syntax-checked.
//
// Also: docs/limits.md names every limit constant of the Rust crates, and every
// relative link leads to a file and heading that exist.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DOCS = ['README.md', ...fs.readdirSync(path.join(repo, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]

const TS = new Set(['ts', 'typescript'])
const SH = new Set(['sh', 'bash', 'shell'])
const JS = new Set(['js', 'mjs', 'javascript'])
/** Bounds: one snippet's process, and the one tsc run over every TS snippet. */
const SNIPPET_TIMEOUT_MS = 60_000
const TSC_TIMEOUT_MS = 300_000
const runnable = (lang) => TS.has(lang) || SH.has(lang) || JS.has(lang)

/**
 * The fenced code blocks of a Markdown text: `{ file, line, lang, noRun, exit, code, problem }`,
 * `line` being the fence's line (1-based), so line `l` of `code` is line `line + l` of the file.
 */
function snippetsOf(text, file) {
  const lines = text.split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, info] = open
    const body = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j])
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j])
    }
    const [lang = '', ...rest] = info.trim().split(/\s+/)
    const snippet = { file, line: i + 1, lang: lang.toLowerCase(), noRun: null, exit: 0, code: body.join('\n'), problem: null }
    out.push(snippet)
    i = j
    // The info string of a block this test does not run (```text, ```json title=x, ...) is not ours to read.
    if (!runnable(snippet.lang)) continue
    const flags = rest.join(' ')
    const noRun = /(?:^|\s)no-run(?:\s+(.*))?$/.exec(flags)
    if (noRun) {
      snippet.noRun = (noRun[1] ?? '').trim()
      if (snippet.noRun === '') snippet.problem = 'no-run without a reason (write ```sh no-run <why it cannot run offline>)'
    }
    for (const flag of (noRun ? flags.slice(0, noRun.index) : flags).split(/\s+/).filter(Boolean)) {
      const exit = /^exit=(\d+)$/.exec(flag)
      if (exit) snippet.exit = Number(exit[1])
      else snippet.problem = `unknown flag '${flag}' in the info string (known: exit=N, no-run <reason>)`
    }
  }
  return out
}

const where = (s, l = 0) => `${s.file}:${s.line + l}`

/**
 * The shell snippets are POSIX shell: they run where bash is (not on Windows,
 * not in the Alpine image, which has busybox only); the reason otherwise.
 */
const noShell =
  process.platform === 'win32'
    ? 'the shell snippets are POSIX shell (they run on Linux and macOS)'
    : spawnSync('bash', ['-c', 'true']).status !== 0 && 'no bash on this host'

/** Links `node_modules/*` of the repository into `dir/node_modules`, and this package as wave-memory-rules (with its bins, `bins`). */
function linkModules(dir, bins = false) {
  const modules = path.join(dir, 'node_modules')
  fs.mkdirSync(path.join(modules, '.bin'), { recursive: true })
  // Junctions on Windows (no privilege needed); the type is ignored elsewhere.
  const link = (target, at) => fs.symlinkSync(target, at, 'junction')
  for (const name of fs.readdirSync(path.join(repo, 'node_modules'))) {
    if (name.startsWith('.') || name === 'wave-memory-rules') continue
    link(path.join(repo, 'node_modules', name), path.join(modules, name))
  }
  link(repo, path.join(modules, 'wave-memory-rules'))
  if (!bins) return modules
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
  const named = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : pkg.bin ?? {}
  for (const [name, file] of Object.entries(named)) {
    fs.symlinkSync(path.join('..', 'wave-memory-rules', file), path.join(modules, '.bin', name))
  }
  return modules
}

/** Compiles TS snippets in one tsc run under `dir`; returns the errors, each naming its Markdown file and line. */
function compileSnippets(snippets, dir) {
  fs.mkdirSync(path.join(dir, 'snippets'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'docs-snippets', private: true, type: 'module' }))
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['snippets/*.ts'],
    }),
  )
  if (!fs.existsSync(path.join(dir, 'node_modules'))) linkModules(dir)
  const byName = new Map()
  snippets.forEach((s, n) => {
    const name = `s${n}-${s.file.replace(/[^A-Za-z0-9]+/g, '_')}-L${s.line}.ts`
    byName.set(`snippets/${name}`, s)
    // `export {}` after the last line: every snippet is a module of its own (line numbers unchanged).
    fs.writeFileSync(path.join(dir, 'snippets', name), `${s.code}\nexport {}\n`)
  })
  const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { cwd: dir, encoding: 'utf8', timeout: TSC_TIMEOUT_MS })
  if (r.error) throw r.error
  const errors = []
  for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
    const m = /^(snippets\/[^(]+)\((\d+),(\d+)\): (.*)$/.exec(line)
    if (m && byName.has(m[1])) errors.push(`${where(byName.get(m[1]), Number(m[2]))}:${m[3]}: ${m[4]}`)
    else if (line.trim() !== '' && !/^\s/.test(line)) errors.push(line)
    else if (line.trim() !== '' && errors.length > 0) errors[errors.length - 1] += `\n${line}`
  }
  if (r.status !== 0 && errors.length === 0) errors.push(`tsc exited ${r.status} with no error line`)
  return errors
}

/**
 * A fresh copy of examples/ (so examples/project's link to ../../../team-rules
 * holds) with the package installed in the project, and an empty HOME.
 */
function sandbox(base) {
  fs.mkdirSync(base, { recursive: true })
  const examples = path.join(base, 'examples')
  fs.cpSync(path.join(repo, 'examples'), examples, { recursive: true, verbatimSymlinks: true })
  const project = path.join(examples, 'project')
  const modules = path.join(base, 'modules')
  fs.mkdirSync(modules)
  fs.symlinkSync(linkModules(modules, true), path.join(project, 'node_modules'))
  const home = path.join(base, 'home')
  fs.mkdirSync(home)
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k]
  Object.assign(env, {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_yes: 'false',
    NO_COLOR: '1',
    PATH: `${path.join(project, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
  })
  delete env.WAVE_RULES_STATE_DIR
  return { project, env }
}

/** Runs one sh or JS snippet in a fresh sandbox under `base`; returns a failure message or null. */
function runSnippet(s, base) {
  const { project, env } = sandbox(base)
  const run = (cmd, args) => spawnSync(cmd, args, { cwd: project, env, encoding: 'utf8', timeout: SNIPPET_TIMEOUT_MS })
  let r
  if (JS.has(s.lang)) {
    // In the project, as a user's file would be (so the package resolves from its node_modules).
    const file = path.join(project, /^\s*(import|export)\b/m.test(s.code) ? 'snippet.mjs' : 'snippet.cjs')
    fs.writeFileSync(file, `${s.code}\n`)
    r = run(process.execPath, ['--check', file])
    if (r.status === 0 && s.noRun === null) r = run(process.execPath, [file])
  } else {
    r = run('bash', ['-e', '-o', 'pipefail', '-c', s.code])
  }
  if (r.error) return `${where(s)}: ${s.lang} snippet: ${r.error.message}`
  if (s.noRun !== null) return r.status === 0 ? null : `${where(s)}: the js snippet does not parse:\n${r.stderr}`
  const out = (t) => t.trim().split('\n').slice(-20).join('\n')
  // An expected failure must be the command's own, not npm's (`npx` offline without the package exits 1 too).
  if (r.status === s.exit && !(s.exit !== 0 && /^npm (ERR!|error)/m.test(r.stderr))) return null
  return `${where(s)}: the ${s.lang} snippet exited ${r.status ?? r.signal} (expected ${s.exit}${r.status === s.exit ? ', from the program, not from npm' : ''})\n--- stdout ---\n${out(r.stdout)}\n--- stderr ---\n${out(r.stderr)}`
}

const all = DOCS.flatMap((f) => snippetsOf(fs.readFileSync(path.join(repo, f), 'utf8'), f))
const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'docs-snippets-'))

test('every ts, sh and js block of README.md and docs/ has a valid info string', () => {
  const problems = all.filter((s) => s.problem).map((s) => `${where(s)}: ${s.problem}`)
  assert.deepEqual(problems, [])
  assert.ok(all.filter((s) => TS.has(s.lang)).length >= 5, 'the README and docs/ hold TypeScript snippets')
})

test('every TypeScript snippet of README.md and docs/ compiles against the built package', { timeout: TSC_TIMEOUT_MS + 10_000 }, (t) => {
  assert.ok(fs.existsSync(path.join(repo, 'dist', 'index.d.ts')), 'dist/ is not built: run `npm run build` (or `npx tsc -p ts`) first')
  for (const s of all.filter((s) => TS.has(s.lang) && s.noRun !== null)) t.diagnostic(`not compiled: ${where(s)}: ${s.noRun}`)
  const dir = temp()
  try {
    const errors = compileSnippets(all.filter((s) => TS.has(s.lang) && s.noRun === null), dir)
    assert.equal(errors.length, 0, `TypeScript snippets that do not compile:\n${errors.join('\n')}`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('every shell and JavaScript snippet of README.md and docs/ runs offline in a copy of examples/project', { timeout: 20 * 60_000, skip: noShell }, (t) => {
  const blocks = all.filter((s) => (SH.has(s.lang) || JS.has(s.lang)) && !s.problem)
  const dir = temp()
  const failures = []
  try {
    blocks.forEach((s, n) => {
      if (s.noRun !== null && SH.has(s.lang)) {
        t.diagnostic(`not run: ${where(s)} (${s.lang}): ${s.noRun}`)
        return
      }
      if (s.noRun !== null) t.diagnostic(`syntax-checked only: ${where(s)} (${s.lang}): ${s.noRun}`)
      const failure = runSnippet(s, path.join(dir, String(n)))
      if (failure) failures.push(failure)
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  assert.equal(failures.length, 0, failures.join('\n\n'))
  assert.ok(blocks.some((s) => s.noRun === null), 'some shell snippets run')
})

test('the snippet checks name the Markdown line of a broken snippet', { timeout: TSC_TIMEOUT_MS + 10_000 }, () => {
  const md = [
    '# A page',
    '',
    '```ts',
    "import { RuleManager } from 'wave-memory-rules'",
    "const rules = new RuleManager({ workdir: 42 })",
    '```',
    '',
    '```sh',
    'true',
    'false',
    '```',
    '',
    '```sh exit=3',
    'exit 3',
    '```',
    '',
    '```sh no-run',
    '```',
  ].join('\n')
  const snippets = snippetsOf(md, 'docs/page.md')
  assert.deepEqual(
    snippets.map((s) => [s.line, s.lang, s.exit, s.noRun]),
    [
      [3, 'ts', 0, null],
      [8, 'sh', 0, null],
      [13, 'sh', 3, null],
      [17, 'sh', 0, ''],
    ],
  )
  assert.match(snippets[3].problem, /no-run without a reason/)
  const dir = temp()
  try {
    const errors = compileSnippets([snippets[0]], path.join(dir, 'ts'))
    assert.equal(errors.length, 1, errors.join('\n'))
    assert.match(errors[0], /^docs\/page\.md:5:\d+: error TS2322: /)
    if (!noShell) {
      assert.match(runSnippet(snippets[1], path.join(dir, 'a')) ?? '', /^docs\/page\.md:8: the sh snippet exited 1 \(expected 0\)/)
      assert.equal(runSnippet(snippets[2], path.join(dir, 'b')), null)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('every limit constant of the Rust crates is in limits.rs and named in docs/limits.md', () => {
  const limits = fs.readFileSync(path.join(repo, 'docs', 'limits.md'), 'utf8')
  const rsFiles = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name)
      return e.isDirectory() ? rsFiles(p) : e.name.endsWith('.rs') ? [p] : []
    })
  const missing = []
  for (const crate of fs.readdirSync(path.join(repo, 'crates'))) {
    const src = path.join(repo, 'crates', crate, 'src')
    if (!fs.existsSync(src)) continue
    for (const file of rsFiles(src)) {
      const text = fs.readFileSync(file, 'utf8')
      const everyConst = path.basename(file) === 'limits.rs'
      for (const m of text.matchAll(/^\s*(?:pub(?:\([a-z]+\))?\s+)?const\s+([A-Z][A-Z0-9_]*)\s*:/gm)) {
        const name = m[1]
        if ((everyConst || name.startsWith('MAX_')) && !limits.includes(`\`${name}\``)) {
          missing.push(`${path.relative(repo, file)}: ${name}`)
        }
        // One set of limits: a limit is defined in limits.rs, nowhere else.
        if (!everyConst && name.startsWith('MAX_')) missing.push(`${path.relative(repo, file)}: ${name} is defined outside limits.rs`)
      }
    }
  }
  assert.deepEqual(missing, [], 'limits not named in docs/limits.md (add a row with the constant in backquotes)')
})

/** Pages other branches write; a link to one is checked once it exists. */
const PENDING_PAGES = new Set(['docs/cli.md', 'docs/install.md', 'docs/agents.md', 'docs/export.md'])

/** GitHub's heading anchors of a Markdown text (outside code blocks). */
function anchorsOf(text) {
  const seen = new Map()
  const anchors = new Set()
  let fence = null
  for (const line of text.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)
    if (f) fence = fence === null ? f[1][0] : f[1][0] === fence ? null : fence
    const h = fence === null && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!h) continue
    const base = h[1].toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

test('every relative link of README.md and docs/ leads to a file and heading that exist', (t) => {
  const broken = []
  for (const file of DOCS) {
    const text = fs.readFileSync(path.join(repo, file), 'utf8')
      // Code is not a link: blocks become their newlines (lines keep their numbers), inline code goes.
      .replace(/^\s*(```|~~~)[\s\S]*?^\s*\1.*$/gm, (block) => block.replace(/[^\n]/g, ''))
      .replace(/`[^`\n]*`/g, '')
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]
      if (/^[a-z]+:/i.test(link)) continue
      const [target, anchor] = link.split('#')
      const resolved = target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target))
      const line = text.slice(0, m.index).split('\n').length
      if (!fs.existsSync(path.join(repo, resolved))) {
        if (PENDING_PAGES.has(resolved)) t.diagnostic(`${file}: links ${resolved}, written on another branch`)
        else broken.push(`${file}:${line}: ${link}: no such file`)
        continue
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(path.join(repo, resolved), 'utf8')).has(anchor)) {
        broken.push(`${file}:${line}: ${link}: no heading '#${anchor}' in ${resolved}`)
      }
    }
  }
  assert.deepEqual(broken, [])
})
