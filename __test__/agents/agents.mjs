// Running the real agents headless, offline, against the fake model server:
// HOME in a temp dir, only loopback, every run bounded by a timeout.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after } from 'node:test'
import { fileURLToPath } from 'node:url'
import { startFakeModel } from './fake-model.mjs'
import { rustBin } from '../rust-bin.mjs'

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const platform = `${process.platform}-${process.arch}`

function firstExisting(candidates) {
  return candidates.find((p) => fs.existsSync(p))
}

/** Claude Code's native binary from the pinned devDependency. */
export function claudeBinary() {
  const nm = path.join(repo, 'node_modules')
  return firstExisting([
    path.join(nm, `@anthropic-ai/claude-code-${platform}/claude`),
    path.join(nm, '@anthropic-ai/claude-code/bin/claude.exe'),
  ])
}

/** opencode's native binary from the pinned devDependency. */
export function opencodeBinary() {
  const nm = path.join(repo, 'node_modules')
  const os = process.platform === 'win32' ? 'windows' : process.platform
  return firstExisting([
    path.join(nm, `opencode-${os}-${process.arch}/bin/opencode`),
    path.join(nm, 'opencode-ai/bin/opencode.exe'),
  ])
}

/** The Rust CLI ([`rustBin`]: the shipped release executable when current, else a debug build). */
export function waveRulesBinary() {
  return rustBin()
}

/**
 * Runs a command without blocking the event loop (the fake server lives in
 * this process), stdin closed, killed after `timeout` ms.
 */
export function run(cmd, args, { cwd, env, timeout }) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeout)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ status: null, stdout, stderr: `${stderr}\n${error}`, timedOut, ms: Date.now() - started })
    })
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr, timedOut, ms: Date.now() - started })
    })
  })
}

/** An environment with nothing of the user's: PATH, a temp HOME, and `extra`. */
export function isolatedEnv(home, extra) {
  const env = { PATH: process.env.PATH, HOME: home, USERPROFILE: home, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? '/tmp' }
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
  return { ...env, ...extra }
}

/** Claude Code's environment offline: the fake model at `url`, a dummy key, no telemetry or updates; `extra` on top. */
export function claudeEnv(home, url, extra = {}) {
  return isolatedEnv(home, {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-dummy',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  })
}

/**
 * Gemini CLI's environment offline: API-key auth chosen in HOME's
 * settings, the Gemini API at `url`, the folder trusted, no telemetry and no
 * browser; `extra` on top.
 */
export function geminiEnv(home, url, extra = {}) {
  writeTree(home, { '.gemini/settings.json': JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }) })
  return isolatedEnv(home, {
    GEMINI_API_KEY: 'dummy-key',
    GOOGLE_GEMINI_BASE_URL: url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_BROWSER: 'true',
    ...extra,
  })
}

/** The package installed in `work` as npm leaves it: `node_modules/.bin/wave-rules` is `bin`. */
export function installBin(work, bin) {
  fs.mkdirSync(path.join(work, 'node_modules/.bin'), { recursive: true })
  fs.symlinkSync(bin, path.join(work, 'node_modules/.bin/wave-rules'))
}

/** Writes files under `root`: `{ 'a/b.md': 'text' }`. */
export function writeTree(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
  }
}

/**
 * Makes `work` an empty git repository (`HEAD`, `objects`, `refs`, as the
 * eval's scratch copies are): a project of its own, as users' projects are.
 * The agents take the git root for the project (Codex reads AGENTS.md from
 * it down, Copilot CLI its hooks and trust), and so does our project root:
 * nothing above the temp folder (another tool's `.wave`, a stray `.git`
 * sandboxes leave in /tmp, an AGENTS.md) takes its place.
 */
export function gitProject(work) {
  for (const dir of ['objects', 'refs/heads', 'refs/tags']) fs.mkdirSync(path.join(work, '.git', dir), { recursive: true })
  fs.writeFileSync(path.join(work, '.git', 'HEAD'), 'ref: refs/heads/main\n')
}

/** `gitProject(work)`, trusted in `home` for Copilot CLI. */
export function copilotProject(work, home) {
  gitProject(work)
  writeTree(home, { '.copilot/config.json': JSON.stringify({ trusted_folders: [work] }) })
}

/** The rules the agents' tests share, by name: `rules('general', 'ts')` gives their files for `writeTree`. */
const RULE_TEXTS = {
  general: 'Keep functions small.\n',
  db: '---\ntopics: [customer]\n---\nThe customer table is read-only.\n',
  ts: '---\npaths: src/**/*.ts\n---\nStrict TS everywhere.\n',
  api: '---\npaths: src/api/**\n---\nAPI handlers validate input.\n',
  gen: '---\npaths: gen/**\n---\nGenerated files carry a header.\n',
  review: '---\npaths: src/**\nremind: every-turn\ndescription: Run the type checker before you finish.\n---\nRun `tsc --noEmit` before you finish.\n',
}
export function rules(...names) {
  return Object.fromEntries(names.map((n) => [`.wave/rules/${n}.md`, RULE_TEXTS[n]]))
}
/** What the model receives of each shared rule (STOP: the start of the every-turn reminder at Stop). */
export const SAID = {
  GENERAL: '[general.md] Keep functions small.',
  DB: '[db.md] The customer table is read-only.',
  TS: '[ts.md] Strict TS everywhere.',
  API: '[api.md] API handlers validate input.',
  GEN: '[gen.md] Generated files carry a header.',
  STOP: 'Before you end your turn',
}

