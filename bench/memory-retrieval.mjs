// `node bench/memory-retrieval.mjs`: how well memory reaches the model, on
// the labelled retrieval set of bench/memory-retrieval/ (316 entries over
// both scopes, 108 queries, each a prompt, the files in context and its
// relevant entries; written from six real projects' docs, see its README).
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
//   node bench/memory-retrieval.mjs            the table
//   node bench/memory-retrieval.mjs --json     the numbers as JSON
//   node bench/memory-retrieval.mjs --misses   also each query the new recall misses at 5
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
const setDir = path.join(here, 'memory-retrieval')
const wantJson = process.argv.includes('--json')
const showMisses = process.argv.includes('--misses')

const user = JSON.parse(fs.readFileSync(path.join(setDir, 'user.json'), 'utf8'))
const projects = fs
  .readdirSync(path.join(setDir, 'projects'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(setDir, 'projects', f), 'utf8')))

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
const methods = { recall: scores(), given: scores(), lines: scores(), fts5: scores() }

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

const misses = []
/** Project entries given for the prompts of another project (all irrelevant). */
const unrelated = { given: 0, n: 0 }
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
      execFileSync('python3', [path.join(setDir, 'fts5.py')], {
        input: JSON.stringify({ entries: all, queries, limit: 10 }),
        encoding: 'utf8',
      }),
    )
    for (const q of queries) {
      const hits = await store.search(q.prompt, q.files, 10)
      const ranked = hits.map((h) => h.id)
      score(methods.recall, ranked, q.relevant)
      if (showMisses && !q.relevant.every((r) => ranked.slice(0, 5).includes(r))) misses.push({ q: q.id, prompt: q.prompt, relevant: q.relevant, got: ranked.slice(0, 5) })
      // What a new conversation is given: the session's recall for the prompt, then the files.
      const { ids: given, text } = givenFor(conversations, engine, q.id, q, work)
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
    // The next project's prompts against this project's memory.
    const projectIds = new Set(p.entries.map((e) => e.id))
    for (const q of projects[(pi + 1) % projects.length].queries) {
      const { ids } = givenFor(conversations, engine, `other-${q.id}`, q, work)
      unrelated.given += ids.filter((id) => projectIds.has(id)).length
      unrelated.n += 1
    }
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}

const n = methods.recall.n
const entries = user.entries.length + projects.reduce((s, p) => s + p.entries.length, 0)
const avg = (m, k) => m[k] / m.n
const result = {
  entries,
  queries: n,
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
  unrelatedGivenPerQuery: unrelated.given / unrelated.n,
}
if (wantJson) {
  console.log(JSON.stringify(result, null, 2))
} else {
  const f = (x) => x.toFixed(3)
  console.log(`\nMemory retrieval: ${entries} entries (user + 6 projects), ${n} queries (bench/memory-retrieval/)`)
  console.log('| method | recall@5 | MRR | notes |')
  console.log('| --- | --- | --- | --- |')
  console.log(`| recall (search: BM25 + file affinity) | ${f(result.recall.recall5)} | ${f(result.recall.mrr)} | the ranking the hooks recall from |`)
  console.log(`| recall as given to a new conversation | ${f(result.given.recall5)} | ${f(result.given.mrr)} | ${result.given.entriesPerQuery.toFixed(2)} entries, precision ${f(result.given.precision)}, ${Math.round(result.given.bytesPerQuery)} bytes per query |`)
  console.log(`| SQLite FTS5 bm25() | ${f(result.fts5.recall5)} | ${f(result.fts5.mrr)} | same entries, prompt and file words OR-ed |`)
  console.log(`| first 200 lines (load order) | ${f(result.firstLines.recall5)} | ${f(result.firstLines.mrr)} | ${f(result.firstLines.inPrompt)} of relevant entries anywhere in the ${Math.round(result.firstLines.bytesPerQuery)} bytes given |`)
  console.log(`| recall given for another project's prompt | | | ${result.unrelatedGivenPerQuery.toFixed(2)} of this project's entries per query (none is relevant) |`)
  console.log(`| ratio recall / FTS5 | ${(result.recall.recall5 / result.fts5.recall5).toFixed(2)}x | ${(result.recall.mrr / result.fts5.mrr).toFixed(2)}x | |`)
  console.log(`| ratio recall / first 200 lines | ${(result.recall.recall5 / result.firstLines.recall5).toFixed(2)}x | ${(result.recall.mrr / result.firstLines.mrr).toFixed(2)}x | |`)
  if (showMisses) for (const m of misses) console.log(`miss ${m.q}: ${m.prompt}\n  relevant ${m.relevant.join(' ')}; top 5 ${m.got.join(' ')}`)
}
