/**
 * `RuleInjector`: what every SDK integration does before a model call, with
 * no SDK assumption. Given a session's messages it works out the rules' text
 * for the system prompt and, in reminder mode, which reminders go where; the
 * adapters (`ai-sdk.ts`, `openai-agents.ts`) only map that onto their SDK's
 * call.
 *
 * A road like the others: each call is one model-call event of the core
 * (`Conversations.respond`), with the files the messages added since the
 * last call (the core decides which files a tool call touched) and the
 * latest user text when it changed; what is active, what is due, the text
 * and what was delivered are the core's, per conversation, bounded. This
 * module keeps, per session and bounded like the core's (`maxSessions`),
 * only what belongs to the SDK's message list: the `ConversationReader`
 * that reads the list incrementally (the messages are JavaScript objects)
 * and where each reminder went in it (the SDK rebuilds the list every call).
 *
 * Per call, the cost does not grow with the conversation: the reader reads
 * only new messages, and the core matches only files new to the
 * conversation (all of them again only when the rule set changed) and
 * renders only when what it renders changed.
 *
 * Rules available on request (a Cursor "Agent Requested" rule, Windsurf
 * `model_decision`, ...) that are not active are offered after the rules
 * section as a short list of ids and descriptions (`Injection.available`);
 * give the model `readRuleTool.definition` and answer its calls with
 * `readRuleTool.run(input)`, which never throws. A manual or on-request rule
 * the prompt mentions (`@name`) is active like a topic rule.
 */
import { ConversationReader } from './conversation'
import { RuleManager, RuleRefresher, readRuleToolDefinition } from './manager'
import type { RuleManagerOptions, ReadRuleToolDefinition } from './manager'
import { Conversations } from '../index'

export interface RuleInjectorOptions {
  /** The rule manager to use; or give `workdir` (and `homeDir`, `sources`) to make one. */
  manager?: RuleManager
  workdir?: string
  homeDir?: string
  sources?: RuleManagerOptions['sources']
  /** Directories outside the workdir project rules may link into (see `RuleManagerOptions.allowDirs`). */
  allowDirs?: string[]
  /** Default `'system-prompt'`. */
  mode?: 'system-prompt' | 'reminders'
  /**
   * The road's name in the delivery log (`wave-rules log`): the AI SDK
   * middleware says `ai-sdk`, the OpenAI Agents filter `openai-agents`;
   * default `sdk`.
   */
  agent?: string
  /** Budget for the rules section of the system prompt (default: none). */
  maxLines?: number
  maxBytes?: number
  /** Memory text, placed after the rules in the system prompt. */
  memory?: () => string | Promise<string>
  /**
   * Recall memory from this store at every call, through the core's
   * session: the index of topics and the pinned entries at the first call,
   * then the entries relevant to a new prompt and to the new files in
   * context that the conversation was not given (again after a compaction),
   * within `recallMaxBytes` (default: the core's `DEFAULT_RECALL_BYTES`).
   * The system section is written anew each call: the index and the latest
   * recall stay in it after the rules (and after `memory`).
   */
  recall?: import('./memory').MemoryStore
  recallMaxBytes?: number
  /**
   * Rules are reloaded (incrementally) before a call when at least this many
   * milliseconds passed since the last reload. Default 1000; 0: before every
   * call; `Infinity`: never (call `manager.reload()` yourself).
   */
  reloadIntervalMs?: number
  /**
   * Sessions kept at most; the least recently used one is forgotten beyond it
   * (a forgotten session that comes back is read from the start and gets its
   * rules again). Default 1000.
   */
  maxSessions?: number
}

/** A reminder and where it goes: before the message at index `at` of the SDK's own list. */
export interface PlacedReminder {
  at: number
  ruleId: string
  text: string
}

