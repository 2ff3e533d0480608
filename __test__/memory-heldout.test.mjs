// The held-out sets of issue 37: the first (bench/memory-heldout/ for recall, bench/memory-pairs/heldout/ for hygiene, now
// spent), the second (bench/memory-heldout-2/, bench/memory-pairs/heldout-2/) and the third (bench/memory-pairs/heldout-3/,
// hygiene pairs only, no retrieval set): their shape, their counts and that no repository is shared between the tuning
// sets and any two held-out sets. Reads JSON only; no dependence on the scoring code.
// Issue 56 adds two retrieval-only sets written blind, about half files-only, whose notes name files by basename, module
// or symbol: bench/memory-tune-3/ (for tuning), bench/memory-heldout-4/, -6/, -7/ (each reported once, spent) and -8/ (held out, not yet reported);
// RETRIEVAL_SETS below. Sets of realistic size for hygiene: SIZED_SETS below.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const PAIR_KINDS = { rewording: 30, distinct: 30, 'restates-rule': 15, 'contradicts-rule': 15, supersedes: 15 }
// retrievalDir is undefined for a set of hygiene pairs without a retrieval set (the third).
// The retrieval minimums of the issue 37 sets: 5 projects, 250 notes, 100 queries, a third files-only, a third prompt+files.
const ISSUE37_RETRIEVAL = { projects: 5, entries: 250, queries: 100, filesOnly: 1 / 3, promptFiles: 1 / 3, runTests: 5, modules: false }
const HELDOUT_SETS = [
  { name: 'first held-out', retrievalDir: 'bench/memory-heldout/projects', pairsDir: 'bench/memory-pairs/heldout', minimums: PAIR_KINDS, retrieval: ISSUE37_RETRIEVAL },
  { name: 'second held-out', retrievalDir: 'bench/memory-heldout-2/projects', pairsDir: 'bench/memory-pairs/heldout-2', minimums: PAIR_KINDS, retrieval: ISSUE37_RETRIEVAL },
  { name: 'third held-out', retrievalDir: undefined, pairsDir: 'bench/memory-pairs/heldout-3', minimums: { ...PAIR_KINDS, 'contradicts-rule': 25 } },
]
// Issue 56's retrieval-only sets: 4 projects, 170 notes, 80 queries, at least 45% files-only, 20% prompt+files; their
// files-only queries may be answered by a note naming the file's module or symbol (a folder name or the file's stem).
const ISSUE56_RETRIEVAL = { projects: 4, entries: 170, queries: 80, filesOnly: 0.45, promptFiles: 0.2, runTests: 4, modules: true }
const RETRIEVAL_SETS = [
  { name: 'tune-3 (tuning)', retrievalDir: 'bench/memory-tune-3/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'fourth held-out', retrievalDir: 'bench/memory-heldout-4/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'sixth held-out', retrievalDir: 'bench/memory-heldout-6/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'seventh held-out', retrievalDir: 'bench/memory-heldout-7/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'eighth held-out', retrievalDir: 'bench/memory-heldout-8/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'ninth held-out', retrievalDir: 'bench/memory-heldout-9/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'tenth held-out', retrievalDir: 'bench/memory-heldout-10/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'eleventh held-out', retrievalDir: 'bench/memory-heldout-11/projects', retrieval: ISSUE56_RETRIEVAL },
  { name: 'twelfth held-out', retrievalDir: 'bench/memory-heldout-12/projects', retrieval: ISSUE56_RETRIEVAL },
]
const FIRST_HELDOUT_PROJECTS = ['httpx', 'argo-cd', 'excalidraw', 'kube-prometheus', 'govuk-infrastructure']
const SECOND_HELDOUT_PROJECTS = ['rubygems.org', 'okhttp', 'libgit2', 'phoenix', 'composer']
const TUNING_PROJECTS = ['ripgrep', 'biome', 'tokio', 'vite', 'rust-analyzer', 'napi-rs']

/** The set of lower-cased `[a-z0-9]+` words of `s`. */
const words = (s) => new Set(s.toLowerCase().match(/[a-z0-9]+/g))

/** Token Jaccard of two texts' word sets. */
function tokenJaccard(x, y) {
  const [a, b] = [words(x), words(y)]
  const shared = [...a].filter((w) => b.has(w)).length
  return shared / (a.size + b.size - shared)
}

/** Every `*.json` of `dir`, parsed, with its file name. */
function readSet(dir) {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, data: JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) }))
}

