// The pure-JS implementation (the agent SDK's algorithm) that bench/bench.mjs
// and bench/memory.mjs measure the addon against: recursive readdir, a
// line-based frontmatter reader, and per message minimatch for every rule x
// pattern x file. It compiles nothing.
import fs from 'node:fs'
import path from 'node:path'
import { minimatch } from 'minimatch'

/** Line-based frontmatter reader: `paths`, `topics`, `priority`. */
function jsParse(text) {
  const lines = text.split(/\r?\n/)
  const metadata = {}
  let body = text
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1)
    if (end > 0) {
      let list = null
      for (const line of lines.slice(1, end)) {
        const item = /^\s+-\s+(.*)$/.exec(line)
        if (item && list) {
          metadata[list].push(item[1].trim().replace(/^["']|["']$/g, ''))
          continue
        }
        const kv = /^(\w+):\s*(.*)$/.exec(line)
        if (!kv) continue
        const [, key, value] = kv
        list = null
        if (key === 'priority') metadata.priority = Number(value)
        else if (key === 'paths' || key === 'topics') {
          if (value === '') metadata[(list = key)] = []
          else metadata[key] = value.replace(/^\[|\]$/g, '').split(',').map((s) => s.trim().replace(/^["']|["']$/g, '')).filter(Boolean)
        }
      }
      body = lines.slice(end + 1).join('\n')
    }
  }
  return { metadata, content: body.trim() }
}

async function jsScan(dir, source, out) {
  let entries
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const e of entries) {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) await jsScan(full, source, out)
    else if (e.isFile() && e.name.endsWith('.md')) {
      const { metadata, content } = jsParse(await fs.promises.readFile(full, 'utf8'))
      out.push({ id: full, content, metadata, source, filePath: full })
    }
  }
}

const wordStart = (prompt, topic) => {
  const p = prompt.toLowerCase()
  const t = topic.toLowerCase()
  for (let i = p.indexOf(t); i >= 0; i = p.indexOf(t, i + 1)) if (i === 0 || !/[\p{L}\p{N}]/u.test(p[i - 1])) return true
  return false
}

export class JsManager {
  constructor(workdir, homeDir) {
    this.workdir = workdir
    this.homeDir = homeDir
    this.rules = []
  }
  async discoverRules() {
    const rules = []
    await jsScan(path.join(this.homeDir, '.wave/rules'), 'user', rules)
    await jsScan(path.join(this.workdir, '.wave/rules'), 'project', rules)
    this.rules = rules
  }
  getRules() {
    return this.rules.slice()
  }
  getActiveRules(files, prompt) {
    return this.rules.filter((rule) => {
      const { paths, topics } = rule.metadata
      if (!paths && !topics) return true
      if (topics && prompt && topics.some((t) => wordStart(prompt, t))) return true
      if (!paths) return false
      const pos = paths.filter((p) => !p.startsWith('!'))
      const neg = paths.filter((p) => p.startsWith('!')).map((p) => p.slice(1))
      return files.some((f) => pos.some((p) => minimatch(f, p, { dot: true })) && !neg.some((p) => minimatch(f, p, { dot: true })))
    })
  }
}
