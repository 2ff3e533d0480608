/**
 * `RuleInjector`: what every SDK integration does before a model call, with
 * no SDK assumption. Given a session's messages it works out the rules' text
 * for the system prompt and, in reminder mode, which reminders go where; the
 * adapters (`ai-sdk.ts`, `openai-agents.ts`) only map that onto their SDK's
 * call.
 *
 * Per call, the cost does not grow with the conversation: a
 * `ConversationReader` per session reads only new messages, the rules a file
 * fired are kept as a union (activation by paths is a union over files, so
 * only new files are matched), topic rules are matched again only when the
 * prompt changed, and a changed rule set (a reload that changed something) is
 * the only thing that re-matches every file.
 *
 * Rules available on request (a Cursor "Agent Requested" rule, Windsurf
 * `model_decision`, ...) that are not active are offered after the rules
 * section as a short list of ids and descriptions (`Injection.available`);
 * give the model `readRuleTool.definition` and answer its calls with
 * `readRuleTool.run(input)`, which never throws. A manual or on-request rule
 * the prompt mentions (`@name`) is active like a topic rule.
 */
import { ConversationReader } from './conversation'
import { RuleManager, readRuleToolDefinition } from './manager'
import type { RuleManagerOptions, ReadRuleToolDefinition } from './manager'
import { planRules } from './session'
import { DeliverySession } from '../index'
import type { Due, MemoryRule } from '../index'

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
  /** Budget for the rules section of the system prompt. */
  maxLines?: number
  maxBytes?: number
  /** Memory text, placed after the rules in the system prompt. */
  memory?: () => string | Promise<string>
  /**
   * Recall memory from this store at every call, through the core's
   * session: the index of topics and the pinned entries first, then the
   * entries relevant to the latest prompt and to the new files in context
   * that the conversation was not given (again after a compaction). In
   * system-prompt mode they follow the rules in the system prompt; in
   * reminder mode each call's recall is a reminder where it came.
   */
  recall?: import('./memory').MemoryStore
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

interface Session {
  reader: ConversationReader
  /** The manager generation `pathIds` was computed for. */
  generation: number
  /** Conditional rules a file in context fired (a union over files). */
  pathIds: Set<string>
  topicPrompt: string | undefined
  topicIds: string[]
  /** Manual and on-request rules the prompt mentions (`@name`). */
  mentionIds: string[]
  order: string[]
  /** The last render and what it was made of (the same input gives the same text). */
  rendered: { key: string; text: string }
  /** The last offer of on-request rules, by its key. */
  offer: { key: string; text: string; ids: string[] }
  /** What the conversation was given (the core's session). */
  delivery: DeliverySession
  /** The delivery session must see every file and the prompt again (after a reset, a compaction or a new rule set). */
  whole: boolean
  /** Where each reminder went in the SDK's list (the SDK's messages are rebuilt every call). */
  reminders: PlacedReminder[]
  /** System-prompt mode: the memory recalled so far, kept in the system prompt. */
  recalled: string
}

export class RuleInjector {
  readonly manager: RuleManager
  readonly #options: RuleInjectorOptions
  readonly #sessions = new Map<string, Session>()
  #reloadedAt = -Infinity

  /** The `read_rule` tool for the rules offered on request: its spec, and a runner that never throws. */
  readonly readRuleTool: { definition: ReadRuleToolDefinition; run(input: unknown): string }

  constructor(options: RuleInjectorOptions = {}) {
    this.#options = { ...options }
    this.manager =
      options.manager ??
      new RuleManager({ workdir: options.workdir ?? process.cwd(), homeDir: options.homeDir, sources: options.sources, allowDirs: options.allowDirs })
    const manager = this.manager
    this.readRuleTool = { definition: readRuleToolDefinition(), run: (input: unknown) => manager.runReadRuleTool(input) }
  }