/** The kind of a retrieval query, derived from its fields as the bench does; undefined when it has neither. */
function queryKind(q) {
  if (q.prompt === '' && q.files.length > 0) return 'files-only'
  if (q.prompt !== '' && q.files.length === 0) return 'prompt-only'
  if (q.prompt !== '' && q.files.length > 0) return 'prompt+files'
  return undefined
}

function assertSource(source, where) {
  assert.equal(typeof source, 'object', `${where}: no source`)
  assert.match(source.repository, /^[\w.-]+\/[\w.-]+$/, `${where}: source.repository`)
  assert.match(source.commit, /^[0-9a-f]{40}$/, `${where}: source.commit is not a full sha`)
  assert.ok(typeof source.licence === 'string' && source.licence.length > 0, `${where}: source.licence`)
  assert.ok(Array.isArray(source.read) && source.read.length > 0, `${where}: source.read lists nothing`)
}

/** The repositories the tuning sets are written from (bench/memory-retrieval/ and, when present, bench/memory-pairs/tuning/). */
function tuningRepositories() {
  const repos = new Set()
  for (const dir of ['bench/memory-retrieval/projects', 'bench/memory-pairs/tuning']) {
    const full = path.join(root, dir)
    if (!fs.existsSync(full)) continue
    for (const { data } of readSet(full)) if (data.source?.repository) repos.add(data.source.repository.toLowerCase())
  }
  return repos
}

/** A glob of an entry's `paths` as a regex over repository-relative paths (`**` any depth, `*` one segment). */
function globRegex(glob) {
  const body = glob
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part.startsWith('**') ? '(?:.*/)?.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${body}$`)
}

/** Whether entry `e` is about `file`: a glob of its paths matches, or its text names the file or a folder of it (two segments or more). */
function entryNamesFile(e, file) {
  if ((e.paths ?? []).some((g) => globRegex(g).test(file))) return true
  const parts = file.split('/')
  const folders = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/')).filter((f) => f.includes('/'))
  return e.text.includes(parts.at(-1)) || folders.some((f) => e.text.includes(f))
}

/** The directory names of a path that say something about it (not src, test, main and the like). */
const GENERIC_FOLDERS = new Set(['src', 'main', 'test', 'tests', 'java', 'lib', 'kotlin', 'resources', 'io', 'org', 'com', 'internal', 'docs'])

