// `wave-rules lsp` speed, measured from a client process over stdio, on a
// generated repository of 10,000 files and 500 rules (bench/report-tree.mjs):
// a keystroke's diagnostics (didChange sent -> publishDiagnostics received,
// p50/p95 over 300 keystrokes that break and fix a rule's key in turn), and a
// save (the whole load again, only the changed files read, and the walk);
// each beside what an editor without the server would run per keystroke:
// one `wave-rules validate FILE` process (spawn to exit). `--quick` does
// fewer. Prints the table for docs/PERFORMANCE.md.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeTree } from './report-tree.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..')
const quick = process.argv.includes('--quick')
const KEYSTROKES = quick ? 60 : 300
const SAVES = quick ? 5 : 20
const PROCESSES = quick ? 10 : 30
const FILES = 10_000
const RULES = 500

/**
 * `WAVE_RULES_BIN`, else the release executable `npm run bench` (its
 * `build:all`) left in target/release/, else one built now (`--build`
 * builds it in any case).
 */
function releaseBinary() {
  if (process.env.WAVE_RULES_BIN) return path.resolve(process.env.WAVE_RULES_BIN)
  const built = path.join(repo, 'target/release/wave-rules')
  if (fs.existsSync(built) && !process.argv.includes('--build')) return built
  const build = spawnSync('cargo', ['build', '--release', '-q', '-p', 'wave-rules'], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] })
  if (build.status !== 0) throw new Error('cargo build --release -p wave-rules failed')
  return path.join(repo, 'target/release/wave-rules')
}

const pct = (samples, p) => {
  const s = [...samples].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const fmt = (ms) => (ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`)

/** A bare LSP client: Content-Length frames over the child's stdio. */
function lspClient(child) {
  let buf = Buffer.alloc(0)
  const waiters = []
  child.stdout.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk])
    for (;;) {
      const head = buf.indexOf('\r\n\r\n')
      if (head < 0) return
      const length = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())[1])
      if (buf.length < head + 4 + length) return
      const message = JSON.parse(buf.subarray(head + 4, head + 4 + length).toString())
      buf = buf.subarray(head + 4 + length)
      const i = waiters.findIndex((w) => w.wanted(message))
      if (i >= 0) waiters.splice(i, 1)[0].resolve(message)
    }
  })
  const send = (m) => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...m })
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }
  const wait = (wanted) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer in 60 s')), 60_000)
      waiters.push({ wanted, resolve: (m) => (clearTimeout(timer), resolve(m)) })
    })
  return { send, wait }
}

async function main() {
  const bin = releaseBinary()
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-lsp-bench-'))
  const workdir = path.join(root, 'work')
  const home = path.join(root, 'home')
  fs.mkdirSync(workdir, { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  try {
    const { rules } = makeTree(workdir, { files: FILES, rules: RULES })
    const rule = rules.find((r) => r.text.startsWith('---\npaths:'))
    const file = path.join(workdir, '.wave/rules', rule.id)
    const uri = 'file://' + file
    const child = spawn(bin, ['lsp', '--workdir', workdir, '--home', home], { stdio: ['pipe', 'pipe', 'inherit'] })
    const c = lspClient(child)
    let id = 1
    const request = (method, params) => {
      const n = id++
      c.send({ id: n, method, params })
      return c.wait((m) => m.id === n)
    }
    const diagnostics = () => c.wait((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri)
    const t0 = performance.now()
    await request('initialize', { processId: null, rootUri: 'file://' + workdir, capabilities: {} })
    c.send({ method: 'initialized', params: {} })
    const text = fs.readFileSync(file, 'utf8')
    let got = diagnostics()
    c.send({ method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'markdown', version: 1, text } } })
    await got
    const started = performance.now() - t0
    // Each keystroke turns `paths:` into `pathz:` (a misspelled-key error)
    // or back: one character replaced on line 1.
    const keystrokes = []
    for (let i = 0; i < KEYSTROKES; i++) {
      const ch = i % 2 === 0 ? 'z' : 's'
      got = diagnostics()
      const t = performance.now()
      c.send({
        method: 'textDocument/didChange',
        params: { textDocument: { uri, version: i + 2 }, contentChanges: [{ range: { start: { line: 1, character: 4 }, end: { line: 1, character: 5 } }, text: ch }] },
      })
      const m = await got
      keystrokes.push(performance.now() - t)
      const misspelled = m.params.diagnostics.some((d) => d.code === 'misspelled-key')
      if (misspelled !== (ch === 'z')) throw new Error(`keystroke ${i}: ${JSON.stringify(m.params.diagnostics)}`)
    }
    const saves = []
    for (let i = 0; i < SAVES; i++) {
      got = diagnostics()
      const t = performance.now()
      c.send({ method: 'textDocument/didSave', params: { textDocument: { uri } } })
      await got
      saves.push(performance.now() - t)
    }
    await request('shutdown', null)
    c.send({ method: 'exit' })
    const processes = []
    for (let i = 0; i < PROCESSES; i++) {
      const t = performance.now()
      const r = spawnSync(bin, ['validate', file, '--workdir', workdir, '--home', home])
      processes.push(performance.now() - t)
      if (r.status !== 0 && r.status !== 1) throw new Error(String(r.stderr))
    }
    const k50 = pct(keystrokes, 50)
    const v50 = pct(processes, 50)
    console.log(`wave-rules lsp, ${FILES.toLocaleString('en')} files and ${RULES} rules (${os.cpus().length} cores, ${process.platform})`)
    console.log('| measure | p50 | p95 | ratio |')
    console.log('| --- | --- | --- | --- |')
    console.log(`| a keystroke's diagnostics (didChange -> publishDiagnostics, ${KEYSTROKES}) | ${fmt(k50)} | ${fmt(pct(keystrokes, 95))} | 1 |`)
    console.log(`| one \`wave-rules validate FILE\` process (spawn to exit, ${PROCESSES}) | ${fmt(v50)} | ${fmt(pct(processes, 95))} | ${(v50 / k50).toFixed(1)}x the keystroke |`)
    console.log(`| a save (the whole load again + the walk, ${SAVES}) | ${fmt(pct(saves, 50))} | ${fmt(pct(saves, 95))} | ${(pct(saves, 50) / k50).toFixed(1)}x the keystroke |`)
    console.log(`| start (spawn, initialize, open: the load and the walk, to the first diagnostics; once) | ${fmt(started)} | | |`)
    console.log(`keystroke p50 against the 50 ms goal: ${(k50 / 50).toFixed(3)} of it`)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
