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
 *
 * Which files a tool call touched is the core's decision (`touchedFiles`:
 * every agent's file keys, shell commands, patches): this module only finds
 * the tool calls in each SDK's message shapes.
 */
import path from 'node:path'
// Before '../index': loads the engine with the package's clear error.
import './binding'
import { toolInputKeys, touchedFiles } from '../index'
import type { AgentToolCall } from '../index'

const KEYS = toolInputKeys()
/** Tool parameters that name one file (the core's list). */
export const FILE_KEYS: readonly string[] = KEYS.file
/** Tool parameters that name several files (the core's list). */
export const FILE_LIST_KEYS: readonly string[] = KEYS.fileList

export interface ContextOptions {
  /** Absolute paths under this directory are made relative to it. */
  workdir?: string
}

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

const NO_CALLS: readonly AgentToolCall[] = []

/**
 * The tool calls of a message (name and parameters), in order. Allocates
 * nothing for a message without any (most of a conversation: text, tool
 * results), as it runs for every message read.
 */
export function toolCalls(message: unknown): readonly AgentToolCall[] {
  if (!isObj(message)) return NO_CALLS
  let out: AgentToolCall[] | undefined
  const push = (name: unknown, raw: unknown) => {
    const input = parseParams(raw)
    if (input) (out ??= []).push({ name: typeof name === 'string' ? name : '', input })
  }
  if (message.type === 'function_call') push(message.name, message.arguments)
  if (Array.isArray(message.blocks)) {
    for (const b of message.blocks) if (isObj(b) && b.type === 'tool') push(b.name, b.parameters ?? b.input)
  }
  if (Array.isArray(message.tool_calls)) {
    for (const c of message.tool_calls) if (isObj(c) && isObj(c.function)) push(c.function.name, c.function.arguments)
  }
  if (Array.isArray(message.content)) {
    for (const b of message.content) {
      if (isObj(b) && (b.type === 'tool_use' || b.type === 'tool-call')) push(b.name ?? b.toolName, b.input ?? b.args)
    }
  }
  return out ?? NO_CALLS
}

/**
 * The files each of these tool calls touched (the core's `touchedFiles`),
 * one list per call; never throws (a call it cannot read touched nothing).
 */
export function filesOfCalls(calls: readonly AgentToolCall[]): string[][] {
  if (calls.length === 0) return []
  try {
    return touchedFiles(calls as AgentToolCall[])
  } catch {
    return calls.map(() => [])
  }
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
 * The files the conversation has touched: what its tool calls touched (the
 * core decides: `FILE_KEYS`, `FILE_LIST_KEYS`, shell commands, patches), and
 * `@path` mentions in user text; normalized, de-duplicated, in first-seen
 * order.
 */
export function contextFilesFromMessages(messages: readonly unknown[], options: ContextOptions = {}): string[] {
  const seen = new Set<string>()
  const add = (v: unknown) => {
    if (typeof v !== 'string' || v.trim() === '') return
    const f = normalizeFile(v, options.workdir)
    if (f !== '') seen.add(f)
  }
  if (!Array.isArray(messages)) return []
  filesOfMessages(messages, 0, messages.length, (i) => userText(messages[i]), add)
  return [...seen]
}

/**
 * Calls `add` with each file one message names (`@path` mentions in its user
 * text `text`, then what its tool calls touched), raw (not normalized).
 */
export function filesOfMessage(message: unknown, text: string, add: (file: unknown) => void): void {
  filesOfMessages([message], 0, 1, () => text, add)
}

/**
 * `filesOfMessage` for the messages `from` to `to` (exclusive), in order, with
 * one call into the core for all their tool calls.
 * @internal
 */
export function filesOfMessages(messages: readonly unknown[], from: number, to: number, text: (i: number) => string, add: (file: unknown) => void): void {
  const calls: AgentToolCall[] = []
  const owner: number[] = []
  const texts: string[] = []
  for (let i = from; i < to; i++) {
    let t = ''
    try {
      t = text(i)
      for (const c of toolCalls(messages[i])) {
        calls.push(c)
        owner.push(i)
      }
    } catch {
      // A message that cannot be read adds nothing.
    }
    texts.push(t)
  }
  const files = filesOfCalls(calls)
  let k = 0
  for (let i = from; i < to; i++) {
    const t = texts[i - from]
    if (t !== '') for (const m of mentions(t)) add(m)
    for (; k < calls.length && owner[k] === i; k++) for (const f of files[k] ?? []) add(f)
  }
}
