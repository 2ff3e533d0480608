// `wave-rules mcp` speed, measured from a client process over stdio, at 200
// rules: a tool call's round trip (p50/p95 over 1,000 calls) through the
// official TypeScript client and through a bare line client; start to the
// first answer (spawn, initialize, one rules_for_files); each as a ratio to
// one `wave-rules match` process (spawn to exit). `--quick` does fewer.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { installFromTarballs } from './npm-install.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..')
const quick = process.argv.includes('--quick')
const CALLS = quick ? 200 : 1000
const STARTS = quick ? 10 : 40
const RULES = 200

/**
 * `WAVE_RULES_BIN`, else the release executable `npm run bench` (its
 * `build:all`) left in target/release/, else one built now (`--build`
 * builds it in any case).
 */
function releaseBinary() {
  if (process.env.WAVE_RULES_BIN) return path.resolve(process.env.WAVE_RULES_BIN)
  const built = path.join(repo, 'target/release/wave-rules')
  if (fs.existsSync(built) && !process.argv.includes('--build')) return built
  const build = spawnSync('cargo', ['build', '--release', '-q', '-p', 'wave-rules'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] })
  if (build.status !== 0) throw new Error('cargo build --release -p wave-rules failed')
  return path.join(repo, 'target/release/wave-rules')
}

/** 200 rules: path globs over a few directories, some topics, some always on. */
function makeTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-mcp-bench-'))
  const workdir = path.join(root, 'work')
  const home = path.join(root, 'home')
  fs.mkdirSync(home, { recursive: true })
  const dirs = ['src', 'lib', 'app', 'packages/core', 'packages/ui', 'docs', 'tests', 'scripts']
  const exts = ['ts', 'tsx', 'js', 'md', 'json', 'py', 'rs']
  const old = new Date(Date.now() - 3600_000)
  for (let i = 0; i < RULES; i++) {
    const lines = ['---']
    if (i % 10 !== 0) lines.push(`paths: "${dirs[i % dirs.length]}/**/*.${exts[i % exts.length]}"`)
    if (i % 4 === 0) lines.push(`topics: [topic${i}]`)
    lines.push(`priority: ${i % 5}`, '---', `Rule ${i}: conventions for this part of the code.`, '- Keep it short.', '- Test it.')
    const file = path.join(workdir, '.wave/rules', `group${i % 10}`, `rule${String(i).padStart(3, '0')}.md`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, lines.join('\n') + '\n')
    fs.utimesSync(file, old, old)
  }
  return { root, workdir, home }
}

