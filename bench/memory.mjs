// Memory per rule: how much a process grows when it discovers N rules and
// answers one message, with the addon (`RuleManager`) and with the
// pure-JS manager of bench/bench.mjs that compiles nothing. Each side runs in
// a fresh Node process (so neither inherits the other's heap or allocator
// arenas); the ratio is addon growth / pure-JS growth. Part of `npm run bench`.
//
// Mixes (each printed; `--mixes unique,shared,long` picks):
// - unique: a quarter each with two globs, two topics, one extension glob,
//   and nothing (always on); every rule's globs and topics are its own (no
//   two rules share one, the worst case for the compiled matchers), and each
//   body is a few lines of text, 20 folders.
// - shared: the same four kinds as a real project writes them (the mix of
//   the issue that found 1.19x): a path rule of two globs, one an exclusion
//   every such rule shares (`src/modN/**/*.ts`, `!**/*.test.ts`); a topic
//   rule of a word and a phrase; an extension glob all such rules share
//   (`**/*.py`) with a topic; always-on; each with a description and a
//   two-line body, in the rules folder and five subfolders.
// - long: the unique mix with bodies of about 4 KiB (a rule that is a page
//   of guidance): where the text itself is most of the memory.
// Files are written by this (parent) process, dated an hour back, before any
// child starts.
//
// Growth = resident set after (discoverRules + one getActiveRules, then a
// full GC) minus the resident set before (package loaded, a full GC). The
// peak column is VmHWM (the process's highest resident set) minus the same
// baseline. Both sides load the package, so the addon's own code is in the
// baseline of both.
//
//   node bench/memory.mjs                every mix at 1,000 and 10,000 rules, 3 runs per side
//   node bench/memory.mjs --runs 5 --sizes 1000,10000,30000 --mixes shared
//   node bench/memory.mjs --list         the same after getRules() too (the SDK's listing: ids and descriptions read)
//   node bench/memory.mjs --child <ours|js> <dir>   (internal: one measurement)
//   node bench/memory.mjs --write 10000 [--mix shared]   writes the rules, prints the directory
//                                          (cargo run -p memory-rules --example heap -- <dir>/work)
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const self = fileURLToPath(import.meta.url)
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at >= 0 ? process.argv[at + 1] : fallback
}

const EXTS = ['ts', 'tsx', 'js', 'rs', 'py', 'go', 'md', 'json', 'css', 'java']
const WORDS = ['customer', 'deploy', 'migration', 'billing', 'auth', 'cache', 'release', 'schema', 'webhook', 'queue']

const LONG_BODY = Array.from({ length: 40 }, (_, k) => `- Guideline ${k}: prefer the smallest change that keeps every caller correct, and say why in the commit message.`).join('\n')

/** The text of rule `i` of `mix` (see the header). */
function ruleText(i, mix = 'unique') {
  if (mix === 'shared') return sharedRuleText(i)
  const text = uniqueRuleText(i)
  return mix === 'long' ? `${text}\n${LONG_BODY.replaceAll('Guideline', `Rule ${i} guideline`)}\n` : text
}

/** The `shared` mix: four kinds as a project writes them, patterns shared. */
function sharedRuleText(i) {
  const fm =
    i % 4 === 0 ? `paths: ["src/mod${i}/**/*.ts", "!**/*.test.ts"]`
    : i % 4 === 1 ? `topics: [topic${i}, "phrase ${i}"]`
    : i % 4 === 2 ? `paths: "**/*.py"\ntopics: kw${i}`
    : `priority: ${i % 7}`
  return `---\n${fm}\ndescription: rule ${i}\n---\nRule ${i}: first line.\nSecond line of rule ${i}.\n`
}

function uniqueRuleText(i) {
  const ext = EXTS[i % EXTS.length]
  const lines = ['---']
  switch (i % 4) {
    case 0:
      lines.push('paths:', `  - "src/area${i}/{lib,test}/**/*.${ext}"`, `  - "packages/pkg${i}/*/tests/**"`)
      break
    case 1:
      lines.push(`topics: [${WORDS[i % WORDS.length]}${i}, topic-${i}-word]`)
      break
    case 2:
      lines.push('paths:', `  - "**/*.${ext}${i}"`)
      break
    default:
      break
  }
  lines.push(`priority: ${i % 5}`, '---', `# Rule ${i}`, '', `When you touch the ${WORDS[i % WORDS.length]} code, keep these in mind:`)
  lines.push('- Keep functions short and name them after what they return.', '- Every change comes with a test that fails without it.', '- Errors name the file and the line.')
  return lines.join('\n') + '\n'
}

function writeTree(n, mix = 'unique') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-memory-'))
  const hourAgo = new Date(Date.now() - 3600_000)
  for (let i = 0; i < n; i++) {
    const folder = mix === 'shared' ? (i % 2 ? `group${i % 5}` : '') : `group${i % 20}`
    const file = path.join(root, 'work/.wave/rules', folder, `rule${String(i).padStart(5, '0')}.md`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, ruleText(i, mix))
    fs.utimesSync(file, hourAgo, hourAgo)
  }
  fs.mkdirSync(path.join(root, 'home'), { recursive: true })
  return root
}