/** Whether `name` occurs in `text` as a whole name (not inside a longer word, hyphens counted as part of a word). */
function namesWord(text, name) {
  return new RegExp(`(?<![\\w-])${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text)
}

/** `entryNamesFile`, or the entry names the file's stem (a module or symbol) or one of its non-generic folder names. */
function entryNamesFileOrModule(e, file, project) {
  if (entryNamesFile(e, file)) return true
  const parts = file.split('/')
  const folders = parts.slice(0, -1).filter((f) => f.length >= 3 && !GENERIC_FOLDERS.has(f) && f !== project)
  return namesWord(e.text, parts.at(-1).split('.')[0]) || folders.some((f) => namesWord(e.text, f))
}

/** The retrieval checks of one set (only for sets that have a retrieval folder). */
function retrievalTests(set) {
  const retrieval = readSet(path.join(root, set.retrievalDir))

  test(`${set.name}: every retrieval project has a source, unique prefixed ids, and queries whose relevant ids exist`, () => {
    const entryIds = new Set()
    const queryIds = new Set()
    for (const { name, data } of retrieval) {
      assert.equal(`${data.project}.json`, name, `${name}: project name differs from the file name`)
      assertSource(data.source, name)
      const prefixes = new Set()
      const own = new Set()
      for (const e of data.entries) {
        assert.ok(typeof e.id === 'string' && typeof e.topic === 'string' && e.text.length > 0, `${name}: bad entry ${JSON.stringify(e)}`)
        assert.ok(!entryIds.has(e.id), `${name}: entry id ${e.id} is not unique`)
        entryIds.add(e.id)
        own.add(e.id)
        prefixes.add(e.id.split('-')[0])
        if (e.paths !== undefined) assert.ok(Array.isArray(e.paths) && e.paths.every((p) => typeof p === 'string' && !p.startsWith('/')), `${name}: ${e.id} paths`)
      }
      assert.equal(prefixes.size, 1, `${name}: entry ids do not share one prefix`)
      for (const q of data.queries) {
        assert.ok(!queryIds.has(q.id), `${name}: query id ${q.id} is not unique`)
        queryIds.add(q.id)
        assert.equal(typeof q.prompt, 'string', `${name}: ${q.id} prompt`)
        assert.ok(Array.isArray(q.files), `${name}: ${q.id} files`)
        assert.ok(queryKind(q) !== undefined, `${name}: ${q.id} has neither a prompt nor files`)
        for (const f of q.files) assert.ok(f.length > 0 && !f.startsWith('/') && !f.split('/').includes('..'), `${name}: ${q.id} file ${f} is not repository-relative`)
        assert.ok(q.relevant.length > 0, `${name}: ${q.id} has no relevant entry`)
        assert.equal(new Set(q.relevant).size, q.relevant.length, `${name}: ${q.id} repeats a relevant id`)
        for (const r of q.relevant) assert.ok(own.has(r), `${name}: ${q.id} names ${r}, which is not an entry of this project`)
      }
    }
  })

  const min = set.retrieval
  test(`${set.name}: the retrieval set meets its minimums: ${min.projects} projects, ${min.entries} notes, ${min.queries} queries, files-only and prompt+files shares`, () => {
    const entries = retrieval.reduce((n, { data }) => n + data.entries.length, 0)
    const queries = retrieval.flatMap(({ data }) => data.queries)
    const kinds = { 'files-only': 0, 'prompt+files': 0, 'prompt-only': 0 }
    for (const q of queries) kinds[queryKind(q)]++
    assert.ok(retrieval.length >= min.projects, `projects: ${retrieval.length}`)
    assert.ok(entries >= min.entries, `entries: ${entries}`)
    assert.ok(queries.length >= min.queries, `queries: ${queries.length}`)
    assert.ok(kinds['files-only'] >= min.filesOnly * queries.length - 1e-9, `files-only: ${kinds['files-only']} of ${queries.length}`)
    assert.ok(kinds['prompt+files'] >= min.promptFiles * queries.length - 1e-9, `prompt+files: ${kinds['prompt+files']} of ${queries.length}`)
    assert.ok(kinds['prompt-only'] > 0, 'no prompt-only query')
    const runTests = queries.filter((q) => q.prompt === 'how do I run these tests?' && q.files.length > 0)
    assert.ok(runTests.length >= min.runTests, `"how do I run these tests?" queries with files: ${runTests.length}`)
  })

  const naming = min.modules ? 'one of its files, its module or symbol, a folder above it,' : 'one of its files, a folder above it,'
  test(`${set.name}: every files-only query has a relevant note that names ${naming} or a glob matching it`, () => {
    for (const { name, data } of retrieval) {
      const byId = new Map(data.entries.map((e) => [e.id, e]))
      const names = min.modules ? (e, f) => entryNamesFileOrModule(e, f, data.project) : entryNamesFile
      for (const q of data.queries.filter((q) => queryKind(q) === 'files-only')) {
        const named = q.relevant.some((r) => byId.has(r) && q.files.some((f) => names(byId.get(r), f)))
        assert.ok(named, `${name}: ${q.id} (${q.files.join(', ')}): no relevant entry is about these files`)
      }
    }
  })
}

for (const set of HELDOUT_SETS) {
  if (set.retrievalDir !== undefined) retrievalTests(set)
  const pairs = readSet(path.join(root, set.pairsDir))

  test(`${set.name}: every held-out pair has a known kind, unique id, and the fields its kind needs; every named rule exists`, () => {
    const ids = new Set()
    for (const { name, data } of pairs) {
      assertSource(data.source, name)
      const rules = new Set()
      for (const r of data.rules) {
        assert.ok(typeof r.id === 'string' && typeof r.text === 'string' && r.text.length > 0, `${name}: bad rule ${JSON.stringify(r)}`)
        assert.ok(!rules.has(r.id), `${name}: rule id ${r.id} is not unique`)
        rules.add(r.id)
      }
      for (const p of data.pairs) {
        assert.ok(p.kind in PAIR_KINDS, `${name}: ${p.id} has unknown kind ${p.kind}`)
        assert.ok(!ids.has(p.id), `${name}: pair id ${p.id} is not unique`)
        ids.add(p.id)
        assert.ok(typeof p.topic === 'string' && p.topic.length > 0, `${name}: ${p.id} topic`)
        assert.ok(typeof p.second === 'string' && p.second.length > 0, `${name}: ${p.id} second`)
        if (p.kind === 'restates-rule' || p.kind === 'contradicts-rule') {
          assert.ok(rules.has(p.rule), `${name}: ${p.id} names rule ${p.rule}, which is not in rules`)
          assert.equal(p.first, undefined, `${name}: ${p.id} is about a rule and has a first`)
        } else {
          assert.ok(typeof p.first === 'string' && p.first.length > 0 && p.first !== p.second, `${name}: ${p.id} first`)
          assert.equal(p.rule, undefined, `${name}: ${p.id} names a rule`)
        }
      }
    }
  })

  test(`${set.name}: the held-out pairs meet their minimums per kind, and rewordings keep a token Jaccard between 0.3 and 0.95`, () => {
    const counts = Object.fromEntries(Object.keys(PAIR_KINDS).map((k) => [k, 0]))
    for (const { name, data } of pairs) {
      for (const p of data.pairs) {
        counts[p.kind]++
        if (p.kind !== 'rewording') continue
        const jaccard = tokenJaccard(p.first, p.second)
        assert.ok(jaccard >= 0.3 && jaccard <= 0.95, `${name}: ${p.id} token Jaccard ${jaccard.toFixed(2)}`)
      }
    }
    for (const [kind, min] of Object.entries(set.minimums)) assert.ok(counts[kind] >= min, `${kind}: ${counts[kind]} < ${min}`)
  })
}

for (const set of RETRIEVAL_SETS) retrievalTests(set)

/** The repositories (lower-cased owner/name) a set's retrieval and pairs files are written from. */
function heldoutRepositories(set) {
  const repos = new Set()
  for (const dir of [set.retrievalDir, set.pairsDir].filter((d) => d !== undefined)) {
    for (const { data } of readSet(path.join(root, dir))) repos.add(data.source.repository.toLowerCase())
  }
  return repos
}

test('no repository is shared between any two of: the tuning sets, the held-out sets and the issue 56 sets', () => {
  const sets = [...HELDOUT_SETS, ...RETRIEVAL_SETS]
  const groups = [{ name: 'tuning', repos: tuningRepositories() }, ...sets.map((set) => ({ name: set.name, repos: heldoutRepositories(set) }))]
  for (const [i, a] of groups.entries()) {
    for (const b of groups.slice(i + 1)) {
      const shared = [...a.repos].filter((r) => b.repos.has(r))
      assert.deepEqual(shared, [], `${a.name} and ${b.name} share ${shared.join(', ')}`)
    }
  }
  for (const set of HELDOUT_SETS) {
    for (const repo of heldoutRepositories(set)) assert.ok(!TUNING_PROJECTS.includes(repo.split('/')[1]), `${set.name}: ${repo} is one of the tuning projects`)
  }
  for (const repo of heldoutRepositories(HELDOUT_SETS[1])) {
    assert.ok(!FIRST_HELDOUT_PROJECTS.includes(repo.split('/')[1]), `second held-out: ${repo} is one of the first held-out projects`)
  }
  for (const repo of heldoutRepositories(HELDOUT_SETS[2])) {
    const name = repo.split('/')[1]
    assert.ok(![...FIRST_HELDOUT_PROJECTS, ...SECOND_HELDOUT_PROJECTS].includes(name), `third held-out: ${repo} is one of the earlier held-out projects`)
  }
})

test('the second held-out set has five projects with the same names in its retrieval and pairs folders', () => {
  const set = HELDOUT_SETS[1]
  const names = (dir) => fs.readdirSync(path.join(root, dir)).filter((n) => n.endsWith('.json')).sort()
  assert.equal(names(set.retrievalDir).length, 5)
  assert.deepEqual(names(set.pairsDir), names(set.retrievalDir))
  for (const name of names(set.retrievalDir)) {
    const a = JSON.parse(fs.readFileSync(path.join(root, set.retrievalDir, name), 'utf8')).source
    const b = JSON.parse(fs.readFileSync(path.join(root, set.pairsDir, name), 'utf8')).source
    assert.equal(a.repository, b.repository, `${name}: retrieval and pairs name different repositories`)
    assert.equal(a.commit, b.commit, `${name}: retrieval and pairs name different commits`)
  }
})

test('the third held-out set has five projects of pairs only, 4 to 6 rules each, and at least three contradictions per file in the rule\'s own words', () => {
  const set = HELDOUT_SETS[2]
  const pairs = readSet(path.join(root, set.pairsDir))
  assert.equal(set.retrievalDir, undefined)
  assert.equal(pairs.length, 5)
  for (const { name, data } of pairs) {
    assert.ok(data.rules.length >= 4 && data.rules.length <= 6, `${name}: ${data.rules.length} rules`)
    const rules = new Map(data.rules.map((r) => [r.id, r.text]))
    const ownWords = data.pairs.filter((p) => p.kind === 'contradicts-rule' && tokenJaccard(rules.get(p.rule), p.second) >= 0.5)
    assert.ok(ownWords.length >= 3, `${name}: ${ownWords.length} contradictions reuse the rule's wording`)
  }
})

