// A ready-made agent for `wave-rules eval --agent command` (docs/eval.md):
//
//   wave-rules eval --agent command --cmd "node examples/eval-agent.mjs" \
//     --base-url http://127.0.0.1:8080/v1 --model my-model
//
// It talks OpenAI chat completions (llama.cpp's llama-server, Ollama, vLLM,
// OpenAI itself) at the address `eval` gives it (OPENAI_BASE_URL: the
// recording proxy), with the model `--model` names (WAVE_EVAL_MODEL; local
// servers need it), the prompt of the scenario (WAVE_EVAL_PROMPT), the
// project's rules in its system prompt (every `.wave/rules/*.md`, as an SDK
// app that reads them at start would give them), and one tool, `bash`, run
// in the scratch copy, for at most 8 steps. It prints the model's last
// answer (what `reply_contains` checks). A scenario of several turns runs
// it once per turn: after the first (WAVE_EVAL_TURN above 1) it goes on with
// the conversation it saved under the scratch home, by its id
// (WAVE_EVAL_CONVERSATION). No dependency: Node 18 or later.
import fs from 'node:fs'
import path from 'node:path'
import { execSync } from 'node:child_process'

const MAX_STEPS = 8
const RULES_DIR = '.wave/rules'

function rules() {
  if (!fs.existsSync(RULES_DIR)) return ''
  return fs
    .readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => fs.readFileSync(path.join(RULES_DIR, f), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, ''))
    .join('\n')
}

const base = process.env.OPENAI_BASE_URL
const prompt = process.env.WAVE_EVAL_PROMPT
if (!base || !prompt) {
  console.error('eval-agent: run me with wave-rules eval --agent command (OPENAI_BASE_URL and WAVE_EVAL_PROMPT are not set)')
  process.exit(2)
}
// The conversation so far (turns after the first), saved outside the project.
const saved = path.join(process.env.HOME ?? '.', '.eval-agent', `${process.env.WAVE_EVAL_CONVERSATION ?? 'conversation'}.json`)
const turn = Number(process.env.WAVE_EVAL_TURN ?? '1')
const messages =
  turn > 1 && fs.existsSync(saved)
    ? JSON.parse(fs.readFileSync(saved, 'utf8'))
    : [{ role: 'system', content: `You are a coding agent in ${process.cwd()}.\nProject rules:\n${rules()}` }]
messages.push({ role: 'user', content: prompt })
function save() {
  fs.mkdirSync(path.dirname(saved), { recursive: true })
  fs.writeFileSync(saved, JSON.stringify(messages))
}
const tools = [
  {
    type: 'function',
    function: {
      name: 'bash',
      description: 'Run a shell command in the project',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
]

function bash(command) {
  try {
    return execSync(command, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) {
    return `exit ${e.status}: ${e.stdout ?? ''}${e.stderr ?? ''}`
  }
}

for (let step = 0; step < MAX_STEPS; step++) {
  const r = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? 'none'}` },
    body: JSON.stringify({ model: process.env.WAVE_EVAL_MODEL || 'default', messages, tools }),
  })
  if (!r.ok) {
    console.error(`eval-agent: the model answered HTTP ${r.status}: ${(await r.text()).slice(0, 300)}`)
    process.exit(1)
  }
  const message = (await r.json()).choices?.[0]?.message
  if (!message) throw new Error('eval-agent: the model answered no message')
  messages.push(message)
  if (!message.tool_calls?.length) {
    save()
    console.log(message.content ?? '')
    process.exit(0)
  }
  for (const call of message.tool_calls) {
    const { command } = JSON.parse(call.function.arguments || '{}')
    messages.push({ role: 'tool', tool_call_id: call.id, content: bash(String(command ?? '')) })
  }
}
console.error(`eval-agent: no answer within ${MAX_STEPS} steps`)
process.exit(1)