/** Context files (the same for both sides): some under the rules' directories, some not. The pure-JS
 * side runs minimatch for every rule x pattern x file, so the list stays short. */
function contextFiles() {
  const files = []
  for (let i = 0; i < 10; i++) files.push(`src/area${i * 4}/lib/file${i}.${EXTS[(i * 4) % EXTS.length]}`, `lib/other${i}/y.md${i * 4 + 2}`)
  files.push('packages/pkg8/app/tests/a.ts', 'src/mod4/a.ts', 'src/mod8/a.test.ts', 'tools/gen.py')
  return files
}

function rssKb() {
  return Math.round(process.memoryUsage().rss / 1024)
}

function hwmKb() {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))
  return m ? Number(m[1]) : undefined
}

function settle() {
  for (let i = 0; i < 3; i++) globalThis.gc()
}

/** One side, in this (fresh) process: prints {base, after, peak} in kB. */
async function child(side, root, listing) {
  const require = createRequire(import.meta.url)
  const pkg = require('..')
  const { JsManager } = await import('./jsmanager.mjs')
  const workdir = path.join(root, 'work')
  const homeDir = path.join(root, 'home')
  const files = contextFiles()
  const prompt = 'Please deploy the customer migration and check the billing webhook, topic5 and the phrase 9 handler'
  // Warm up what both sides load anyway (the package's code paths, fs).
  const warm = new pkg.RuleManager({ workdir: homeDir, homeDir })
  await warm.discoverRules()
  warm.getActiveRules(files, prompt)
  settle()
  const base = rssKb()
  const manager = side === 'ours' ? new pkg.RuleManager({ workdir, homeDir }) : new JsManager(workdir, homeDir)
  await manager.discoverRules()
  const active = manager.getActiveRules(files, prompt)
  // `--list`: the SDK's listing too (getRules(), each rule's id and metadata read, as a listing shows them).
  const listed = listing ? manager.getRules().map((r) => [r.id, r.metadata.description]) : []
  settle()
  const after = rssKb()
  console.log(JSON.stringify({ base, after, peak: hwmKb(), active: active.length, listed: listed.length }))
  // Keep the manager alive until measured.
  if (!manager) throw new Error('unreachable')
}

function measure(side, root, listing) {
  const args = ['--expose-gc', self, '--child', side, root, ...(listing ? ['--list'] : [])]
  const out = execFileSync(process.execPath, args, { encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').pop())
}

const mib = (kb) => (kb / 1024).toFixed(1)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function main() {
  const runs = Number(arg('--runs', '3'))
  const sizes = arg('--sizes', '1000,10000').split(',').map(Number)
  const mixes = arg('--mixes', 'unique,shared,long').split(',')
  const listing = process.argv.includes('--list')
  const out = []
  const log = (s) => {
    out.push(s)
    console.log(s)
  }
  log(`Memory per rule: ${runs} runs per side, each in a fresh process; node ${process.version}, ${os.cpus().length} CPUs`)
  log('')
  log('| mix | rules | ours: growth | JS: growth | ours / JS | ours: peak over base | JS: peak over base | active (ours / JS) |')
  log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const mix of mixes) for (const n of sizes) {
    const root = writeTree(n, mix)
    try {
      const r = { ours: [], js: [] }
      // Alternate the sides, so the machine's load falls on both alike.
      for (let i = 0; i < runs; i++) for (const side of ['ours', 'js']) r[side].push(measure(side, root, listing))
      const growth = (side) => r[side].map((m) => m.after - m.base)
      const peak = (side) => r[side].map((m) => m.peak - m.base)
      const all = (xs) => xs.map(mib).join(' / ')
      const ratio = median(growth('ours')) / median(growth('js'))
      log(`| ${mix} | ${n} | ${all(growth('ours'))} MiB | ${all(growth('js'))} MiB | ${ratio.toFixed(2)} | ${all(peak('ours'))} MiB | ${all(peak('js'))} MiB | ${r.ours[0].active} / ${r.js[0].active} |`)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
  log('')
  const listed = listing ? ', then getRules() with each rule\'s id and description read (--list)' : ''
  log(`growth: resident set after discovering the rules and one getActiveRules (${contextFiles().length} files)${listed}, after a full GC,`)
  log('minus before (package loaded, a full GC); runs separated by /; ours / JS is the ratio of the medians.')
  if (process.env.BENCH_OUT) fs.appendFileSync(process.env.BENCH_OUT, out.join('\n') + '\n')
}

if (process.argv.includes('--write')) {
  // `--write N`: writes a tree of N rules and prints its directory (for the Rust heap example).
  console.log(writeTree(Number(arg('--write')), arg('--mix', 'unique')))
} else if (process.argv.includes('--child')) await child(arg('--child'), process.argv[process.argv.indexOf('--child') + 2], process.argv.includes('--list'))
else await main()