/** Each shared rule's id and the text the model receives of it (SAID). */
export const ENTRIES = Object.fromEntries(
  Object.values(SAID)
    .filter((t) => t.startsWith('['))
    .map((t) => [t.slice(1, t.indexOf(']')), t]),
)

/** The delivery log's entries of a state directory for the project `work` (and `session`), oldest first. */
export function deliveryLog(state, work, session) {
  const real = (p) => { try { return fs.realpathSync(p) } catch { return p } }
  const out = []
  for (const name of ['deliveries.3.jsonl', 'deliveries.2.jsonl', 'deliveries.1.jsonl', 'deliveries.jsonl']) {
    const file = path.join(state, 'log', name)
    if (!fs.existsSync(file)) continue
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line.trim()) out.push(JSON.parse(line))
  }
  return out
    .filter((d) => real(d.project) === real(work) && (session === undefined || d.session === session))
    .sort((a, b) => a.time - b.time)
}

/**
 * The delivery log agrees with what reached the model: for each rule of
 * `entries` (`{ id: text the model receives }`), the times the log says it
 * was given (to `session`, or to any session of `work`) equal the times its
 * text is in `body`, the conversation as the model last received it (no
 * compaction since the log's first line); each logged delivery names
 * `agent`. `since` (ms): only the log's lines from then on (the body holds
 * only what came after a compaction). `count` is fake-model's. Returns the
 * log's entries.
 */
export function assertLogMatches({ state, work, session, body, agent, count, since = 0, entries = ENTRIES }) {
  const log = deliveryLog(state, work, session).filter((d) => d.time >= since)
  for (const [id, text] of Object.entries(entries)) {
    const logged = log.filter((d) => d.rules.some((r) => r.id === id)).length
    if (count(body, text) !== logged) {
      throw new Error(`${id}: the model received it ${count(body, text)} times, the delivery log says ${logged}\n${JSON.stringify(log, null, 1)}`)
    }
  }
  for (const d of log) {
    if (d.agent !== agent) throw new Error(`a delivery by ${d.agent}, not ${agent}: ${JSON.stringify(d)}`)
    if (!(d.tokens > 0) || d.rules.some((r) => !(r.tokens > 0) || !/^[0-9a-f]{16}$/.test(r.version))) throw new Error(`no tokens or version: ${JSON.stringify(d)}`)
  }
  return log
}

/**
 * The setup every end-to-end test file shares: `await h.start()` (first in
 * the file's own `before`: node:test does not order hooks registered by
 * different modules) makes a temp root (`prefix` + random) and starts the
 * fake model server on 127.0.0.1, as `h.root` and `h.server`; after the
 * file's tests, every request the model received is kept as `<dump>.json`
 * when WAVE_AGENTS_DUMP=dir is set, the server closed and the root removed.
 */
export function agentHarness({ prefix, dump }) {
  const h = {
    root: undefined,
    server: undefined,
    async start() {
      h.root ??= fs.mkdtempSync(path.join(os.tmpdir(), prefix))
      h.server ??= await startFakeModel({ workdir: h.root })
      return h
    },
  }
  after(async () => {
    if (h.server && dump && process.env.WAVE_AGENTS_DUMP) {
      fs.mkdirSync(process.env.WAVE_AGENTS_DUMP, { recursive: true })
      fs.writeFileSync(path.join(process.env.WAVE_AGENTS_DUMP, `${dump}.json`), JSON.stringify(h.server.requests, null, 1))
    }
    await h.server?.close()
    if (h.root) fs.rmSync(h.root, { recursive: true, force: true })
  })
  return h
}

/** Codex's native binary from the pinned devDependency (@openai/codex). */
export function codexBinary() {
  const nm = path.join(repo, 'node_modules')
  const triple = { 'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl', 'darwin-x64': 'x86_64-apple-darwin', 'darwin-arm64': 'aarch64-apple-darwin' }[`${process.platform}-${process.arch}`]
  if (!triple) return null
  return firstExisting([path.join(nm, `@openai/codex-${process.platform}-${process.arch}/vendor/${triple}/bin/codex`)])
}

/** Gemini CLI's script from the pinned devDependency (@google/gemini-cli), run with this Node. */
export function geminiScript() {
  return firstExisting([path.join(repo, 'node_modules/@google/gemini-cli/bundle/gemini.js')])
}

/** Copilot CLI's native binary from the pinned devDependency (@github/copilot). */
export function copilotBinary() {
  const nm = path.join(repo, 'node_modules')
  return firstExisting([path.join(nm, `@github/copilot-${process.platform}-${process.arch}/copilot`)])
}

/** Qwen Code's script from the pinned devDependency (@qwen-code/qwen-code), run with this Node. */
export function qwenScript() {
  return firstExisting([path.join(repo, 'node_modules/@qwen-code/qwen-code/cli-entry.js')])
}

/** Kilo Code CLI's native binary from the pinned devDependency (@kilocode/cli). */
export function kiloBinary() {
  const nm = path.join(repo, 'node_modules')
  return firstExisting([path.join(nm, `@kilocode/cli-${process.platform}-${process.arch}/bin/kilo`)])
}
