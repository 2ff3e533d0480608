// A fake model server on 127.0.0.1 for the real agents: the Anthropic
// Messages API (SSE streaming or not) for Claude Code, OpenAI-compatible
// chat completions for opencode, Copilot CLI and Qwen Code, the Gemini API for Gemini
// CLI, and the OpenAI Responses API (SSE) for Codex. It records every
// request and answers with tool calls scripted in the user's prompt, one per
// directive, in order, then a plain answer ("Done."):
//
// | directive | the agent's tool |
// | --- | --- |
// | `READ:f` | its file reader (Codex: `cat f` through its shell) |
// | `WRITE:f` | its file writer (Codex: a redirection into `f`) |
// | `EDIT:f` | its edit tool, replacing the file's first line (Codex: `apply_patch` Update File where offered, else `sed -i`) |
// | `PATCH:f` | `apply_patch` Add File (Codex, where the model is offered it) |
// | `CAT:f` | its shell, `cat f` (Gemini CLI: `sed -n`) |
// | `SH:<base64url command>` | its shell, with that command line (`shDirective`) |
// | `AGENT:<base64url prompt>` | its subagent tool with that task (`agentDirective`): Claude Code `Agent` (waited for), Codex `spawn_agent` then `wait_agent`, Gemini CLI `invoke_agent` (generalist), Copilot CLI `task` (sync), opencode `task` (general) |
// | `CALL:<tool>:<base64url JSON>` | the tool whose name is or ends with `_<tool>` (MCP tools: `mcp__server__tool`, `server_tool`), with that input |
// | `OBEY:<base64url JSON>` | a model that follows a rule only when its text reached it (`obeyDirective`): the `then` directives when `marker` is anywhere in the request (and, with `p`, a seeded draw under `p`, one per conversation), else the `else` ones |
//
// A subagent's task is its own user message, so the directives in it script
// the subagent; those of the parent's prompt are hidden from it in base64.
// A tool call the agent refused (a hook's deny) still counts as a step. A
// subagent of Gemini CLI ends by calling its `complete_task`. A string
// `{{key}}` in a scripted input is the newest `key` an earlier tool output
// (JSON) held (Codex's `wait_agent` waits for the id `spawn_agent` gave).
import http from 'node:http'
import fs from 'node:fs'
import path from 'node:path'

const DIRECTIVE = /\b(READ|WRITE|CAT|EDIT|PATCH):([A-Za-z0-9_./-]+)|\b(SH|AGENT):([A-Za-z0-9_-]+)|\bCALL:([A-Za-z0-9_]+):([A-Za-z0-9_-]+)|\bOBEY:([A-Za-z0-9_-]+)/g
const b64 = (text) => Buffer.from(text).toString('base64url')
const unb64 = (text) => Buffer.from(text, 'base64url').toString('utf8')

/** The directive that makes the fake model call `tool` with `input`. */
export function callDirective(tool, input) {
  return `CALL:${tool}:${b64(JSON.stringify(input))}`
}

/** The directive that makes the fake model run `command` through the agent's shell tool. */
export function shDirective(command) {
  return `SH:${b64(command)}`
}

/** The directive that makes the fake model start a subagent (the agent's own subagent tool) with the task `prompt`. */
export function agentDirective(prompt) {
  return `AGENT:${b64(prompt)}`
}

/**
 * The directive that makes the fake model follow a rule only when its text
 * reached it: `then` (directives, e.g. `shDirective(...)`) when `marker` is
 * anywhere in the request, else `otherwise`. With `p`, it follows a reached
 * rule only when a draw of a generator seeded with `seed` falls under `p`
 * (one draw per conversation, told apart by its eval scratch directory).
 */
export function obeyDirective(marker, then, otherwise, { p, seed } = {}) {
  return `OBEY:${b64(JSON.stringify({ marker, then, else: otherwise, p, seed }))}`
}

