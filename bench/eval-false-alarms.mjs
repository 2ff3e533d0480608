// How often `wave-rules eval`'s gates claim an effect where there is none
// (issue 55): a fake model on 127.0.0.1 that passes with p = 0.5 in both
// arms, whatever reached it; 20 seeded suites of 8 scenarios, each run end
// to end by the real CLI (`--agent command`, a curl agent). Reported: how
// often a scenario claims an uplift (its interval's lower bound above 0),
// how often the suite's sign test is at 0.05 or under (the suite gate
// `--max-suite-p 0.05` would call the rule a help when the scenarios lean
// up), against the nominal 5%.
//
//   node bench/eval-false-alarms.mjs [path/to/wave-rules] [--runs N] [--suites S]
//
// Deterministic: the model's draws come from one seeded generator per
// suite, and `--jobs 1` keeps their order.
import http from 'node:http'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { mulberry32 as generator } from '../__test__/agents/fake-model.mjs'

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? Number(args[i + 1]) : dflt
}
const bin = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? path.resolve('target/debug/wave-rules')
const RUNS = opt('--runs', 10)
const SUITES = opt('--suites', 20)
const SCENARIOS = 8

let draw = generator(1)
const server = http.createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', () => {
    const content = draw() < 0.5 ? 'Bonjour' : 'Hello'
    const answer = { id: 'x', object: 'chat.completion', model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(answer))
  })
})
await new Promise((r) => server.listen(0, '127.0.0.1', r))
const url = `http://127.0.0.1:${server.address().port}/v1`

// The agent sends the project's rule (when the arm has it) and the prompt, and prints the answer.
const AGENT = `printf '{"model":"m","messages":[{"role":"system","content":"%s"},{"role":"user","content":"%s"}]}' "$(tr -d '\\n"\\\\' < .wave/rules/french.md 2>/dev/null)" "$WAVE_EVAL_PROMPT" | curl -sS -H 'content-type: application/json' --data-binary @- "$OPENAI_BASE_URL/chat/completions"`

function project(dir) {
  fs.mkdirSync(path.join(dir, '.wave/rules'), { recursive: true })
  fs.mkdirSync(path.join(dir, '.wave/evals'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.wave/rules/french.md'), 'Answer only in French, whatever the language.\n')
  for (let i = 1; i <= SCENARIOS; i++) {
    fs.writeFileSync(path.join(dir, `.wave/evals/s${i}.yaml`), `prompt: Say hello (${i}).\nrules: [french]\nexpect:\n  - reply_contains: Bonjour\n`)
  }
}

const started = Date.now()
let claims = 0
let fired = 0
let leanUp = 0
const ps = []
for (let s = 1; s <= SUITES; s++) {
  draw = generator(s)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-false-alarms-'))
  project(dir)
  // Not spawnSync: the fake model answers from this process's event loop.
  const r = await new Promise((resolve, reject) => {
    const child = spawn(bin, ['eval', '--agent', 'command', '--cmd', AGENT, '--base-url', url, '--runs', String(RUNS), '--jobs', '1', '--json', '--fresh', '--timeout', '60', '--workdir', dir])
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
  fs.rmSync(dir, { recursive: true, force: true })
  if (r.status !== 0) throw new Error(`suite ${s}: exit ${r.status}: ${r.stderr}`)
  const v = JSON.parse(r.stdout)
  claims += v.scenarios.filter((x) => x.uplift.interval[0] > 0).length
  const suite = v.suites[0].suite
  ps.push(suite.p)
  if (suite.p <= 0.05) {
    fired += 1
    if (suite.up > suite.down) leanUp += 1
  }
}
server.close()
const scenarios = SUITES * SCENARIOS
console.log(`${SUITES} suites of ${SCENARIOS} scenarios, ${RUNS} runs an arm, p = 0.5 in both arms (${((Date.now() - started) / 1000).toFixed(0)} s)`)
console.log(`scenarios claiming an uplift (lower bound > 0): ${claims} of ${scenarios} (${((100 * claims) / scenarios).toFixed(1)}%)`)
console.log(`suites with sign-test p <= 0.05: ${fired} of ${SUITES} (${((100 * fired) / SUITES).toFixed(1)}%); of them leaning up (--max-suite-p 0.05 passes): ${leanUp}`)
console.log(`suite p values: ${ps.map((p) => p.toFixed(3)).join(' ')}`)