export interface Injection {
  /** The rules section for the system prompt ('' when there is nothing to add). */
  system: string
  /** Reminder mode: every reminder delivered in this session, in order of `at`. */
  reminders: readonly PlacedReminder[]
  /** Ids of the on-request rules offered (in `system`) for the `read_rule` tool. */
  available: readonly string[]
}

/** What a session's SDK message list needs kept: its reader, where its reminders went. */
interface Session {
  reader: ConversationReader
  /** The latest user text sent to the core (it is sent again only when it changed). */
  prompt: string | undefined
  /** The core must forget what the conversation held (a new entry, a compaction). */
  reset: boolean
  /** Where each reminder went in the SDK's list (the SDK's messages are rebuilt every call). */
  reminders: PlacedReminder[]
}

/** A budget number for the core: `Infinity` (or none) is no limit. */
const budget = (n: number | undefined) => (n === undefined || n === Infinity ? Infinity : Math.max(0, Math.floor(n)))

export class RuleInjector {
  readonly manager: RuleManager
  readonly #options: RuleInjectorOptions
  readonly #sessions = new Map<string, Session>()
  readonly #conversations: Conversations
  #refresher = new RuleRefresher()

  /** The `read_rule` tool for the rules offered on request: its spec, and a runner that never throws. */
  readonly readRuleTool: { definition: ReadRuleToolDefinition; run(input: unknown): string }

