// `node bench/memory-retrieval.mjs`: how well memory reaches the model, on
// the labelled retrieval set of bench/memory-retrieval/ (the tuning set: 316
// entries over both scopes, 162 queries, each a prompt, the files in context
// and its relevant entries; written from six real projects' docs, see its
// README), or another set of that shape (--set).
// Part of `npm run bench`.
//
// Per project, its entries go into a temp home's project memory and the
// shared user entries into its user memory, as topic files with entry
// comments, the way the store writes them. Then, per query, side by side:
//
// - recall: the new search (`NativeMemoryStore.search`: BM25 over topic,
//   title and text with file affinity), the ranking the hooks' recall uses;
// - recall as given: what a fresh conversation is actually given for that
//   prompt and those files (the core's responder with recall on, through
//   the binding's `Conversations`: a prompt event, then a tool reading the
//   files; the ranking, then the
//   relevance thresholds and the 5-entry / 3,000-byte budget);
// - first 200 lines: `loadForPrompt(200)`, the index then the topics in
//   index order until 200 lines; its ranking is the order entries appear in
//   that text (what the model reads first), an entry past the cut is absent;
// - FTS5 bm25(): SQLite FTS5 over the same entries (bench/memory-retrieval/
//   fts5.py: topic/title/body weighted 3/2/1, porter stemmer, the prompt's
//   and the files' words OR-ed), the peer most memory tools use.
//
// recall@5: the share of a query's relevant entries in the first 5, averaged
// over queries; MRR: the mean of 1/rank of the first relevant entry (0 when
// none is ranked). For the 200 lines, "in prompt" is the share of relevant
// entries anywhere in the text, whatever their place.
//
// The relevance gate is checked the other way too: each project's prompts
// are run against the next project's memory, where none of its entries is
// relevant; the table gives how many of them a conversation is given.
//
// Every table is given for all queries and for each kind of query, from
// its fields: prompt-only (no files), prompt+files, files-only (an empty
// prompt: what a tool event gives recall).
//
//   node bench/memory-retrieval.mjs              the tables (the tuning set)
//   node bench/memory-retrieval.mjs --set DIR    another set of the same shape
//                                                (user.json optional), e.g.
//                                                bench/memory-heldout
//   node bench/memory-retrieval.mjs --json       the numbers as JSON
//   node bench/memory-retrieval.mjs --misses     also each query the new recall misses at 5
//   node bench/memory-retrieval.mjs --versus     also each query where recall and FTS5
//                                                differ (recall@5, rank of the first relevant)
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.dirname(here)
const require = createRequire(import.meta.url)
const { NativeMemoryStore, Conversations, RuleEngine } = require(path.join(repo, 'index.js'))

/** What a new conversation is given for a prompt and then a read of those files: ids and text. */
function givenFor(conversations, engine, key, q, work) {
  const conversation = { session: key }
  const events = [{ conversation, kind: 'prompt', prompt: q.prompt }]
  if (q.files.length > 0) events.push({ conversation, kind: 'tool-done', tools: q.files.map((f) => ({ name: 'Read', kind: 'read', input: { file_path: path.join(work, f) } })) })
  const ids = []
  let text = ''
  for (const e of events) {
    const answer = conversations.respond(engine, e)
    conversations.commit(engine, answer)
    ids.push(...answer.memoryIds)
    text += answer.text
  }
  return { ids, text }
}
const argValue = (name) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const setDir = path.resolve(argValue('--set') ?? path.join(here, 'memory-retrieval'))
const wantJson = process.argv.includes('--json')
const showMisses = process.argv.includes('--misses')
const showVersus = process.argv.includes('--versus')

const userFile = path.join(setDir, 'user.json')
const user = fs.existsSync(userFile) ? JSON.parse(fs.readFileSync(userFile, 'utf8')) : { entries: [], queries: [] }
const projects = fs
  .readdirSync(path.join(setDir, 'projects'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(setDir, 'projects', f), 'utf8')))

/** The kind of a query, from its fields. */
const KINDS = ['prompt-only', 'prompt+files', 'files-only']
function kindOf(q) {
  if (q.files.length === 0) return 'prompt-only'
  return q.prompt.trim() === '' ? 'files-only' : 'prompt+files'
}

/** Topic files with entry comments (as the store writes them) and MEMORY.md. */
function writeScope(dir, entries) {
  fs.mkdirSync(dir, { recursive: true })
  const byTopic = new Map()
  entries.forEach((e, i) => {
    if (!byTopic.has(e.topic)) byTopic.set(e.topic, [])
    // Times a day apart, in the order written.
    const created = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const meta = { id: e.id, created }
    if (e.paths) meta.paths = e.paths
    byTopic.get(e.topic).push(`<!-- entry ${JSON.stringify(meta).replace(/>/g, '\\u003e')} -->\n${e.text}\n`)
  })
  const files = [...byTopic.keys()].map((t) => [t, `${t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-')}.md`]).sort((a, b) => (a[1] < b[1] ? -1 : 1))
  for (const [topic, file] of files) fs.writeFileSync(path.join(dir, file), byTopic.get(topic).join('\n'))
  const index = ['# Memory', '', 'What the agent has learned, one topic per file.', '', ...files.map(([t, f]) => `- [${t}](${f})`), ''].join('\n')
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), index)
}

