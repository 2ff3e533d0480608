// `node bench/memory-pairs.mjs [--set DIR] [--json] [--misses]`: how memory
// hygiene decides on labelled pairs of notes (docs/memory.md, "Writing:
// hygiene"). The set is a folder of JSON files, one per project (the format
// is in bench/memory-pairs/README.md); the default is the tuning set,
// bench/memory-pairs/tuning.
//
// Per pair: a fresh temp HOME and a temp git project whose .wave/rules/<id>.md
// hold all the file's rules; `first` (if any) is written with `wave-rules
// memory write TOPIC TEXT --json`, then `second`, and the second answer
// decides:
//
// - folding: folded = predicted positive; rewording pairs are the positives,
//   distinct pairs the negatives (a distinct pair folded is a false positive);
// - restatement: action "restated" naming the pair's rule (its id is its
//   path, `port.md` for the set's `port`) is a true positive;
//   "restated" on any other pair is a false positive;
// - contradiction: action "stored" with a conflict whose with.rule is the
//   pair's rule; a rule conflict on a pair of another kind is a false positive;
// - supersession: action "stored" and `supersedes` lists first's id; a
//   non-empty `supersedes` on any other pair is a false positive.
//
// The binary: $WAVE_RULES_BIN, else the newer of target/release/wave-rules
// and target/debug/wave-rules (cargo build -p wave-rules).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const args = process.argv.slice(2)
const setAt = args.indexOf('--set')
const setDir = path.resolve(setAt >= 0 ? args[setAt + 1] : path.join(here, 'memory-pairs/tuning'))
const wantJson = args.includes('--json')
const showMisses = args.includes('--misses')

function binary() {
  if (process.env.WAVE_RULES_BIN) return path.resolve(process.env.WAVE_RULES_BIN)
  const built = ['target/release/wave-rules', 'target/debug/wave-rules']
    .map((p) => path.join(repo, p))
    .filter((p) => fs.existsSync(p))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
  if (built.length > 0) return built[0]
  console.error('memory-pairs: no wave-rules binary; run `cargo build -p wave-rules` (or set WAVE_RULES_BIN)')
  process.exit(2)
}
const bin = binary()

const files = fs
  .readdirSync(setDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
if (files.length === 0) {
  console.error(`memory-pairs: no *.json in ${setDir}`)
  process.exit(2)
}

function write(home, project, topic, text) {
  const out = execFileSync(bin, ['memory', 'write', '--json', '--', topic, text], {
    cwd: project,
    env: { ...process.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    encoding: 'utf8',
    timeout: 30_000,
  })
  return JSON.parse(out)
}

/** One pair in a fresh home and project: the second answer and first's id. */
function runPair(rules, pair) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-pairs-'))
  try {
    const home = path.join(root, 'home')
    const project = path.join(root, 'project')
    fs.mkdirSync(home)
    fs.mkdirSync(path.join(project, '.wave/rules'), { recursive: true })
    execFileSync('git', ['init', '-q'], { cwd: project })
    for (const r of rules) fs.writeFileSync(path.join(project, '.wave/rules', `${r.id}.md`), `---\nid: ${r.id}\n---\n${r.text}\n`)
    const first = pair.first === undefined ? null : write(home, project, pair.topic, pair.first)
    const second = write(home, project, pair.topic, pair.second)
    return { firstId: first?.id ?? null, second }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

/** A rule's id is its path under .wave/rules (`port.md`); the set names it `port`. */
const sameRule = (got, want) => got === want || got === `${want}.md`
const measures = {
  folding: { positive: 'rewording', negatives: ['distinct'], hit: (p, r) => r.second.action === 'folded' },
  restatement: { positive: 'restates-rule', hit: (p, r) => r.second.action === 'restated' && sameRule(r.second.rule, p.rule), any: (r) => r.second.action === 'restated' },
  contradiction: {
    positive: 'contradicts-rule',
    hit: (p, r) => r.second.action === 'stored' && (r.second.conflicts ?? []).some((c) => c.with?.rule !== undefined && sameRule(c.with.rule, p.rule)),
    any: (r) => (r.second.conflicts ?? []).some((c) => c.with?.rule !== undefined),
  },
  supersession: {
    positive: 'supersedes',
    hit: (p, r) => r.second.action === 'stored' && r.firstId !== null && (r.second.supersedes ?? []).includes(r.firstId),
    any: (r) => (r.second.supersedes ?? []).length > 0,
  },
}

const counts = Object.fromEntries(Object.keys(measures).map((m) => [m, { tp: 0, fp: 0, fn: 0, positives: 0 }]))
const misses = []
let pairs = 0
for (const f of files) {
  const set = JSON.parse(fs.readFileSync(path.join(setDir, f), 'utf8'))
  for (const pair of set.pairs) {
    pairs++
    const r = runPair(set.rules ?? [], pair)
    for (const [name, m] of Object.entries(measures)) {
      const c = counts[name]
      const predicted = m.any ? m.any(r) : m.hit(pair, r)
      if (pair.kind === m.positive) {
        c.positives++
        if (m.hit(pair, r)) c.tp++
        else {
          c.fn++
          misses.push({ file: f, id: pair.id, measure: name, missed: true, answer: short(r.second) })
        }
        if (predicted && !m.hit(pair, r)) c.fp++
      } else if (m.negatives === undefined || m.negatives.includes(pair.kind)) {
        if (predicted) {
          c.fp++
          misses.push({ file: f, id: pair.id, measure: name, missed: false, answer: short(r.second) })
        }
      }
    }
  }
}

function short(a) {
  return { action: a.action, rule: a.rule, supersedes: a.supersedes, conflicts: (a.conflicts ?? []).map((c) => c.with) }
}
const ratio = (a, b) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000)
const table = Object.fromEntries(
  Object.entries(counts).map(([name, c]) => [name, { ...c, precision: ratio(c.tp, c.tp + c.fp), recall: ratio(c.tp, c.positives) }]),
)
if (wantJson) {
  console.log(JSON.stringify({ set: path.relative(repo, setDir), pairs, measures: table, misses: showMisses ? misses : undefined }, null, 1))
} else {
  console.log(`memory hygiene on ${path.relative(repo, setDir) || setDir}: ${pairs} pairs in ${files.length} files (${path.relative(repo, bin)})\n`)
  console.log('| measure | positives | TP | FP | FN | precision | recall |')
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, c] of Object.entries(table)) console.log(`| ${name} | ${c.positives} | ${c.tp} | ${c.fp} | ${c.fn} | ${c.precision ?? '-'} | ${c.recall ?? '-'} |`)
  if (showMisses) for (const m of misses) console.log(`${m.missed ? 'missed' : 'false '} ${m.measure} ${m.file} ${m.id}: ${JSON.stringify(m.answer)}`)
}