/** A seeded generator in [0, 1) (mulberry32). */
export function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The fake model's OBEY decisions, in order: `{ run, reached, followed }`. */
export const obeyed = []
const draws = new Map()
const generators = new Map()

/** Whether an OBEY directive is followed for this request (and the decision, recorded once per conversation). */
function obey(spec, body) {
  const all = JSON.stringify(body)
  const reached = all.includes(JSON.stringify(spec.marker).slice(1, -1))
  const run = /wave-eval-\d+-\d+-\d+/.exec(all)?.[0] ?? 'no-run'
  if (!draws.has(run)) {
    let draw = 0
    if (spec.p !== undefined) {
      if (!generators.has(spec.seed)) generators.set(spec.seed, mulberry32(spec.seed ?? 1))
      draw = generators.get(spec.seed)()
    }
    draws.set(run, draw)
  }
  const followed = reached && (spec.p === undefined || draws.get(run) < spec.p)
  const last = obeyed.findLast((o) => o.run === run)
  if (!last || last.reached !== reached || last.followed !== followed) obeyed.push({ run, reached, followed })
  return followed
}

/** Every text in a value, depth-first (for searching what reached the model). */
export function texts(value, out = []) {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) value.forEach((v) => texts(v, out))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => texts(v, out))
  return out
}

/** How many times `needle` occurs in a request's messages (and system). */
export function count(body, needle) {
  const all = texts([body.system ?? '', body.messages ?? [], body.input ?? [], body.instructions ?? '', body.contents ?? [], body.systemInstruction ?? '']).join('\n')
  return all.split(needle).length - 1
}

function messageUserTexts(messages) {
  const out = []
  for (const m of messages ?? []) {
    if (m.role !== 'user') continue
    if (typeof m.content === 'string') out.push(m.content)
    else if (Array.isArray(m.content)) for (const c of m.content) if (c.type === 'text') out.push(c.text)
  }
  return out
}

/**
 * The texts of a request's user messages, whatever its API: Anthropic
 * Messages and chat completions (`messages`), the Responses API (`input`),
 * the Gemini API (`contents`).
 */
export function userTexts(body) {
  if (Array.isArray(body?.messages)) return messageUserTexts(body.messages)
  if (Array.isArray(body?.input)) {
    return body.input
      .filter((i) => i.role === 'user')
      .flatMap((i) => (typeof i.content === 'string' ? [i.content] : (i.content ?? []).map((c) => c.text ?? '')))
  }
  if (Array.isArray(body?.contents)) return body.contents.filter((c) => c.role === 'user').flatMap((c) => (c.parts ?? []).filter((p) => typeof p.text === 'string').map((p) => p.text))
  return []
}

/** An agent's request to summarise the conversation for its compaction (Codex, Copilot CLI, Gemini CLI's wording). */
const COMPACTION_REQUEST = /CONTEXT CHECKPOINT COMPACTION|The history is being compacted|<state_snapshot>/

/** The fake model's summary for a compaction: the requests that hold it come after one. */
export const SUMMARY = 'Summary: the task is under way.'

/** Whether a request body is an agent's compaction request (its last user text asks for the summary). */
export function isCompactionRequest(body) {
  const messages = body.messages ?? (Array.isArray(body.input) ? responsesMessages(body.input) : body.contents?.map((c) => ({ role: c.role, content: (c.parts ?? []).map((p) => ({ type: 'text', text: p.text ?? '' })) })))
  return COMPACTION_REQUEST.test(messageUserTexts(messages).at(-1) ?? '')
}

/** The first line of a file under `workdir` (what `EDIT:` replaces), '' when it cannot be read. */
function firstLine(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n')[0]
  } catch {
    return ''
  }
}

const EDITED = 'export const edited = 1'
const CREATED = 'export const created = 1'

/**
 * The tool calls one directive makes in one agent's dialect (`flavour`),
 * given the tools it offers; [] when it offers none that fits.
 */