/** The entries in the order their first line appears in `text` (absent ones left out). */
function orderInText(text, entries) {
  return entries
    .map((e) => ({ id: e.id, at: text.indexOf(e.text.split('\n')[0]) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.id)
}

const scores = () => ({ recall5: 0, rr: 0, n: 0, inPrompt: 0, given: 0, givenRelevant: 0, bytes: 0 })
const methodsOf = () => ({ recall: scores(), given: scores(), lines: scores(), fts5: scores() })
/** The scores of every query ('all') and of each kind. */
const byKind = Object.fromEntries(['all', ...KINDS].map((k) => [k, methodsOf()]))

function score(m, ranked, relevant, extra = {}) {
  const top5 = ranked.slice(0, 5)
  m.recall5 += relevant.filter((r) => top5.includes(r)).length / relevant.length
  const first = ranked.findIndex((id) => relevant.includes(id))
  m.rr += first >= 0 ? 1 / (first + 1) : 0
  m.n += 1
  if (extra.inPrompt !== undefined) m.inPrompt += extra.inPrompt
  if (extra.given !== undefined) {
    m.given += extra.given
    m.givenRelevant += extra.givenRelevant
  }
  if (extra.bytes !== undefined) m.bytes += extra.bytes
}

/** Scores one query for every method, into each of `tables` (all queries, its kind). */
async function scoreQuery(tables, q, { store, conversations, engine, work, lines, lineOrder, fts }) {
  const ranked = (await store.search(q.prompt, q.files, 10)).map((h) => h.id)
  // What a new conversation is given: the session's recall for the prompt, then the files.
  const { ids: given, text } = givenFor(conversations, engine, q.id, q, work)
  for (const methods of tables) {
    score(methods.recall, ranked, q.relevant)
    score(methods.given, given, q.relevant, {
      given: given.length,
      givenRelevant: given.filter((id) => q.relevant.includes(id)).length,
      bytes: Buffer.byteLength(text),
    })
    score(methods.lines, lineOrder, q.relevant, {
      inPrompt: q.relevant.filter((r) => lineOrder.includes(r)).length / q.relevant.length,
      bytes: Buffer.byteLength(lines),
    })
    score(methods.fts5, fts[q.id] ?? [], q.relevant)
  }
  return ranked
}

const misses = []
/** Queries where recall and FTS5 differ: recall@5 and the first relevant's rank of each. */
const versus = []
/** A ranking's recall@5 and the rank (1-based, '-' when absent) of its first relevant entry. */
function standing(ranked, relevant) {
  const r5 = relevant.filter((r) => ranked.slice(0, 5).includes(r)).length / relevant.length
  const first = ranked.findIndex((id) => relevant.includes(id))
  return { r5, first: first >= 0 ? first + 1 : '-' }
}
/** Project entries given for the prompts of another project (all irrelevant). */
const unrelated = Object.fromEntries(['all', ...KINDS].map((k) => [k, { given: 0, n: 0 }]))
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-memory-retrieval-'))
try {
  for (const [pi, p] of projects.entries()) {
    const home = path.join(root, p.project, 'home')
    const work = path.join(root, p.project, 'work')
    fs.mkdirSync(path.join(work, '.git'), { recursive: true })
    const store = new NativeMemoryStore({ workdir: work, homeDir: home })
    writeScope(store.userDir, user.entries)
    writeScope(store.projectDir, p.entries)
    const engine = new RuleEngine({ workdir: work, homeDir: home })
    await engine.discover()
    const conversations = new Conversations({ recall: { userDir: store.userDir, projectDir: store.projectDir } })
    const all = [...user.entries, ...p.entries]
    const queries = [...p.queries, ...user.queries.filter((q) => q.project === p.project)]
    const lines = await store.loadForPrompt(200)
    const lineOrder = orderInText(lines, all)
    const fts = JSON.parse(
      execFileSync('python3', [path.join(here, 'memory-retrieval', 'fts5.py')], {
        input: JSON.stringify({ entries: all, queries, limit: 10 }),
        encoding: 'utf8',
      }),
    )
    for (const q of queries) {
      const ranked = await scoreQuery([byKind.all, byKind[kindOf(q)]], q, { store, conversations, engine, work, lines, lineOrder, fts })
      const [ours, theirs] = [standing(ranked, q.relevant), standing(fts[q.id] ?? [], q.relevant)]
      if (showVersus && (ours.r5 !== theirs.r5 || ours.first !== theirs.first)) versus.push({ q, kind: kindOf(q), ours, theirs, got: ranked.slice(0, 5), fts: (fts[q.id] ?? []).slice(0, 5) })
      if (showMisses && !q.relevant.every((r) => ranked.slice(0, 5).includes(r))) misses.push({ q: q.id, prompt: q.prompt, files: q.files, relevant: q.relevant, got: ranked.slice(0, 5) })
    }
    // The next project's queries (every kind) against this project's memory.
    const projectIds = new Set(p.entries.map((e) => e.id))
    for (const q of projects[(pi + 1) % projects.length].queries) {
      const { ids } = givenFor(conversations, engine, `other-${q.id}`, q, work)
      for (const u of [unrelated.all, unrelated[kindOf(q)]]) {
        u.given += ids.filter((id) => projectIds.has(id)).length
        u.n += 1
      }
    }
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}

const entries = user.entries.length + projects.reduce((s, p) => s + p.entries.length, 0)
const avg = (m, k) => (m.n ? m[k] / m.n : 0)
/** The numbers of one kind of query. */
function resultOf(methods, u) {
  return {
    queries: methods.recall.n,
    recall: { recall5: avg(methods.recall, 'recall5'), mrr: avg(methods.recall, 'rr') },
    given: {
      recall5: avg(methods.given, 'recall5'),
      mrr: avg(methods.given, 'rr'),
      entriesPerQuery: avg(methods.given, 'given'),
      precision: methods.given.given ? methods.given.givenRelevant / methods.given.given : 0,
      bytesPerQuery: avg(methods.given, 'bytes'),
    },
    firstLines: {
      recall5: avg(methods.lines, 'recall5'),
      mrr: avg(methods.lines, 'rr'),
      inPrompt: avg(methods.lines, 'inPrompt'),
      bytesPerQuery: avg(methods.lines, 'bytes'),
    },
    fts5: { recall5: avg(methods.fts5, 'recall5'), mrr: avg(methods.fts5, 'rr') },
    unrelatedGivenPerQuery: u.n ? u.given / u.n : 0,
  }
}
const result = {
  set: path.relative(process.cwd(), setDir) || '.',
  entries,
  queries: byKind.all.recall.n,
  ...resultOf(byKind.all, unrelated.all),
  kinds: Object.fromEntries(KINDS.map((k) => [k, resultOf(byKind[k], unrelated[k])])),
}

/** The table of one kind of query. */
function printTable(title, r) {
  const f = (x) => x.toFixed(3)
  const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}x` : '-')
  console.log(`\n${title}: ${r.queries} queries`)
  console.log('| method | recall@5 | MRR | notes |')
  console.log('| --- | --- | --- | --- |')
  console.log(`| recall (search: BM25 + file affinity) | ${f(r.recall.recall5)} | ${f(r.recall.mrr)} | the ranking the hooks recall from |`)
  console.log(`| recall as given to a new conversation | ${f(r.given.recall5)} | ${f(r.given.mrr)} | ${r.given.entriesPerQuery.toFixed(2)} entries, precision ${f(r.given.precision)}, ${Math.round(r.given.bytesPerQuery)} bytes per query |`)
  console.log(`| SQLite FTS5 bm25() | ${f(r.fts5.recall5)} | ${f(r.fts5.mrr)} | same entries, prompt and path words OR-ed |`)
  console.log(`| first 200 lines (load order) | ${f(r.firstLines.recall5)} | ${f(r.firstLines.mrr)} | ${f(r.firstLines.inPrompt)} of relevant entries anywhere in the ${Math.round(r.firstLines.bytesPerQuery)} bytes given |`)
  console.log(`| recall given for another project's query | | | ${r.unrelatedGivenPerQuery.toFixed(2)} of this project's entries per query (none is relevant) |`)
  console.log(`| ratio recall / FTS5 | ${ratio(r.recall.recall5, r.fts5.recall5)} | ${ratio(r.recall.mrr, r.fts5.mrr)} | |`)
  console.log(`| ratio recall / first 200 lines | ${ratio(r.recall.recall5, r.firstLines.recall5)} | ${ratio(r.recall.mrr, r.firstLines.mrr)} | |`)
}

if (wantJson) {
  console.log(JSON.stringify(result, null, 2))
} else {
  console.log(`\nMemory retrieval: ${entries} entries (${user.entries.length ? 'user + ' : ''}${projects.length} projects), ${result.queries} queries (${result.set})`)
  printTable('All queries', result)
  for (const k of KINDS) printTable(k, result.kinds[k])
  for (const v of versus) {
    const better = v.ours.r5 > v.theirs.r5 || (v.ours.r5 === v.theirs.r5 && (v.theirs.first === '-' || v.ours.first < v.theirs.first)) ? 'recall' : 'FTS5'
    console.log(`${better} ahead on ${v.q.id} (${v.kind}): recall@5 ${v.ours.r5.toFixed(2)} / ${v.theirs.r5.toFixed(2)}, first relevant at ${v.ours.first} / ${v.theirs.first}: ${v.q.prompt} [${v.q.files.join(' ')}]`)
    console.log(`  relevant ${v.q.relevant.join(' ')}; recall ${v.got.join(' ')}; FTS5 ${v.fts.join(' ')}`)
  }
  if (showMisses) for (const m of misses) console.log(`miss ${m.q}: ${m.prompt} [${m.files.join(' ')}]\n  relevant ${m.relevant.join(' ')}; top 5 ${m.got.join(' ')}`)
}