  constructor(options: RuleInjectorOptions = {}) {
    this.#options = { ...options }
    this.manager =
      options.manager ??
      new RuleManager({ workdir: options.workdir ?? process.cwd(), homeDir: options.homeDir, sources: options.sources, allowDirs: options.allowDirs })
    this.#conversations = new Conversations({
      maxConversations: this.#max(),
      maxLines: budget(options.maxLines),
      maxBytes: budget(options.maxBytes),
      recall: options.recall ? { userDir: options.recall.userDir, projectDir: options.recall.projectDir, maxBytes: options.recallMaxBytes } : undefined,
    })
    const manager = this.manager
    this.readRuleTool = { definition: readRuleToolDefinition(), run: (input: unknown) => manager.runReadRuleTool(input) }
  }

  #max(): number {
    return Math.max(1, Math.floor(this.#options.maxSessions ?? 1000))
  }

  /**
   * The rules for a call whose conversation is `messages` (the SDK's own
   * list, in any of the shapes `contextFilesFromMessages` reads). May throw
   * (a failed discovery, a throwing `memory`): adapters catch.
   */
  async prepare(sessionId: string, messages: readonly unknown[]): Promise<Injection> {
    await this.#refresh()
    const s = this.#session(sessionId)
    const update = s.reader.read(messages)
    const reset = s.reset || update.reset
    if (reset) {
      s.reminders = []
      s.prompt = undefined
    }
    s.reset = false
    const reminders = (this.#options.mode ?? 'system-prompt') === 'reminders'
    const memory = this.#options.memory ? await this.#options.memory() : undefined
    const engine = this.manager.engine
    const answer = this.#conversations.respond(engine, {
      conversation: { session: sessionId },
      kind: 'model-call',
      reminders,
      reset,
      agent: this.#options.agent ?? 'sdk',
      files: update.newFiles,
      prompt: update.prompt === s.prompt ? undefined : update.prompt,
      memory,
    })
    s.prompt = update.prompt
    if (answer.hasReminders) {
      for (const r of answer.reminders) s.reminders.push({ at: messages.length, ruleId: r.ruleId, text: r.text })
    }
    // Returned to the adapter, which puts it in the call: delivered.
    this.#conversations.commit(engine, answer)
    return { system: answer.text, reminders: s.reminders, available: answer.offered }
  }

  /** The conversation was compacted: what was delivered is gone from it. */
  onCompacted(sessionId: string): void {
    const s = this.#sessions.get(sessionId)
    if (!s) return
    s.reader.reset()
    s.reminders = []
    s.reset = true
    this.#conversations.respond(this.manager.engine, { conversation: { session: sessionId }, kind: 'compaction', agent: this.#options.agent ?? 'sdk' })
  }

  /** Ids of the conditional rules delivered in a session (since compaction): in reminder mode, its reminders. */
  delivered(sessionId: string): string[] {
    const always = this.manager.getUnconditionalSet()
    const ids = this.#conversations.delivered({ session: sessionId })
    return always.size === 0 ? ids : ids.filter((id) => ![...always].some((r) => r.id === id))
  }

  async #refresh(): Promise<void> {
    await this.#refresher.refresh(this.manager, this.#options.reloadIntervalMs ?? 1000)
  }

  #session(id: string): Session {
    let s = this.#sessions.get(id)
    if (s) {
      // Most recently used last, so the first one is the one to forget.
      this.#sessions.delete(id)
      this.#sessions.set(id, s)
    } else {
      const max = this.#max()
      while (this.#sessions.size >= max) this.#sessions.delete(this.#sessions.keys().next().value as string)
      // New here: whatever the core may still hold of it is not what this reader will read.
      s = { reader: new ConversationReader({ workdir: this.#options.workdir }), prompt: undefined, reset: true, reminders: [] }
      this.#sessions.set(id, s)
    }
    return s
  }
}

const made = new WeakMap<PlacedReminder, WeakMap<Function, unknown>>()

/** `make(r)`, made once per reminder and `make` (so a reminder keeps its identity across calls). */
function madeOnce<T>(r: PlacedReminder, make: (r: PlacedReminder) => T): T {
  let byMake = made.get(r)
  if (!byMake) made.set(r, (byMake = new WeakMap()))
  if (!byMake.has(make)) byMake.set(make, make(r))
  return byMake.get(make) as T
}

/** What was made for a list of reminders last time (a session's list only grows until it is replaced). */
const madeForList = new WeakMap<readonly PlacedReminder[], { make: Function; from: PlacedReminder[]; items: unknown[] }>()

/**
 * `madeOnce` for each reminder of the list. The reminders the list still
 * starts with since the last call are not looked up again: a call makes only
 * the new ones.
 */
function madeForAll<T>(reminders: readonly PlacedReminder[], make: (r: PlacedReminder) => T): readonly T[] {
  let last = madeForList.get(reminders)
  if (!last || last.make !== make) madeForList.set(reminders, (last = { make, from: [], items: [] }))
  const k = reminders.length
  let same = 0
  const m = Math.min(k, last.from.length)
  while (same < m && last.from[same] === reminders[same]) same++
  last.from.length = same
  last.items.length = same
  for (let j = same; j < k; j++) {
    last.from.push(reminders[j])
    last.items.push(madeOnce(reminders[j], make))
  }
  return last.items as T[]
}

/**
 * A copy of `list` with `make(reminder)` inserted before each reminder's
 * `at` (at the end when `at` is past it), in order. `make` is called once per
 * reminder: pass the same function every call.
 *
 * The list is copied once, in bulk (`concat`, a block copy), with the
 * reminders appended; then only the messages after the first reminder are
 * moved right, from the end, to make room. Reminders usually sit near the end
 * of a long conversation (where their rules became active), so a call moves a
 * few messages, not the whole history.
 */
export function withReminders<T>(list: readonly T[], reminders: readonly PlacedReminder[], make: (r: PlacedReminder) => T): T[] {
  const n = list.length
  const k = reminders.length
  if (k === 0) return list.slice()
  const items = madeForAll(reminders, make)
  const ats: number[] = new Array(k)
  let prev = 0
  for (let j = 0; j < k; j++) {
    prev = Math.min(Math.max(reminders[j].at, prev), n)
    ats[j] = prev
  }
  const out = list.concat(items)
  let w = n + k
  let i = n
  for (let j = k - 1; j >= 0; j--) {
    const at = ats[j]
    while (i > at) out[--w] = list[--i]
    out[--w] = items[j]
  }
  return out
}