  /**
   * The rules for a call whose conversation is `messages` (the SDK's own
   * list, in any of the shapes `contextFilesFromMessages` reads). May throw
   * (a failed discovery, a throwing `memory`): adapters catch.
   */
  async prepare(sessionId: string, messages: readonly unknown[]): Promise<Injection> {
    const manager = this.manager
    await this.#refresh()
    const s = this.#session(sessionId)
    const update = s.reader.read(messages)
    if (update.reset) this.#forget(s)
    /** Conditional rules this call's new input activated (candidates for a reminder). */
    const fresh: string[] = []
    if (s.generation !== manager.generation) {
      s.generation = manager.generation
      s.pathIds = new Set(this.#pathRuleIds(update.files))
      s.topicPrompt = undefined
      s.whole = true
    } else if (update.newFiles.length > 0) {
      for (const id of this.#pathRuleIds(update.newFiles)) {
        s.pathIds.add(id)
        fresh.push(id)
      }
    }
    const promptChanged = update.prompt !== s.topicPrompt
    if (promptChanged) {
      s.topicPrompt = update.prompt
      s.topicIds = update.prompt === '' ? [] : manager.getTopicRules(update.prompt).map((r) => r.id)
      s.mentionIds = update.prompt === '' ? [] : manager.getMentionedRules(update.prompt).map((r) => r.id)
    }
    const topics = new Set(s.topicIds)
    const mentioned = new Set(s.mentionIds)
    const always = manager.getUnconditionalSet()
    const active = manager.getRules().filter((r) => always.has(r) || s.pathIds.has(r.id) || topics.has(r.id) || mentioned.has(r.id))
    const { text: offer, ids: available } = this.#offer(s, active)
    const withOffer = (text: string) => (offer === '' ? text : text === '' ? offer : `${text}\n\n${offer}`)
    let memory = this.#options.memory ? await this.#options.memory() : ''
    const recalled = this.#recall(s, update.prompt, update.newFiles, promptChanged)
    const systemMode = (this.#options.mode ?? 'system-prompt') === 'system-prompt'
    if (systemMode) {
      // The system prompt is written anew each call: what was recalled
      // stays in it (the latest recall of each kind).
      if (recalled !== '') s.recalled = recalled
      if (s.recalled !== '') memory = memory === '' ? s.recalled : `${memory}\n\n${s.recalled}`
      return { system: withOffer(this.#render(s, active, s.topicIds, memory)), reminders: [], available }
    }
    if (recalled !== '') s.reminders.push({ at: messages.length, ruleId: 'memory', text: `<system-reminder>\n${recalled}\n</system-reminder>` })
    const system = this.#render(s, active.filter((r) => always.has(r)), [], memory)
    // Candidates: what this call's new files and changed prompt activated;
    // every active rule when the session must be seen whole. The session
    // says which were not given.
    const candidates = s.whole ? active.filter((r) => !always.has(r)).map((r) => r.id) : promptChanged ? [...fresh, ...s.topicIds, ...s.mentionIds] : fresh
    s.whole = false
    if (candidates.length > 0) {
      const due = s.delivery.remindersFor(manager.engine, candidates)
      if (due.length > 0) {
        // Returned to the adapter, which puts them in the call: delivered.
        s.delivery.commitIds(manager.engine, due.map((r) => r.ruleId))
        for (const r of due) s.reminders.push({ at: messages.length, ruleId: r.ruleId, text: r.text })
      }
    }
    return { system: withOffer(system), reminders: s.reminders, available }
  }

  /** The offer of the on-request rules not active, skipped when they are the same as last time. */
  #offer(s: Session, active: MemoryRule[]): { text: string; ids: string[] } {
    const onRequest = this.manager.getOnRequestRules()
    if (onRequest.length === 0) return { text: '', ids: [] }
    const activeIds = new Set(active.map((r) => r.id))
    const offered = onRequest.filter((r) => !activeIds.has(r.id))
    const key = `${this.manager.generation}\u0001${offered.map((r) => r.id).join('\u0000')}`
    if (key !== s.offer.key) s.offer = { key, text: this.manager.offerText(offered).trimEnd(), ids: offered.map((r) => r.id) }
    return s.offer
  }

  /** `planRules`, skipped when its input is the same as last time. */
  #render(s: Session, rules: MemoryRule[], topicIds: string[], memory: string): string {
    let key = `${this.manager.generation}\u0001${topicIds.join('\u0000')}\u0001${memory}\u0001`
    for (const r of rules) key += `${r.id}\u0000`
    if (key === s.rendered.key) return s.rendered.text
    const plan = planRules(rules, { maxLines: this.#options.maxLines, maxBytes: this.#options.maxBytes, memory, topicRuleIds: topicIds, previousOrder: s.order })
    s.order = plan.order
    s.rendered = { key, text: plan.text }
    return plan.text
  }

  /** The conversation was compacted: what was delivered is gone from it. */
  onCompacted(sessionId: string): void {
    const s = this.#sessions.get(sessionId)
    if (!s) return
    s.reader.reset()
    this.#forget(s)
  }

  /** Ids of the rules delivered as reminders in a session (since compaction). */
  delivered(sessionId: string): string[] {
    return this.#sessions.get(sessionId)?.delivery.delivered() ?? []
  }

  async #refresh(): Promise<void> {
    const interval = this.#options.reloadIntervalMs ?? 1000
    if (!this.manager.discovered) {
      await this.manager.discoverRules()
      this.#reloadedAt = Date.now()
    } else if (Date.now() - this.#reloadedAt >= interval) {
      this.#reloadedAt = Date.now()
      await this.manager.reload()
    }
  }

  /**
   * Ids of the conditional rules these files fire. The engine's stateless
   * match, not `getActiveRules`: that one keeps the previous call's files to
   * send only new ones, but the injector sends only new files already, and
   * replacing a session's whole list (its first call) by one new file cost
   * the next call time in proportion to the list dropped.
   */
  #pathRuleIds(files: readonly string[]): string[] {
    if (files.length === 0) return []
    const manager = this.manager
    const always = manager.getUnconditionalSet()
    const rules = manager.getRules()
    let indices: Uint32Array
    try {
      indices = manager.engine.active(files as string[], undefined)
    } catch {
      // As getActiveRules: a failed match fires no rule; the call goes on.
      return []
    }
    const ids: string[] = []
    for (const i of indices) {
      const r = rules[i]
      if (r !== undefined && !always.has(r)) ids.push(r.id)
    }
    return ids
  }

  #session(id: string): Session {
    let s = this.#sessions.get(id)
    if (s) {
      // Most recently used last, so the first one is the one to forget.
      this.#sessions.delete(id)
      this.#sessions.set(id, s)
    } else {
      const max = Math.max(1, this.#options.maxSessions ?? 1000)
      while (this.#sessions.size >= max) this.#sessions.delete(this.#sessions.keys().next().value as string)
      s = {
        reader: new ConversationReader({ workdir: this.#options.workdir }),
        generation: -1,
        pathIds: new Set(),
        topicPrompt: undefined,
        topicIds: [],
        mentionIds: [],
        order: [],
        rendered: { key: '', text: '' },
        offer: { key: '', text: '', ids: [] },
        delivery: new DeliverySession(),
        whole: true,
        reminders: [],
        recalled: '',
      }
      this.#sessions.set(id, s)
    }
    return s
  }

  /**
   * The memory due at this call (the core session's `recall`): the index at
   * the session's start, then the entries for a changed prompt and for new
   * files; committed, since the adapter puts it in the call.
   */
  #recall(s: Session, prompt: string, newFiles: readonly string[], promptChanged: boolean): string {
    const store = this.#options.recall
    if (!store) return ''
    const engine = this.manager.engine
    let due: Due = { text: '', ruleIds: [], omitted: [], given: [], starts: false }
    if (!s.delivery.started) {
      due = s.delivery.recall(engine, store.native, due, { start: 'startup' })
      due.starts = true
    }
    if (promptChanged && prompt !== '') due = s.delivery.recall(engine, store.native, due, { prompt })
    if (newFiles.length > 0) due = s.delivery.recall(engine, store.native, due, { files: newFiles as string[] })
    s.delivery.commit(engine, due)
    return due.text
  }

  #forget(s: Session): void {
    s.recalled = ''
    s.pathIds = new Set()
    s.order = []
    s.rendered = { key: '', text: '' }
    s.delivery.compacted()
    s.whole = true
    s.reminders = []
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
