/**
 * Delivery, over the core's session (`DeliverySession`, Rust): what a
 * conversation has been given and what is due now live there, once, for
 * every road into an agent; the rendering is the core's too. This module is
 * the TypeScript face of both: `renderRules` / `planRules`, and
 * `RuleSession` (reminder mode).
 *
 * Reminder mode: the system prompt holds only unconditional rules, and a
 * conditional rule is delivered once per session, as a reminder message,
 * the first time it becomes active. This keeps a provider's prompt cache warm:
 * the system prompt does not change as rules come and go.
 *
 * After compaction the conversation no longer holds those reminders, so they
 * are delivered again when active. A delivery whose send fails is not
 * remembered and is retried next time; no method throws. Reminders carry the
 * rule id (`<system-reminder rule="id">`), so a saved transcript tells what
 * was already delivered (`restore`).
 */
import { Conversations, nativePlanRules, renderHeadings, reminderIds, reminderText, stickyLine } from '../index'
import type { MemoryRule } from '../index'
import { ruleHome } from './manager'
import type { RuleManager } from './manager'

export { reminderText, stickyLine }

/** The headings of the rendered text. */
export const [MANDATORY_HEADER, MANDATORY_FOOTER, RULES_HEADING] = renderHeadings() as [string, string, string]

export interface RenderOptions {
  /** Ids of the rules a prompt topic activated: rendered first, as constraints. */
  topicRuleIds?: Iterable<string>
  /** The `order` of the previous render: those rules keep their places. */
  previousOrder?: readonly string[]
  /** At most this many lines for the rules section. */
  maxLines?: number
  /** At most this many UTF-8 bytes for the rules section. */
  maxBytes?: number
  /** Project memory text, placed after the rules section. */
  memory?: string
}

export interface RenderPlan {
  /** The full text: rules section, then memory. */
  text: string
  /** Ids in the order rendered; pass as `previousOrder` next time. */
  order: string[]
  /** Ids left out to fit the budget. */
  omitted: string[]
}

const limit = (n: number | undefined) => (n === undefined || n === Infinity ? undefined : Math.max(0, Math.min(Math.floor(n), 0xffffffff)))

/**
 * The prompt text for `rules`, the order used and the ids left out (the
 * core's renderer): rules a prompt topic activated first, under
 * `=== MANDATORY RULES ===`, then `## Rules`, each rule `[id] content`; then
 * the memory. Within `maxLines` / `maxBytes`, rules are kept whole, highest
 * priority first, user rules at most half; one closing line names those left
 * out. With `previousOrder`, rules already present keep their places.
 */
export function planRules(rules: readonly MemoryRule[], options: RenderOptions = {}): RenderPlan {
  const native = {
    topicRuleIds: options.topicRuleIds ? [...options.topicRuleIds] : undefined,
    previousOrder: options.previousOrder ? [...options.previousOrder] : undefined,
    maxLines: limit(options.maxLines),
    maxBytes: limit(options.maxBytes),
    memory: options.memory,
  }
  const indices = homeIndices(rules)
  return indices ? indices.engine.plan(indices.at, native) : nativePlanRules(rules as MemoryRule[], native)
}

/** The rules' indices in their engine, when every one is a current rule object of one engine. */
function homeIndices(rules: readonly MemoryRule[]) {
  const first = rules.length > 0 ? ruleHome.get(rules[0]) : undefined
  if (!first || first.engine.generation !== first.generation) return undefined
  const at = new Uint32Array(rules.length)
  for (let k = 0; k < rules.length; k++) {
    const home = ruleHome.get(rules[k])
    if (!home || home.engine !== first.engine || home.generation !== first.generation) return undefined
    at[k] = home.index
  }
  return { engine: first.engine, at }
}

/** `planRules(...).text`. */
export function renderRules(rules: readonly MemoryRule[], options: RenderOptions = {}): string {
  return planRules(rules, options).text
}

export interface Reminder {
  ruleId: string
  /** The whole `<system-reminder>` block, ready to send as a message. */
  text: string
}

export interface DeliveryResult {
  /** Ids delivered by this call. */
  delivered: string[]
  /** Set when the send failed: nothing was marked delivered. */
  error?: unknown
}

/** Every string inside a message of any shape (bounded depth). */
export function collectStrings(value: unknown, out: string[], depth = 0, maxDepth = 6): string[] {
  if (depth > maxDepth) return out
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) value.forEach((v) => collectStrings(v, out, depth + 1, maxDepth))
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach((v) => collectStrings(v, out, depth + 1, maxDepth))
  return out
}