function callsFor(flavour, [verb, arg, payload], toolNames, workdir) {
  const has = (name) => toolNames.includes(name)
  const one = (name, input) => (has(name) ? [{ name, input }] : [])
  const file = verb === 'SH' || verb === 'AGENT' || verb === 'CALL' ? '' : path.join(workdir, arg)
  if (verb === 'CALL') {
    const name = toolNames.find((n) => n === arg || n.endsWith(`_${arg}`))
    return name ? [{ name, input: JSON.parse(unb64(payload)) }] : []
  }
  // Qwen Code (a Gemini CLI fork) speaks chat completions with Gemini's tool names.
  const qwen = flavour === 'openai' && has('run_shell_command') && has('read_file')
  const shell = { anthropic: ['Bash', 'command'], responses: ['exec_command', 'cmd'], gemini: ['run_shell_command', 'command'], openai: [qwen ? 'run_shell_command' : has('bash') ? 'bash' : 'Bash', 'command'] }[flavour]
  const sh = (command) => one(shell[0], { [shell[1]]: command, ...(flavour === 'anthropic' || flavour === 'openai' ? { description: 'run' } : {}) })
  if (verb === 'SH') return sh(unb64(arg))
  if (verb === 'CAT') return sh(flavour === 'gemini' ? `sed -n '1,20p' ${arg}` : `cat ${arg}`)
  const patch = (hunk) => one('apply_patch', `*** Begin Patch\n${hunk}*** End Patch\n`)
  if (verb === 'AGENT') {
    const task = unb64(arg)
    if (flavour === 'anthropic') return one('Agent', { description: 'sub task', prompt: task, subagent_type: 'general-purpose', run_in_background: false })
    if (flavour === 'responses') return has('spawn_agent') ? [{ name: 'spawn_agent', input: { message: task } }, { name: 'wait_agent', input: { targets: ['{{agent_id}}'], timeout_ms: 60000 } }] : []
    if (flavour === 'gemini') return one('invoke_agent', { agent_name: 'generalist', prompt: task })
    if (qwen) return one('agent', { description: 'sub task', prompt: task, subagent_type: 'general-purpose' })
    if (has('view')) return one('task', { description: 'sub task', name: 'helper', prompt: task, agent_type: 'general-purpose', mode: 'sync' })
    return one('task', { description: 'sub task', prompt: task, subagent_type: 'general' })
  }
  if (flavour === 'responses') {
    if (verb === 'READ') return sh(`cat ${arg}`)
    if (verb === 'WRITE') return sh(`mkdir -p ${path.dirname(arg)} && echo '${CREATED}' > ${arg}`)
    if (verb === 'PATCH') return patch(`*** Add File: ${arg}\n+${CREATED}\n`)
    if (verb === 'EDIT') return has('apply_patch') ? patch(`*** Update File: ${arg}\n@@\n-${firstLine(file)}\n+${EDITED}\n`) : sh(`sed -i '1s/.*/${EDITED}/' ${arg}`)
  }
  if (verb === 'PATCH') return patch(`*** Add File: ${arg}\n+${CREATED}\n`)
  const old = firstLine(file)
  if (flavour === 'gemini') {
    if (verb === 'READ') return one('read_file', { file_path: arg })
    if (verb === 'WRITE') return one('write_file', { file_path: arg, content: `${CREATED}\n` })
    return one('replace', { file_path: arg, instruction: 'edit', old_string: old, new_string: EDITED })
  }
  if (flavour === 'anthropic') {
    if (verb === 'READ') return one('Read', { file_path: file })
    if (verb === 'WRITE') return one('Write', { file_path: file, content: `${CREATED}\n` })
    return one('Edit', { file_path: file, old_string: old, new_string: EDITED })
  }
  if (qwen) {
    if (verb === 'READ') return one('read_file', { file_path: file })
    if (verb === 'WRITE') return one('write_file', { file_path: file, content: `${CREATED}\n` })
    return one('edit', { file_path: file, old_string: old, new_string: EDITED })
  }
  if (has('view')) {
    // Copilot CLI: view / create / edit with `path`.
    if (verb === 'READ') return one('view', { path: file })
    if (verb === 'WRITE') return one('create', { path: file, file_text: `${CREATED}\n` })
    return one('edit', { path: file, old_str: old, new_str: EDITED })
  }
  // opencode
  if (verb === 'READ') return one('read', { filePath: file })
  if (verb === 'WRITE') return one('write', { filePath: file, content: `${CREATED}\n` })
  return one('edit', { filePath: file, oldString: old, newString: EDITED })
}

