/**
 * `ConversationReader`: reads a conversation incrementally, so that the cost
 * of a message does not grow with the length of the conversation.
 *
 * It keeps what it has read (the files in context, in first-seen order, and
 * the latest user text) and, on the next call, reads only the messages added
 * since. Whether the history still starts with what it saw is a cheap check of
 * two messages, the first and the last one seen: the same object, or (for
 * SDKs that rebuild message objects for every request, like the AI SDK) the
 * same bounded fingerprint (role, part types, tool-call ids, text lengths and
 * ends). A history that fails the check (compaction, an edit, another
 * session) is read again from the start, and the update says so (`reset`).
 */
import { filesOfMessages, normalizeFile, userText } from './context'
import type { ContextOptions } from './context'

export interface ConversationUpdate {
  /** Every file in context so far, first-seen order (shared: do not modify). */
  files: readonly string[]
  /** The files this call added to `files`. */
  newFiles: string[]
  /** The latest user text ('' when none). */
  prompt: string
  /** The history was not a continuation of what was read: read from the start. */
  reset: boolean
  /** How many messages were read by this call. */
  read: number
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null

/** At most this many parts of a message enter its fingerprint. */
const FINGERPRINT_PARTS = 16
/** Characters kept from each end of a text in a fingerprint. */
const FINGERPRINT_CHARS = 24

function textKey(s: string): string {
  return s.length <= FINGERPRINT_CHARS * 2 ? s : `${s.length}:${s.slice(0, FINGERPRINT_CHARS)}…${s.slice(-FINGERPRINT_CHARS)}`
}

/** A bounded summary of a message: equal for equal messages, cheap to make. */
export function fingerprint(message: unknown): string {
  if (typeof message === 'string') return `s:${textKey(message)}`
  if (!isObj(message)) return `v:${String(message)}`
  let key = `r:${String(message.role)}|t:${String(message.type)}`
  const callId = message.callId ?? message.call_id ?? message.id
  if (typeof callId === 'string') key += `#${callId}`
  if (typeof message.arguments === 'string') key += `|a:${textKey(message.arguments)}`
  if (typeof message.output === 'string') key += `|o:${textKey(message.output)}`
  const content = message.content ?? message.blocks
  if (typeof content === 'string') return `${key}|${textKey(content)}`
  if (!Array.isArray(content)) return `${key}|${content === undefined ? '' : typeof content}`
  key += `|n${content.length}`
  const n = Math.min(content.length, FINGERPRINT_PARTS)
  for (let i = 0; i < n; i++) {
    const p = content[i]
    if (!isObj(p)) {
      key += `|${typeof p === 'string' ? textKey(p) : typeof p}`
      continue
    }
    key += `|${String(p.type)}`
    const id = p.toolCallId ?? p.id ?? p.tool_use_id
    if (typeof id === 'string') key += `#${id}`
    if (typeof p.text === 'string') key += `:${textKey(p.text)}`
  }
  if (Array.isArray(message.tool_calls)) key += `|tc${message.tool_calls.length}`
  return key
}

export class ConversationReader {
  readonly #workdir: string | undefined
  #files: string[] = []
  #seen = new Set<string>()
  #prompt = ''
  #count = 0
  #first: unknown = undefined
  #firstKey = ''
  #last: unknown = undefined
  #lastKey = ''

  constructor(options: ContextOptions = {}) {
    this.#workdir = options.workdir
  }

  /** The files in context read so far. */
  get files(): readonly string[] {
    return this.#files
  }

  /** The latest user text read so far. */
  get prompt(): string {
    return this.#prompt
  }

  /** Forgets everything read: the next call reads from the start. */
  reset(): void {
    this.#files = []
    this.#seen = new Set()
    this.#prompt = ''
    this.#count = 0
    this.#first = this.#last = undefined
    this.#firstKey = this.#lastKey = ''
  }

  /** Reads the messages not read yet (all of them when the history changed). Never throws. */
  read(messages: readonly unknown[]): ConversationUpdate {
    const list = Array.isArray(messages) ? messages : []
    let reset = false
    if (this.#count > 0 && !this.#continues(list)) {
      this.reset()
      reset = true
    }
    const newFiles: string[] = []
    const add = (v: unknown) => {
      if (typeof v !== 'string' || v.trim() === '') return
      const f = normalizeFile(v, this.#workdir)
      if (f === '' || this.#seen.has(f)) return
      this.#seen.add(f)
      this.#files.push(f)
      newFiles.push(f)
    }
    const start = this.#count
    const text = (i: number) => {
      const t = userText(list[i])
      if (t.trim() !== '') this.#prompt = t
      return t
    }
    filesOfMessages(list, start, list.length, text, add)
    if (list.length > 0 && list.length !== start) {
      if (start === 0) {
        this.#first = list[0]
        this.#firstKey = fingerprint(list[0])
      }
      this.#last = list[list.length - 1]
      this.#lastKey = fingerprint(this.#last)
    }
    this.#count = list.length
    return { files: this.#files, newFiles, prompt: this.#prompt, reset, read: list.length - start }
  }

  /** The history still holds the first and the last message seen, in place. */
  #continues(list: readonly unknown[]): boolean {
    if (list.length < this.#count) return false
    const same = (m: unknown, obj: unknown, key: string) => m === obj || fingerprint(m) === key
    return same(list[this.#count - 1], this.#last, this.#lastKey) && same(list[0], this.#first, this.#firstKey)
  }
}