// Sets of realistic size (issue 56, item 2): tune-4 for tuning, and held-out sets from other projects. Each project has
// 30 or more rules, a `notes` array of background notes (the haystack, loaded before the pairs) and hard negatives of kind
// `distinct-from-rule` (a note on a rule's subject that neither restates nor contradicts it).
const SIZED_KINDS = { rewording: 10, distinct: 10, 'restates-rule': 10, 'contradicts-rule': 10, supersedes: 8, 'distinct-from-rule': 10 }
const RULE_KINDS = new Set(['restates-rule', 'contradicts-rule', 'distinct-from-rule'])
const SIZED_SETS = [
  { name: 'tuning set 4', pairsDir: 'bench/memory-pairs/tune-4' },
  { name: 'fifth held-out', pairsDir: 'bench/memory-pairs/heldout-5' },
  { name: 'sixth held-out', pairsDir: 'bench/memory-pairs/heldout-6' },
  { name: 'seventh held-out', pairsDir: 'bench/memory-pairs/heldout-7' },
  { name: 'eighth held-out', pairsDir: 'bench/memory-pairs/heldout-8' },
  { name: 'ninth held-out', pairsDir: 'bench/memory-pairs/heldout-9' },
  { name: 'tenth held-out', pairsDir: 'bench/memory-pairs/heldout-10' },
  { name: 'eleventh held-out', pairsDir: 'bench/memory-pairs/heldout-11' },
  { name: 'twelfth held-out', pairsDir: 'bench/memory-pairs/heldout-12' },
  { name: 'thirteenth held-out', pairsDir: 'bench/memory-pairs/heldout-13' },
  { name: 'fourteenth held-out', pairsDir: 'bench/memory-pairs/heldout-14' },
  { name: 'fifteenth held-out', pairsDir: 'bench/memory-pairs/heldout-15' },
  { name: 'sixteenth held-out', pairsDir: 'bench/memory-pairs/heldout-16' },
  { name: 'seventeenth held-out', pairsDir: 'bench/memory-pairs/heldout-17' },
  { name: 'eighteenth held-out', pairsDir: 'bench/memory-pairs/heldout-18' },
  { name: 'nineteenth held-out', pairsDir: 'bench/memory-pairs/heldout-19' },
  { name: 'twentieth held-out', pairsDir: 'bench/memory-pairs/heldout-20' },
  { name: 'twenty-first held-out', pairsDir: 'bench/memory-pairs/heldout-21' },
  { name: 'twenty-second held-out', pairsDir: 'bench/memory-pairs/heldout-22' },
  { name: 'twenty-third held-out', pairsDir: 'bench/memory-pairs/heldout-23' },
  { name: 'twenty-fourth held-out', pairsDir: 'bench/memory-pairs/heldout-24' },
  { name: 'twenty-fifth held-out', pairsDir: 'bench/memory-pairs/heldout-25' },
  { name: 'twenty-sixth held-out', pairsDir: 'bench/memory-pairs/heldout-26' },
  { name: 'twenty-seventh held-out', pairsDir: 'bench/memory-pairs/heldout-27' },
  { name: 'twenty-eighth held-out', pairsDir: 'bench/memory-pairs/heldout-28' },
  { name: 'twenty-ninth held-out', pairsDir: 'bench/memory-pairs/heldout-29' },
  { name: 'thirtieth held-out', pairsDir: 'bench/memory-pairs/heldout-30' },
]