/** A user text with each OBEY directive replaced by the directives it picks for `body`. */
function expandObey(text, body) {
  return text.replace(/\bOBEY:([A-Za-z0-9_-]+)/g, (_, payload) => {
    const spec = JSON.parse(unb64(payload))
    return ` ${obey(spec, body) ? spec.then : spec.else} `
  })
}

/** The next scripted step for a conversation: a tool call, or text. */
function nextStep(messages, toolNames, workdir, flavour, summary = SUMMARY, body = {}) {
  // A compaction's summary: plain text, no directive and no rule in it.
  if (COMPACTION_REQUEST.test(messageUserTexts(messages).at(-1) ?? '')) return { text: summary }
  const steps = []
  for (const t of messageUserTexts(messages)) {
    for (const m of expandObey(t, body).matchAll(DIRECTIVE)) {
      const directive = m[1] ? [m[1], m[2]] : m[3] ? [m[3], m[4]] : ['CALL', m[5], m[6]]
      const calls = callsFor(flavour, directive, toolNames, workdir)
      // A directive this agent has no tool for is skipped (it counts as no step).
      steps.push(...calls)
    }
  }
  // Steps already taken: tool calls in the assistant messages.
  let done = 0
  for (const m of messages ?? []) {
    if (m.role !== 'assistant') continue
    if (Array.isArray(m.content)) done += m.content.filter((c) => c.type === 'tool_use').length
    if (Array.isArray(m.tool_calls)) done += m.tool_calls.length
  }
  const step = steps[done]
  if (step) return { tool: step }
  // A Gemini CLI subagent ends only through its complete_task tool.
  if (flavour === 'gemini' && toolNames.includes('complete_task')) return { tool: { name: 'complete_task', input: { result: { response: 'Done.' } } } }
  return { text: 'Done.' }
}

/**
 * A scripted input may name a value an earlier tool call returned: the
 * string `{{key}}` becomes the newest `key` of the tool outputs (JSON) so far
 * (Codex's `wait_agent` takes the id `spawn_agent` returned).
 */
function fillFromOutputs(input, outputs) {
  const find = (key) => {
    for (const text of [...outputs].reverse()) {
      try {
        const v = JSON.parse(text)
        if (v && typeof v === 'object' && key in v) return v[key]
      } catch {}
    }
    return undefined
  }
  const walk = (v) => {
    if (typeof v === 'string') {
      const m = /^\{\{(\w+)\}\}$/.exec(v)
      return m ? (find(m[1]) ?? v) : v
    }
    if (Array.isArray(v)) return v.map(walk)
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
    return v
  }
  return walk(input)
}

/** The Responses API's items as chat-like messages for `nextStep`. */
function responsesMessages(input) {
  const out = []
  for (const item of Array.isArray(input) ? input : [{ role: 'user', content: String(input ?? '') }]) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') out.push({ role: 'assistant', content: [{ type: 'tool_use' }] })
    else if (item.role === 'user') {
      const text = typeof item.content === 'string' ? item.content : (item.content ?? []).map((c) => c.text ?? '').join('\n')
      out.push({ role: 'user', content: text })
    }
  }
  return out
}