/** Ids of the rules whose reminders appear in these messages. */
export function deliveredInTranscript(messages: readonly unknown[]): Set<string> {
  return new Set(reminderIds(collectStrings(messages, []).join('\n')))
}

export class RuleSession {
  readonly #manager: RuleManager
  /** Every session's delivery state: the core's, bounded. */
  readonly #conversations = new Conversations({ maxBytes: Infinity })
  /** The road's name in the delivery log. */
  readonly #agent: string

  /** `options.agent`: the road's name in the delivery log (default `sdk`). */
  constructor(manager: RuleManager, options: { agent?: string } = {}) {
    this.#manager = manager
    this.#agent = options.agent ?? 'sdk'
  }

  /** Starts tracking a session; a session created again keeps its state. */
  onSessionCreated(sessionId: string): void {
    void sessionId
  }

  /** The conversation was compacted: what was delivered is gone from it. */
  onCompacted(sessionId: string): void {
    this.#conversations.respond(this.#manager.engine, { conversation: key(sessionId), kind: 'compaction', agent: this.#agent })
  }

  /** Counts the reminders already present in a saved transcript as delivered. */
  restore(sessionId: string, messages: readonly unknown[]): void {
    this.#conversations.restore(this.#manager.engine, key(sessionId), collectStrings(messages, []).join('\n'))
  }

  /** Ids delivered in this session (since the last compaction). */
  delivered(sessionId: string): string[] {
    return this.#conversations.delivered(key(sessionId))
  }

  /**
   * Reminders for the conditional rules active for these files and prompt
   * that this session has not been given yet. Marks nothing: call
   * `markDelivered` after a successful send, or use `deliver`.
   */
  collectReminders(sessionId: string, filesInContext: string[], prompt?: string): Reminder[] {
    const files = Array.isArray(filesInContext) ? filesInContext.filter((f) => typeof f === 'string') : []
    const answer = this.#conversations.respond(this.#manager.engine, {
      conversation: key(sessionId),
      kind: 'model-call',
      reminders: true,
      agent: this.#agent,
      files,
      prompt: typeof prompt === 'string' ? prompt : undefined,
    })
    return answer.reminders
  }

  /** Marks reminders as delivered (after the send succeeded). */
  markDelivered(sessionId: string, ruleIds: Iterable<string>): void {
    this.#conversations.commitIds(this.#manager.engine, key(sessionId), [...ruleIds], this.#agent)
  }

  /**
   * Collects the reminders and hands them to `send`; they count as delivered
   * only if `send` resolves. Never throws: a failed send is returned as
   * `error`, and the same reminders come again next time.
   */
  async deliver(
    sessionId: string,
    filesInContext: string[],
    prompt: string | undefined,
    send: (reminders: Reminder[]) => void | Promise<void>,
  ): Promise<DeliveryResult> {
    let reminders: Reminder[]
    try {
      reminders = this.collectReminders(sessionId, filesInContext, prompt)
      if (reminders.length === 0) return { delivered: [] }
      await send(reminders)
    } catch (error) {
      return { delivered: [], error }
    }
    const ids = reminders.map((r) => r.ruleId)
    this.markDelivered(sessionId, ids)
    return { delivered: ids }
  }

  /**
   * A skill became active in the session (the agent's skill tool, `/name`):
   * the next `collectReminders` / `deliver` holds the rules whose `skills`
   * name it. `usesMemory`: its SKILL.md uses the memory tools, so
   * `stopReminder` reminds to recall and save memory while it is active.
   * False for a name that is not a skill name.
   */
  onSkillActivated(sessionId: string, name: string, usesMemory = false): boolean {
    if (typeof name !== 'string') return false
    return this.#conversations.noteSkill(key(sessionId), name, usesMemory === true)
  }

  /** The skills active in the session, sorted. */
  activeSkills(sessionId: string): string[] {
    return this.#conversations.activeSkills(key(sessionId))
  }

  /**
   * At the end of a turn: one short line for each active rule with
   * `remind: every-turn`.
   */
  onStop(sessionId: string): string[] {
    return this.#conversations.stickyLines(key(sessionId))
  }

  /**
   * At the end of a turn: the whole text to give the model (the
   * `remind: every-turn` rules and, while a skill that uses memory is
   * active, the memory reminder), or undefined when there is none.
   */
  stopReminder(sessionId: string): string | undefined {
    if (!this.#conversations.has(key(sessionId))) return undefined
    const answer = this.#conversations.respond(this.#manager.engine, { conversation: key(sessionId), kind: 'stop', agent: this.#agent })
    return answer.text === '' ? undefined : answer.text
  }
}

const key = (sessionId: string) => ({ session: sessionId })
