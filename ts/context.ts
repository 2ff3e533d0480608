/**
 * What the conversation is working on: the files its tool calls touched and
 * the text of the latest user message. Accepts the message shapes SDKs use:
 * the agent SDK's own (`blocks: [{ type: 'tool', parameters: '<JSON>' }]`),
 * OpenAI chat (`tool_calls: [{ function: { arguments: '<JSON>' } }]`),
 * Anthropic (`content: [{ type: 'tool_use', input: {...} }]`), the Vercel
 * AI SDK (`content: [{ type: 'tool-call', input: {...} }]`) and OpenAI's
 * Responses items, as the OpenAI Agents SDK keeps them (`{ type:
 * 'function_call', arguments: '<JSON>' }`). Anything it cannot read is
 * skipped, never thrown.
 */
import path from 'node:path'

/** Tool parameters that name one file. */
export const FILE_KEYS = ['file_path', 'path', 'filePath', 'target_file', 'targetFile', 'notebook_path'] as const
/** Tool parameters that name several files. */
export const FILE_LIST_KEYS = ['files', 'paths'] as const

export interface ContextOptions {
  /** Absolute paths under this directory are made relative to it. */
  workdir?: string
}

const SINGLE: ReadonlySet<string> = new Set(FILE_KEYS)
const LISTS: ReadonlySet<string> = new Set(FILE_LIST_KEYS)

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function parseParams(raw: unknown): Obj | undefined {
  if (isObj(raw)) return raw
  if (typeof raw !== 'string') return undefined
  try {
    const v: unknown = JSON.parse(raw)
    return isObj(v) ? v : undefined
  } catch {
    return undefined
  }
}

/** The parameter objects of every tool call in a message, in order. */
const NO_PARAMS: readonly Obj[] = []

/**
 * The parameters of a message's tool calls. Allocates nothing for a message
 * without any (most of a conversation: text, tool results), as it runs for
 * every message read.
 */
function toolParams(message: unknown): readonly Obj[] {
  if (!isObj(message)) return NO_PARAMS
  let out: Obj[] | undefined
  const push = (raw: unknown) => {
    const p = parseParams(raw)
    if (p) (out ??= []).push(p)
  }
  if (message.type === 'function_call') push(message.arguments)
  if (Array.isArray(message.blocks)) {
    for (const b of message.blocks) if (isObj(b) && b.type === 'tool') push(b.parameters ?? b.input)
  }
  if (Array.isArray(message.tool_calls)) {
    for (const c of message.tool_calls) if (isObj(c) && isObj(c.function)) push(c.function.arguments)
  }
  if (Array.isArray(message.content)) {
    for (const b of message.content) if (isObj(b) && (b.type === 'tool_use' || b.type === 'tool-call')) push(b.input ?? b.args)
  }
  return out ?? NO_PARAMS
}

/** The text a user typed in a message (empty for other roles). */
export function userText(message: unknown): string {
  if (!isObj(message) || message.role !== 'user') return ''
  const parts: string[] = []
  const take = (v: unknown) => {
    if (typeof v === 'string') parts.push(v)
  }
  take(message.content)
  for (const list of [message.content, message.blocks]) {
    if (!Array.isArray(list)) continue
    for (const b of list) {
      if (!isObj(b) || (b.type !== undefined && b.type !== 'text' && b.type !== 'input_text')) continue
      take(b.text)
      take(b.content)
    }
  }
  return parts.join('\n')
}

/** The latest user message's text: the prompt topics are matched against. */
export function lastUserText(messages: readonly unknown[]): string {
  if (!Array.isArray(messages)) return ''
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = userText(messages[i])
    if (text.trim() !== '') return text
  }
  return ''
}

const MENTION = /(?:^|[\s(])@([^\s@()]+)/g

/** `@path` mentions in text that look like paths (contain `/` or `.`). */
export function mentions(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(MENTION)) {
    const p = m[1].replace(/[.,;:!?'"`\]]+$/, '')
    if (p.includes('/') || p.includes('.')) out.push(p)
  }
  return out
}

/** `\` to `/`, no leading `./`, relative to `workdir` when under it. */
export function normalizeFile(file: string, workdir?: string): string {
  let f = file.trim().replace(/\\/g, '/')
  if (workdir && path.isAbsolute(file.trim())) {
    const rel = path.relative(workdir, file.trim())
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) f = rel.replace(/\\/g, '/')
  }
  while (f.startsWith('./')) f = f.slice(2)
  return f
}

/**
 * The files the conversation has touched: tool-call parameters named in
 * `FILE_KEYS` / `FILE_LIST_KEYS`, and `@path` mentions in user text;
 * normalized, de-duplicated, in first-seen order.
 */
export function contextFilesFromMessages(messages: readonly unknown[], options: ContextOptions = {}): string[] {
  const seen = new Set<string>()
  const add = (v: unknown) => {
    if (typeof v !== 'string' || v.trim() === '') return
    const f = normalizeFile(v, options.workdir)
    if (f !== '') seen.add(f)
  }
  if (!Array.isArray(messages)) return []
  for (const message of messages) filesOfMessage(message, userText(message), add)
  return [...seen]
}

/**
 * Calls `add` with each file one message names (`@path` mentions in its user
 * text `text`, then its tool-call parameters), raw (not normalized).
 */
export function filesOfMessage(message: unknown, text: string, add: (file: unknown) => void): void {
  if (text !== '') for (const m of mentions(text)) add(m)
  for (const params of toolParams(message)) {
    // Object.keys, not Object.entries: no [key, value] pair per key.
    for (const key of Object.keys(params)) {
      if (SINGLE.has(key)) add(params[key])
      else if (LISTS.has(key)) {
        const value = params[key]
        if (Array.isArray(value)) value.forEach(add)
      }
    }
  }
}