function responses(body, res, workdir, ctx) {
  // Namespaced tools (Codex's `multi_agent_v1`): each function by its own name.
  const namespaces = new Map()
  for (const t of body.tools ?? []) if (t.type === 'namespace') for (const f of t.tools ?? []) namespaces.set(f.name, t.name)
  // Freeform tools (Codex's `apply_patch` for the models that have it): the input is text.
  const custom = new Set((body.tools ?? []).filter((t) => t.type === 'custom').map((t) => t.name))
  const toolNames = (body.tools ?? []).flatMap((t) => (t.type === 'namespace' ? (t.tools ?? []).map((f) => f.name) : [t.name])).filter(Boolean)
  const step = nextStep(responsesMessages(body.input), toolNames, workdir, 'responses', ctx.summary, body)
  if (step.tool) step.tool.input = fillFromOutputs(step.tool.input, (Array.isArray(body.input) ? body.input : []).filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output))))
  const n = ++ids
  const id = `resp_${n}`
  const item = step.tool
    ? custom.has(step.tool.name)
      ? { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: step.tool.name, input: String(step.tool.input), status: 'completed' }
      : { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: step.tool.name, ...(namespaces.has(step.tool.name) ? { namespace: namespaces.get(step.tool.name) } : {}), arguments: JSON.stringify(step.tool.input), status: 'completed' }
    : { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] }
  const input_tokens = ctx.usageFor(body)
  const usage = { input_tokens, output_tokens: 5, total_tokens: input_tokens + 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }
  sse(res, [
    ['response.created', { type: 'response.created', response: { id, status: 'in_progress', output: [] } }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: { id, status: 'completed', output: [item], usage } }],
  ])
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  for (const [event, data] of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
  res.end()
}

let ids = 0

function anthropic(body, res, workdir) {
  const toolNames = (body.tools ?? []).map((t) => t.name)
  const step = nextStep(body.messages, toolNames, workdir, 'anthropic', SUMMARY, body)
  const id = `msg_${++ids}`
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  const block = step.tool ? { type: 'tool_use', id: `toolu_${ids}`, name: step.tool.name, input: step.tool.input } : { type: 'text', text: step.text }
  const stop = step.tool ? 'tool_use' : 'end_turn'
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage }))
    return
  }
  const start = step.tool ? { ...block, input: {} } : { type: 'text', text: '' }
  const delta = step.tool ? { type: 'input_json_delta', partial_json: JSON.stringify(step.tool.input) } : { type: 'text_delta', text: step.text }
  sse(res, [
    ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ])
}

function openai(body, res, workdir, ctx) {
  const toolNames = (body.tools ?? []).map((t) => t.function?.name)
  // Chat messages: tool calls live in assistant.tool_calls, results in role 'tool'.
  const step = nextStep(body.messages, toolNames, workdir, 'openai', ctx.summary, body)
  const id = `chatcmpl-${++ids}`
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model }
  const call = step.tool && { index: 0, id: `call_${ids}`, type: 'function', function: { name: step.tool.name, arguments: JSON.stringify(step.tool.input) } }
  const prompt_tokens = ctx.usageFor(body)
  const usage = { prompt_tokens, completion_tokens: 5, total_tokens: prompt_tokens + 5 }
  if (!body.stream) {
    const message = step.tool ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: step.text }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ id, object: 'chat.completion', created: base.created, model: body.model, choices: [{ index: 0, message, finish_reason: step.tool ? 'tool_calls' : 'stop' }], usage }))
    return
  }
  const delta = step.tool ? { role: 'assistant', tool_calls: [call] } : { role: 'assistant', content: step.text }
  sse(res, [
    [null, { ...base, choices: [{ index: 0, delta, finish_reason: null }] }],
    [null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: step.tool ? 'tool_calls' : 'stop' }] }],
    [null, { ...base, choices: [], usage }],
    [null, '[DONE]'],
  ])
}

/**
 * The Gemini API (generativelanguage `models/*:generateContent`,
 * `:streamGenerateContent?alt=sse`, `:countTokens`) for Gemini CLI: the
 * conversation is `contents` (roles user/model, parts text / functionCall /
 * functionResponse), the tools `tools[].functionDeclarations`.
 */