/** Every folder of bench/ that holds a labelled set written from repositories (one JSON file per project). */
function allSetDirs() {
  const pairs = path.join(root, 'bench/memory-pairs')
  const pairDirs = fs.readdirSync(pairs, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `bench/memory-pairs/${d.name}`)
  const projectDirs = fs
    .readdirSync(path.join(root, 'bench'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('memory-') && fs.existsSync(path.join(root, 'bench', d.name, 'projects')))
    .map((d) => `bench/${d.name}/projects`)
  return [...pairDirs, ...projectDirs]
}

/** The repositories (lower-cased owner/name) the JSON files of `dir` are written from. */
function repositoriesOf(dir) {
  return new Set(readSet(path.join(root, dir)).map(({ data }) => data.source?.repository?.toLowerCase()).filter(Boolean))
}

function assertSizedPair(p, rules, name) {
  assert.ok(p.kind in SIZED_KINDS, `${name}: ${p.id} has unknown kind ${p.kind}`)
  assert.ok(typeof p.topic === 'string' && p.topic.length > 0, `${name}: ${p.id} topic`)
  assert.ok(typeof p.second === 'string' && p.second.length > 0, `${name}: ${p.id} second`)
  if (RULE_KINDS.has(p.kind)) {
    assert.ok(rules.has(p.rule), `${name}: ${p.id} names rule ${p.rule}, which is not in rules`)
    assert.equal(p.first, undefined, `${name}: ${p.id} is about a rule and has a first`)
  } else {
    assert.ok(typeof p.first === 'string' && p.first.length > 0 && p.first !== p.second, `${name}: ${p.id} first`)
    assert.equal(p.rule, undefined, `${name}: ${p.id} names a rule`)
  }
}

for (const set of SIZED_SETS) {
  const files = readSet(path.join(root, set.pairsDir))

  test(`${set.name}: rules, notes and pairs have their fields, unique ids, and every named rule exists`, () => {
    const ids = new Set()
    for (const { name, data } of files) {
      assertSource(data.source, name)
      assert.ok(typeof data.source.language === 'string' && data.source.language.length > 0, `${name}: source.language`)
      const rules = new Set()
      for (const r of data.rules) {
        assert.ok(typeof r.id === 'string' && typeof r.text === 'string' && r.text.length > 0, `${name}: bad rule ${JSON.stringify(r)}`)
        assert.ok(!rules.has(r.id), `${name}: rule id ${r.id} is not unique`)
        rules.add(r.id)
      }
      assert.ok(Array.isArray(data.notes), `${name}: no notes array`)
      for (const n of data.notes) {
        assert.ok(typeof n.id === 'string' && typeof n.topic === 'string' && n.topic.length > 0 && typeof n.text === 'string' && n.text.length > 0, `${name}: bad note ${JSON.stringify(n)}`)
        assert.ok(!ids.has(n.id), `${name}: note id ${n.id} is not unique`)
        ids.add(n.id)
      }
      for (const p of data.pairs) {
        assert.ok(!ids.has(p.id), `${name}: pair id ${p.id} is not unique`)
        ids.add(p.id)
        assertSizedPair(p, rules, name)
      }
    }
  })

  test(`${set.name}: two projects of realistic size: 30 rules, 200 notes loaded, the minimum pairs per kind, no text twice, three contradictions in the rule's words`, () => {
    assert.equal(files.length, 2, `${set.pairsDir}: ${files.length} projects`)
    for (const { name, data } of files) {
      assert.ok(data.rules.length >= 30, `${name}: ${data.rules.length} rules`)
      const firsts = data.pairs.filter((p) => p.first !== undefined).map((p) => p.first)
      assert.ok(data.notes.length + firsts.length >= 200, `${name}: ${data.notes.length} notes and ${firsts.length} firsts`)
      const counts = Object.fromEntries(Object.keys(SIZED_KINDS).map((k) => [k, 0]))
      for (const p of data.pairs) counts[p.kind]++
      for (const [kind, min] of Object.entries(SIZED_KINDS)) assert.ok(counts[kind] >= min, `${name}: ${kind}: ${counts[kind]} < ${min}`)
      const texts = [...data.notes.map((n) => n.text), ...firsts, ...data.pairs.map((p) => p.second)]
      const seen = new Set()
      for (const t of texts) {
        assert.ok(!seen.has(t.toLowerCase()), `${name}: the text "${t}" appears twice`)
        seen.add(t.toLowerCase())
      }
      for (const p of data.pairs.filter((p) => p.kind === 'rewording')) {
        const jaccard = tokenJaccard(p.first, p.second)
        assert.ok(jaccard >= 0.3 && jaccard <= 0.95, `${name}: ${p.id} token Jaccard ${jaccard.toFixed(2)}`)
      }
      const ruleText = new Map(data.rules.map((r) => [r.id, r.text]))
      const ownWords = data.pairs.filter((p) => p.kind === 'contradicts-rule' && tokenJaccard(ruleText.get(p.rule), p.second) >= 0.5)
      assert.ok(ownWords.length >= 3, `${name}: ${ownWords.length} contradictions reuse the rule's wording`)
    }
  })

  test(`${set.name}: no repository (or repository name) is shared with any other set in bench/`, () => {
    const own = repositoriesOf(set.pairsDir)
    assert.equal(own.size, files.length, `${set.pairsDir}: two files name one repository`)
    for (const dir of allSetDirs().filter((d) => d !== set.pairsDir)) {
      const names = new Set([...repositoriesOf(dir)].map((r) => r.split('/')[1]))
      for (const repo of own) assert.ok(!names.has(repo.split('/')[1]), `${set.pairsDir} and ${dir} share ${repo}`)
    }
  })
}

test('the sets of realistic size are each written from projects of different languages, every held-out set with one the tuning set has not', () => {
  const languagesOf = (set) => readSet(path.join(root, set.pairsDir)).map(({ data }) => data.source.language.toLowerCase())
  const tuning = new Set(languagesOf(SIZED_SETS[0]))
  for (const set of SIZED_SETS) {
    const languages = languagesOf(set)
    assert.equal(new Set(languages).size, languages.length, `${set.name}: languages ${languages.join(', ')}`)
    if (set !== SIZED_SETS[0]) assert.ok(languages.some((l) => !tuning.has(l)), `${set.name}: only the tuning set's languages (${languages.join(', ')})`)
  }
})
