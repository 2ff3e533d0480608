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
// - contradiction: action "stored" with a *flagged* conflict (the answer's
//   `conflicts`, what a user sees as a flag) whose with.rule is the pair's
//   rule; a flagged rule conflict on a pair of another kind is a false
//   positive. The answer's `possible_conflicts` (conflicts found but not
//   precise enough to flag, listed apart to read) are no flags: they count
//   only in "contradiction, flagged or possible", recall of the rule among
//   either list;
// - supersession: action "stored" and `supersedes` lists first's id; a
//   non-empty `supersedes` on any other pair is a false positive.
//
// Ranked (no flags): the pair's rule in the top 3 candidates of `memory
// similar` for a restates-rule or contradicts-rule second; for a
// supersedes second, the older note (first) in its top 3, and in its top 3
// with the value that differs shown (`differs`).
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

const envOf = (home) => ({ ...process.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config') })

function write(home, project, topic, text) {
  const out = execFileSync(bin, ['memory', 'write', '--json', '--', topic, text], {
    cwd: project,
    env: envOf(home),
    encoding: 'utf8',
    timeout: 30_000,
  })
  return JSON.parse(out)
}

/** The answers of `memory similar` (null when the binary has none). */
function similar(home, project, text) {
  try {
    const out = execFileSync(bin, ['memory', 'similar', '--json', '--', text], {
      cwd: project,
      env: envOf(home),
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return JSON.parse(out).candidates ?? null
  } catch {
    return null
  }
}

/**
 * A project of the set: a temp git project whose .wave/rules hold the
 * rules and a home whose memory holds the set's background `notes`, written
 * one by one with `memory write` (each answer kept: a flag on a background
 * note is a false flag); `memory.tar` of that home's .wave is restored
 * before each pair.
 */
function projectOf(set) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-pairs-'))
  const home = path.join(root, 'home')
  const project = path.join(root, 'project')
  fs.mkdirSync(home)
  fs.mkdirSync(path.join(project, '.wave/rules'), { recursive: true })
  execFileSync('git', ['init', '-q'], { cwd: project })
  for (const r of set.rules ?? []) fs.writeFileSync(path.join(project, '.wave/rules', `${r.id}.md`), `---\nid: ${r.id}\n---\n${r.text}\n`)
  const notes = (set.notes ?? []).map((n) => ({ note: n, answer: write(home, project, n.topic, n.text) }))
  const saved = path.join(root, 'memory-saved')
  if (fs.existsSync(path.join(home, '.wave'))) fs.cpSync(path.join(home, '.wave'), saved, { recursive: true })
  const reset = () => {
    fs.rmSync(path.join(home, '.wave'), { recursive: true, force: true })
    if (fs.existsSync(saved)) fs.cpSync(saved, path.join(home, '.wave'), { recursive: true })
  }
  return { root, home, project, notes, reset }
}

/** One pair in the project's memory as the notes left it: the second answer, first's id, and the candidates for the second. */
function runPair(p, pair) {
  p.reset()
  const first = pair.first === undefined ? null : write(p.home, p.project, pair.topic, pair.first)
  const ranks = pair.rule !== undefined || pair.kind === 'supersedes'
  const candidates = ranks ? similar(p.home, p.project, pair.second) : null
  const second = write(p.home, p.project, pair.topic, pair.second)
  return { firstId: first?.id ?? null, second, candidates }
}

/** A rule's id is its path under .wave/rules (`port.md`); the set names it `port`. */
const sameRule = (got, want) => got === want || got === `${want}.md`
const readConflicts = (r) => [...(r.second.conflicts ?? []), ...(r.second.possible_conflicts ?? [])]
const ruleFlag = (r) => r.second.action === 'restated' || (r.second.conflicts ?? []).some((c) => c.with?.rule !== undefined)
const measures = {
  folding: { positive: 'rewording', negatives: ['distinct', 'note'], hit: (p, r) => r.second.action === 'folded', any: (r) => r.second.action === 'folded' },
  restatement: { positive: 'restates-rule', hit: (p, r) => r.second.action === 'restated' && sameRule(r.second.rule, p.rule), any: (r) => r.second.action === 'restated' },
  // The pair's rule restated (not stored) or named as a possible
  // restatement (stored, the rule named to read): what a reader is pointed at.
  'restatement, flagged or possible': {
    positive: 'restates-rule',
    hit: (p, r) => measures.restatement.hit(p, r) || (r.second.action === 'stored' && sameRule(r.second.possible_restatement?.rule, p.rule)),
    any: (r) => r.second.action === 'restated' || r.second.possible_restatement != null,
  },
  contradiction: {
    positive: 'contradicts-rule',
    hit: (p, r) => r.second.action === 'stored' && (r.second.conflicts ?? []).some((c) => c.with?.rule !== undefined && sameRule(c.with.rule, p.rule)),
    any: (r) => (r.second.conflicts ?? []).some((c) => c.with?.rule !== undefined),
  },
  // The pair's rule among the flagged or the possible conflicts: what a
  // reader is pointed at. Its precision counts any rule in either list.
  'contradiction, flagged or possible': {
    positive: 'contradicts-rule',
    hit: (p, r) => r.second.action === 'stored' && readConflicts(r).some((c) => c.with?.rule !== undefined && sameRule(c.with.rule, p.rule)),
    any: (r) => readConflicts(r).some((c) => c.with?.rule !== undefined),
  },
  // Restated or contradicted: a flag naming a rule, right when it names the
  // pair's rule in the pair's kind.
  'rule flags': {
    positive: ['restates-rule', 'contradicts-rule'],
    hit: (p, r) => (p.kind === 'restates-rule' ? measures.restatement.hit(p, r) : measures.contradiction.hit(p, r)),
    any: ruleFlag,
  },
  supersession: {
    positive: 'supersedes',
    hit: (p, r) => r.second.action === 'stored' && r.firstId !== null && (r.second.supersedes ?? []).includes(r.firstId),
    any: (r) => (r.second.supersedes ?? []).length > 0,
  },
}
const isPositive = (m, kind) => (Array.isArray(m.positive) ? m.positive.includes(kind) : m.positive === kind)

/**
 * Where the pair's rule ranks among the candidates `memory similar` gives
 * for the second note (1-based; 0 when absent). Without the command (an
 * older binary) the write's own answer stands in: a flag naming the rule
 * is rank 1, else absent.
 */
function ruleRank(pair, r) {
  if (r.candidates === null) {
    const named = r.second.rule ?? (r.second.conflicts ?? []).find((c) => c.with?.rule !== undefined)?.with.rule
    return named !== undefined && named !== null && sameRule(named, pair.rule) ? 1 : 0
  }
  const at = r.candidates.findIndex((c) => c.rule !== undefined && sameRule(c.rule, pair.rule))
  return at + 1
}

/**
 * Where the older note ranks among the candidates `memory similar` gives
 * for a supersedes pair's second note (1-based; 0 when absent), and whether
 * that candidate shows a differing value (`differs`). Without the command
 * the write's own answer stands in: first's id in `supersedes` is rank 1.
 */
function olderRank(r) {
  if (r.candidates === null) return { rank: (r.second.supersedes ?? []).includes(r.firstId) ? 1 : 0, differs: true }
  const at = r.candidates.findIndex((c) => c.entry !== undefined && c.entry === r.firstId)
  return { rank: at + 1, differs: at >= 0 && r.candidates[at].differs !== undefined }
}

const counts = Object.fromEntries(Object.keys(measures).map((m) => [m, { tp: 0, fp: 0, fn: 0, positives: 0 }]))
const top3 = { 'restates-rule': { in: 0, of: 0 }, 'contradicts-rule': { in: 0, of: 0 } }
// A supersedes pair's older note in the top 3, and in the top 3 with its differing value shown.
const older = { 'supersedes': { in: 0, of: 0 }, 'supersedes, value shown': { in: 0, of: 0 } }
let usedSimilar = false
const misses = []
let pairs = 0
let notes = 0
function score(f, pair, r) {
  for (const [name, m] of Object.entries(measures)) {
    const c = counts[name]
    const predicted = m.any(r)
    if (isPositive(m, pair.kind)) {
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
  if (pair.kind === 'supersedes') scoreOlder(f, pair, r)
  const t = top3[pair.kind]
  if (t !== undefined) {
    usedSimilar ||= r.candidates !== null
    const rank = ruleRank(pair, r)
    t.of++
    if (rank >= 1 && rank <= 3) t.in++
    else misses.push({ file: f, id: pair.id, measure: 'top 3', missed: true, answer: { rank, candidates: (r.candidates ?? []).slice(0, 3).map((c) => c.rule ?? c.entry) } })
  }
}
function scoreOlder(f, pair, r) {
  const { rank, differs } = olderRank(r)
  const top = rank >= 1 && rank <= 3
  older.supersedes.of++
  older['supersedes, value shown'].of++
  if (top) older.supersedes.in++
  if (top && differs) older['supersedes, value shown'].in++
  if (!top || !differs) {
    const shown = (r.candidates ?? []).slice(0, 3).map((c) => ({ entry: c.entry ?? c.rule, differs: c.differs }))
    misses.push({ file: f, id: pair.id, measure: 'older in top 3', missed: true, answer: { rank, differs, candidates: shown } })
  }
}
for (const f of files) {
  const set = JSON.parse(fs.readFileSync(path.join(setDir, f), 'utf8'))
  const p = projectOf(set)
  try {
    for (const { note, answer } of p.notes) {
      notes++
      score(f, { id: note.id, kind: 'note' }, { firstId: null, second: answer, candidates: null })
    }
    for (const pair of set.pairs) {
      pairs++
      score(f, pair, runPair(p, pair))
    }
  } finally {
    fs.rmSync(p.root, { recursive: true, force: true })
  }
}

function short(a) {
  const conflicts = (a.conflicts ?? []).map((c) => ({ ...c.with, kind: c.kind, ours: c.ours, theirs: c.theirs }))
  return { action: a.action, rule: a.rule, possible_restatement: a.possible_restatement?.rule, supersedes: a.supersedes, conflicts }
}
const ratio = (a, b) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000)
const table = Object.fromEntries(
  Object.entries(counts).map(([name, c]) => [name, { ...c, precision: ratio(c.tp, c.tp + c.fp), recall: ratio(c.tp, c.positives) }]),
)
const ranked = Object.fromEntries(Object.entries(top3).map(([kind, t]) => [kind, { ...t, share: ratio(t.in, t.of) }]))
const both = { in: ranked['restates-rule'].in + ranked['contradicts-rule'].in, of: ranked['restates-rule'].of + ranked['contradicts-rule'].of }
ranked.both = { ...both, share: ratio(both.in, both.of) }
const olderRanked = Object.fromEntries(Object.entries(older).map(([kind, t]) => [kind, { ...t, share: ratio(t.in, t.of) }]))
const rankedBy = usedSimilar ? '`memory similar`' : 'the write answer (no `memory similar` in this binary)'
if (wantJson) {
  console.log(JSON.stringify({ set: path.relative(repo, setDir), pairs, notes, measures: table, top3: { by: rankedBy, ...ranked }, older_top3: olderRanked, misses: showMisses ? misses : undefined }, null, 1))
} else {
  console.log(`memory hygiene on ${path.relative(repo, setDir) || setDir}: ${pairs} pairs, ${notes} background notes in ${files.length} files (${path.relative(repo, bin)})\n`)
  console.log('| measure | positives | TP | FP | FN | precision | recall |')
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, c] of Object.entries(table)) console.log(`| ${name} | ${c.positives} | ${c.tp} | ${c.fp} | ${c.fn} | ${c.precision ?? '-'} | ${c.recall ?? '-'} |`)
  console.log(`\nthe pair's rule in the top 3 candidates (by ${rankedBy}):\n`)
  console.log('| notes that | in top 3 | of | share |')
  console.log('| --- | --- | --- | --- |')
  for (const [kind, t] of Object.entries(ranked)) console.log(`| ${kind} | ${t.in} | ${t.of} | ${t.share ?? '-'} |`)
  console.log(`\nthe older note of a supersedes pair in the top 3 candidates (by ${rankedBy}):\n`)
  console.log('| notes that | in top 3 | of | share |')
  console.log('| --- | --- | --- | --- |')
  for (const [kind, t] of Object.entries(olderRanked)) console.log(`| ${kind} | ${t.in} | ${t.of} | ${t.share ?? '-'} |`)
  if (showMisses) for (const m of misses) console.log(`${m.missed ? 'missed' : 'false '} ${m.measure} ${m.file} ${m.id}: ${JSON.stringify(m.answer)}`)
}