function gemini(url, body, res, workdir, ctx) {
  if (url.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ totalTokens: 10 }))
    return
  }
  const toolNames = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name))
  // As chat messages, for nextStep: user texts, and one tool call per functionCall part.
  const messages = (body.contents ?? []).map((c) =>
    c.role === 'model'
      ? { role: 'assistant', tool_calls: (c.parts ?? []).filter((p) => p.functionCall) }
      : { role: 'user', content: (c.parts ?? []).filter((p) => typeof p.text === 'string').map((p) => ({ type: 'text', text: p.text })) },
  )
  // A side request with a JSON answer (Gemini CLI's next-speaker check): no tools.
  const wantsJson = body.generationConfig?.responseMimeType === 'application/json'
  // Its compaction's summary and check (no tools): the summary.
  const step = isCompactionRequest(body)
    ? { text: ctx.summary }
    : wantsJson || toolNames.length === 0
      ? { text: wantsJson ? JSON.stringify({ next_speaker: ctx.nextSpeaker(), reasoning: 'scripted' }) : 'Done.' }
      : nextStep(messages, toolNames, workdir, 'gemini', ctx.summary, body)
  if (step.tool && !toolNames.includes(step.tool.name)) step.tool = undefined
  const part = step.tool ? { functionCall: { name: step.tool.name, args: step.tool.input } } : { text: step.text ?? 'Done.' }
  const promptTokenCount = ctx.usageFor(body)
  const answer = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount, candidatesTokenCount: 5, totalTokenCount: promptTokenCount + 5 },
    modelVersion: 'gemini-2.5-flash',
  }
  if (url.includes(':streamGenerateContent')) return sse(res, [[null, answer]])
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(answer))
}

/**
 * Starts the server. `requests` holds `{ path, body }` of every request, in
 * order; `workdir` is where scripted paths are resolved.
 */
export async function startFakeModel({ workdir }) {
  const requests = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      let body = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
      } catch {
        body = {}
      }
      const url = req.url ?? ''
      requests.push({ method: req.method, path: url, body })
      try {
        if (req.method === 'POST' && url.includes('/messages/count_tokens')) {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ input_tokens: 100 }))
        } else if (req.method === 'POST' && url.includes('/messages')) anthropic(body, res, server.workdir)
        else if (req.method === 'POST' && /:(stream)?[gG]enerateContent|:countTokens/.test(url)) gemini(url, body, res, server.workdir, ctx)
        else if (req.method === 'POST' && url.includes('/chat/completions')) openai(body, res, server.workdir, ctx)
        else if (req.method === 'POST' && url.includes('/responses')) responses(body, res, server.workdir, ctx)
        else if (url.includes('/models')) {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', type: 'model', display_name: 'Fake' }] }))
        } else {
          res.writeHead(404, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { type: 'not_found_error', message: `no ${url}` } }))
        }
      } catch (e) {
        res.writeHead(500)
        res.end(String(e))
      }
    })
  })
  server.workdir = workdir
  // Reported prompt tokens: 10, or `full.tokens` for the answers `full.when`
  // picks (to make an agent compact); the compaction's summary; who speaks
  // next when Gemini CLI asks (the model `continues` times, then the user).
  let full = { when: () => false, tokens: 0 }
  let continues = 0
  const ctx = {
    usageFor: (body) => (full.when(body, requests.length) ? full.tokens : 10),
    summary: SUMMARY,
    nextSpeaker: () => (continues > 0 && continues-- ? 'model' : 'user'),
  }
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setWorkdir: (dir) => (server.workdir = dir),
    /** Report `tokens` prompt tokens in the answers to the requests `when(body, n)` picks (n: requests so far). */
    reportFullContext: (when, tokens) => (full = { when, tokens }),
    /** The summary the fake model writes when an agent compacts (default SUMMARY). */
    setSummary: (text) => (ctx.summary = text ?? SUMMARY),
    /** Gemini CLI's next-speaker check answers "model" (it sends "Please continue.") the next `n` times. */
    continueAfterAnswer: (n) => (continues = n),
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()) }),
  }
}
