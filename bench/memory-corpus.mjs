// A large memory for the cost benches: `writeMemory(dir, n)` writes `n`
// entries as topic files (200 topics, entry comments as the store writes
// them, MEMORY.md) into a scope's directory, and `prompts()` gives the
// retrieval set's 108 prompts. The first 316 entries are the retrieval
// set's (bench/memory-retrieval/); the rest are notes of 12 to 52 words drawn
// by a fixed Zipf-like law from the set's own vocabulary, so words are as
// common or as rare as in real notes. Deterministic: the same `n` gives the
// same files. Files are dated an hour back (out of the index's racy window).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const setDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'memory-retrieval')

function set() {
  const user = JSON.parse(fs.readFileSync(path.join(setDir, 'user.json'), 'utf8'))
  const projects = fs
    .readdirSync(path.join(setDir, 'projects'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(setDir, 'projects', f), 'utf8')))
  return { user, projects }
}

/** The retrieval set's prompts (108). */
export function prompts() {
  const { user, projects } = set()
  return [...projects.flatMap((p) => p.queries), ...user.queries].map((q) => ({ prompt: q.prompt, files: q.files }))
}

/** Writes `n` entries into the scope directory `dir` (see the header). */
export function writeMemory(dir, n) {
  const { user, projects } = set()
  const real = [...user.entries, ...projects.flatMap((p) => p.entries)]
  const words = real.flatMap((e) => e.text.split(/[^\p{L}\p{N}_./-]+/u)).filter((w) => w.length > 1)
  const counts = new Map()
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1)
  const vocab = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w)
  let state = 0x2545f491n
  const next = () => {
    state ^= (state << 13n) & 0xffffffffn
    state ^= state >> 17n
    state ^= (state << 5n) & 0xffffffffn
    return Number(state & 0xffffffffn) / 0x100000000
  }
  const topics = Array.from({ length: 200 }, (_, i) => `topic ${i}`)
  const byTopic = new Map(topics.map((t) => [t, []]))
  for (let i = 0; i < n; i++) {
    let text
    if (i < real.length) text = real[i].text
    else {
      const len = 12 + Math.floor(next() * 40)
      const picked = []
      for (let k = 0; k < len; k++) {
        const r = next()
        picked.push(vocab[Math.floor(r * r * r * vocab.length)])
      }
      text = picked.join(' ') + '.'
    }
    const created = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const meta = { id: `b${i.toString(16).padStart(6, '0')}`, created }
    byTopic.get(topics[i % topics.length]).push(`<!-- entry ${JSON.stringify(meta)} -->\n${text}\n`)
  }
  fs.mkdirSync(dir, { recursive: true })
  const old = new Date(Date.now() - 3600_000)
  const lines = []
  for (const t of topics) {
    const file = `${t.replace(/ /g, '-')}.md`
    const p = path.join(dir, file)
    fs.writeFileSync(p, byTopic.get(t).join('\n'))
    fs.utimesSync(p, old, old)
    lines.push(`- [${t}](${file})`)
  }
  lines.sort()
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), ['# Memory', '', 'What the agent has learned, one topic per file.', '', ...lines, ''].join('\n'))
  fs.utimesSync(path.join(dir, 'MEMORY.md'), old, old)
}
