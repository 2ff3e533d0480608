// A generated repository for `wave-rules report`: FILES empty files in a
// monorepo's shape (packages with src, tests and docs, apps, crates, a few
// hidden folders, a .gitignore'd build output) and RULES rules in
// .wave/rules (path rules of the shapes real rule sets use, topic rules,
// always-on rules, a few on request). Deterministic for a given size.
//
//   node bench/report-tree.mjs DIR [FILES=100000] [RULES=500]
//
// Also imported by __test__/report.test.mjs (`makeTree`).
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

function rng(seed) {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >> 17
    s ^= s << 5
    s >>>= 0
    return s / 0x100000000
  }
}

const WORDS = ['auth', 'billing', 'cache', 'config', 'core', 'db', 'editor', 'events', 'files', 'graph', 'http', 'i18n', 'jobs', 'kernel', 'layout', 'mail', 'metrics', 'net', 'parser', 'queue', 'render', 'router', 'search', 'session', 'storage', 'sync', 'theme', 'ui', 'upload', 'worker']
const EXTS = ['ts', 'ts', 'ts', 'tsx', 'js', 'rs', 'md', 'json', 'py', 'css']

/** The relative paths of `n` files, about six to a folder (rolldown's
 * 14,061 files are in 4,229 folders). */
export function makePaths(n) {
  const rand = rng(n)
  const pick = (a) => a[Math.floor(rand() * a.length)]
  const out = new Set()
  const top = ['README.md', 'package.json', 'Cargo.toml', '.gitignore', '.editorconfig', '.github/workflows/ci.yml', '.github/CODEOWNERS', '.vscode/settings.json']
  for (const t of top) if (out.size < n) out.add(t)
  // The folders first: packages, apps, crates, tools and docs, each with
  // its areas and a few levels below.
  const folders = []
  const roots = ['packages', 'packages', 'packages', 'apps', 'crates', 'tools', 'docs']
  const want = Math.max(1, Math.ceil(n / 6))
  for (let guard = 0; folders.length < want && guard < want * 20; guard++) {
    const root = pick(roots)
    const unit = `${pick(WORDS)}-${Math.floor(rand() * Math.max(2, Math.sqrt(want) / 3))}`
    const area = root === 'docs' ? 'guide' : pick(['src', 'src', 'src', 'tests', 'docs', 'src/lib', 'src/components', 'benches', 'scripts'])
    const dirs = [root, unit, area]
    for (let d = 0, depth = Math.floor(rand() * 3); d < depth; d++) dirs.push(pick(WORDS))
    folders.push(dirs.join('/'))
  }
  for (let guard = 0; out.size < n && guard < n * 20; guard++) {
    const dir = pick(folders)
    const area = dir.split('/')[2]
    const ext = area === 'docs' || area === 'guide' ? 'md' : dir.startsWith('crates/') ? pick(['rs', 'rs', 'toml', 'md']) : pick(EXTS)
    out.add(`${dir}/${pick(WORDS)}${Math.floor(rand() * 60)}${area === 'tests' ? '.test' : ''}.${ext}`)
  }
  return [...out].sort()
}

/** `n` rules over the folders of `paths`: `{ id, text }`. */
export function makeRules(n, paths) {
  const rand = rng(n + 7)
  const pick = (a) => a[Math.floor(rand() * a.length)]
  const two = [...new Set(paths.map((p) => p.split('/').slice(0, 2).join('/')).filter((d) => d.split('/').length === 2 && !d.includes('.')))]
  const three = [...new Set(paths.map((p) => p.split('/').slice(0, 3).join('/')).filter((d) => d.split('/').length === 3 && !/\.\w+$/.test(d)))]
  const templates = [
    () => [`${pick(two)}/**`],
    () => [`${pick(three)}/**/*.${pick(EXTS)}`],
    () => [`packages/*/tests/**/*.test.ts`],
    () => [`${pick(two)}/**/*.{ts,tsx}`, `!**/*.test.ts`],
    () => [`**/*.${pick(['py', 'css', 'rs'])}`],
    () => [`${pick(three)}/**`],
    () => [`docs/${pick(WORDS)}-*/**/*.md`],
    () => [`legacy/${pick(WORDS)}/**`],
  ]
  const rules = []
  for (let i = 0; i < n; i++) {
    const kind = rand()
    const lines = ['---']
    if (kind < 0.03) {
      // always-on
    } else if (kind < 0.05) {
      lines.push(`description: ${pick(WORDS)} reference, read when working on it`, 'activation: on-request')
    } else if (kind < 0.8) {
      lines.push('paths:', ...pick(templates)().map((p) => `  - "${p}"`))
    } else {
      lines.push(`topics: [${pick(WORDS)}, ${pick(WORDS)}-${i % 11}]`)
    }
    lines.push(`priority: ${Math.floor(rand() * 5)}`, '---')
    const body = [`Rule ${i}: the ${pick(WORDS)} conventions.`]
    for (let k = 0, m = 1 + Math.floor(rand() * 6); k < m; k++) body.push(`- When you change ${pick(WORDS)} code, keep ${pick(WORDS)} and ${pick(WORDS)} in step; test it.`)
    rules.push({ id: `group${i % 10}/rule${String(i).padStart(4, '0')}.md`, text: lines.join('\n') + '\n' + body.join('\n') + '\n' })
  }
  return rules
}

/** Writes the tree into `dir` (made; must not exist or be empty). */
export function makeTree(dir, { files = 100_000, rules = 500 } = {}) {
  const paths = makePaths(files)
  const made = new Set()
  for (const p of paths) {
    const d = path.dirname(p)
    if (d !== '.' && !made.has(d)) {
      fs.mkdirSync(path.join(dir, d), { recursive: true })
      made.add(d)
    }
    fs.writeFileSync(path.join(dir, p), '')
  }
  // A build output the walk must leave out.
  fs.writeFileSync(path.join(dir, '.gitignore'), 'dist/\n')
  fs.mkdirSync(path.join(dir, 'dist'), { recursive: true })
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(dir, 'dist', `chunk${i}.js`), '')
  const list = makeRules(rules, paths)
  for (const r of list) {
    const f = path.join(dir, '.wave/rules', r.id)
    fs.mkdirSync(path.dirname(f), { recursive: true })
    fs.writeFileSync(f, r.text)
  }
  return { paths, rules: list }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, files = '100000', rules = '500'] = process.argv.slice(2)
  if (!dir) {
    console.error('usage: node bench/report-tree.mjs DIR [FILES] [RULES]')
    process.exit(2)
  }
  fs.mkdirSync(dir, { recursive: true })
  const t = makeTree(dir, { files: Number(files), rules: Number(rules) })
  console.log(`${t.paths.length} files (+ .wave/rules and an ignored dist/), ${t.rules.length} rules in ${dir}`)
}