const pct = (samples, p) => {
  const s = [...samples].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const fmt = (ms) => (ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`)

/** A bare newline-delimited JSON-RPC client over a child's stdio. */
function lineClient(child) {
  let buf = ''
  const waiting = new Map()
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (d) => {
    buf += d
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (!line.trim()) continue
      const msg = JSON.parse(line)
      if (msg.id !== undefined && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg)
        waiting.delete(msg.id)
      }
    }
  })
  let id = 0
  return {
    request(method, params) {
      const my = ++id
      return new Promise((resolve) => {
        waiting.set(my, resolve)
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n')
      })
    },
    notify(method) {
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n')
    },
  }
}

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } }
const FILES = ['src/app/main.ts', 'packages/ui/button.tsx', 'docs/guide.md']

async function startToFirstAnswer(command, args, cwd) {
  const t0 = performance.now()
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] })
  const c = lineClient(child)
  await c.request('initialize', INIT)
  c.notify('notifications/initialized')
  const r = await c.request('tools/call', { name: 'rules_for_files', arguments: { paths: FILES } })
  const ms = performance.now() - t0
  if (r.error || !r.result?.content?.[0]?.text?.includes('Rule ')) throw new Error(`unexpected answer: ${JSON.stringify(r)}`)
  child.stdin.end()
  await new Promise((resolve) => child.on('close', resolve))
  return ms
}

function processWall(command, args, cwd) {
  const t0 = performance.now()
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return performance.now() - t0
}

async function main() {
  const bin = releaseBinary()
  const tree = makeTree()
  const base = ['--workdir', tree.workdir, '--home', tree.home]
  const out = []
  const log = (s) => {
    out.push(s)
    console.log(s)
  }
  log(`## MCP server (\`wave-rules mcp\`), ${RULES} rules, over stdio`)
  log('')
  log(`Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores; Node ${process.version}. Command: node bench/mcp.mjs${quick ? ' --quick' : ''} (release binary).`)
  log('')

  // One `wave-rules match` process, spawn to exit: the unit of the ratios.
  const match = []
  for (let i = 0; i < STARTS; i++) match.push(processWall(bin, [...base, 'match', ...FILES], tree.workdir))
  const matchP50 = pct(match, 50)

  // Round trips: the official client, and a bare line client.
  const rows = []
  {
    const transport = new StdioClientTransport({ command: bin, args: [...base, 'mcp'], cwd: tree.workdir, stderr: 'ignore' })
    const client = new Client({ name: 'bench', version: '1' })
    await client.connect(transport)
    for (const [label, name, args] of [
      ['rules_for_files, 3 files, again: true (full render)', 'rules_for_files', { paths: FILES, again: true }],
      ['rules_for_files, 3 files (already given: named)', 'rules_for_files', { paths: FILES }],
      ['read_rule', 'read_rule', { id: 'group1/rule001.md' }],
    ]) {
      const samples = []
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now()
        await client.callTool({ name, arguments: args })
        samples.push(performance.now() - t)
      }
      rows.push([`official TS client: ${label}`, samples])
    }
    await client.close()
  }
  {
    const child = spawn(bin, [...base, 'mcp'], { cwd: tree.workdir, stdio: ['pipe', 'pipe', 'ignore'] })
    const c = lineClient(child)
    await c.request('initialize', INIT)
    c.notify('notifications/initialized')
    for (const [label, name, args] of [
      ['rules_for_files, 3 files, again: true (full render)', 'rules_for_files', { paths: FILES, again: true }],
      ['read_rule', 'read_rule', { id: 'group1/rule001.md' }],
    ]) {
      const samples = []
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now()
        await c.request('tools/call', { name, arguments: args })
        samples.push(performance.now() - t)
      }
      rows.push([`bare JSON-RPC client: ${label}`, samples])
    }
    child.stdin.end()
    await new Promise((resolve) => child.on('close', resolve))
  }

  // Start to the first answer: spawn, initialize, one rules_for_files.
  const starts = { binary: [], npm: [], npx: [] }
  // What `mcp install` writes in a project with the package installed from
  // the tarballs: node_modules/.bin/wave-rules (the native executable).
  const npm = installFromTarballs(tree.workdir)
  for (let i = 0; i < STARTS; i++) {
    starts.binary.push(await startToFirstAnswer(bin, [...base, 'mcp'], tree.workdir))
    if (npm.bin) starts.npm.push(await startToFirstAnswer(npm.bin, [...base, 'mcp'], tree.workdir))
  }
  for (let i = 0; i < Math.ceil(STARTS / 2); i++) starts.npx.push(await startToFirstAnswer(process.execPath, [path.join(repo, 'bin/wave-rules.js'), ...base, 'mcp'], tree.workdir))

  log('| measurement | p50 | p95 | p50 / one `match` process |')
  log('| --- | ---: | ---: | ---: |')
  for (const [label, s] of rows) log(`| round trip, ${label} (${s.length} calls) | ${fmt(pct(s, 50))} | ${fmt(pct(s, 95))} | ${(pct(s, 50) / matchP50).toFixed(3)} |`)
  log(`| start to first answer, binary (spawn, initialize, rules_for_files; ${starts.binary.length} runs) | ${fmt(pct(starts.binary, 50))} | ${fmt(pct(starts.binary, 95))} | ${(pct(starts.binary, 50) / matchP50).toFixed(2)} |`)
  if (npm.bin) log(`| start to first answer, npm install: node_modules/.bin/wave-rules mcp (what \`mcp install\` writes; ${starts.npm.length} runs) | ${fmt(pct(starts.npm, 50))} | ${fmt(pct(starts.npm, 95))} | ${(pct(starts.npm, 50) / matchP50).toFixed(2)} |`)
  else log(`| start to first answer, npm install | not measured: ${npm.reason} | | |`)
  log(`| start to first answer, \`node bin/wave-rules.js mcp\` (node + addon; ${starts.npx.length} runs) | ${fmt(pct(starts.npx, 50))} | ${fmt(pct(starts.npx, 95))} | ${(pct(starts.npx, 50) / matchP50).toFixed(2)} |`)
  log(`| one \`wave-rules match\` process, 3 files (spawn to exit; ${match.length} runs) | ${fmt(matchP50)} | ${fmt(pct(match, 95))} | 1 |`)
  log('')
  fs.rmSync(tree.root, { recursive: true, force: true })
  if (process.env.BENCH_OUT) fs.appendFileSync(process.env.BENCH_OUT, out.join('\n') + '\n')
}

await main()
