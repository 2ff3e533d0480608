/**
 * Reminder mode: the system prompt holds only unconditional rules, and a
 * conditional rule is delivered once per session, as a reminder message,
 * the first time it becomes active. This keeps a provider's prompt cache warm:
 * the system prompt does not change as rules come and go.
 *
 * The session remembers what it delivered. After compaction the conversation
 * no longer holds those reminders, so they are delivered again when active.
 * A delivery whose send fails is not remembered and is retried next time; no
 * method throws. Reminders carry the rule id (`<system-reminder rule="id">`),
 * so a saved transcript tells what was already delivered (`restore`).
 */
import type { MemoryRule } from '../index'
import type { MemoryRuleManager } from './manager'

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

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;')
const unescapeAttr = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, '&')
const REMINDER = /<system-reminder rule="([^"]*)">/g

/** The reminder block for a rule. */
export function reminderText(rule: MemoryRule): string {
  return `<system-reminder rule="${escapeAttr(rule.id)}">\nThis ${rule.source} rule (${rule.id}) applies to what you are working on now:\n${rule.content}\n</system-reminder>`
}

/** One short line for a sticky rule: its description, or its first line. */
export function stickyLine(rule: MemoryRule): string {
  const text = rule.metadata.description?.trim() || rule.content.split('\n')[0].trim()
  return `[${rule.id}] ${text}`
}

/** Every string inside a message of any shape (bounded depth). */
function strings(value: unknown, out: string[], depth = 0): void {
  if (depth > 6) return
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out, depth + 1))
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach((v) => strings(v, out, depth + 1))
}

/** Ids of the rules whose reminders appear in these messages. */
export function deliveredInTranscript(messages: readonly unknown[]): Set<string> {
  const found = new Set<string>()
  const texts: string[] = []
  strings(messages, texts)
  for (const t of texts) for (const m of t.matchAll(REMINDER)) found.add(unescapeAttr(m[1]))
  return found
}

interface SessionState {
  delivered: Set<string>
  /** Active `remind: every-turn` rules as of the last collect. */
  sticky: MemoryRule[]
}

export class RuleSession {
  readonly #manager: MemoryRuleManager
  readonly #sessions = new Map<string, SessionState>()

  constructor(manager: MemoryRuleManager) {
    this.#manager = manager
  }

  /** Starts tracking a session; a session created again keeps its state. */
  onSessionCreated(sessionId: string): void {
    this.#state(sessionId)
  }

  /** The conversation was compacted: what was delivered is gone from it. */
  onCompacted(sessionId: string): void {
    this.#state(sessionId).delivered.clear()
  }

  /** Counts the reminders already present in a saved transcript as delivered. */
  restore(sessionId: string, messages: readonly unknown[]): void {
    const state = this.#state(sessionId)
    for (const id of deliveredInTranscript(messages)) state.delivered.add(id)
  }

  /** Ids delivered in this session (since the last compaction). */
  delivered(sessionId: string): string[] {
    return [...this.#state(sessionId).delivered].sort()
  }

  /**
   * Reminders for the conditional rules active for these files and prompt
   * that this session has not been given yet. Marks nothing: call
   * `markDelivered` after a successful send, or use `deliver`.
   */
  collectReminders(sessionId: string, filesInContext: string[], prompt?: string): Reminder[] {
    const state = this.#state(sessionId)
    const { unconditional, conditional } = this.#manager.getActiveRulesSplit(filesInContext, prompt)
    const sticky = this.#manager.getStickyRuleIds()
    state.sticky = sticky.size === 0 ? [] : [...unconditional, ...conditional].filter((r) => sticky.has(r.id))
    return conditional.filter((r) => !state.delivered.has(r.id)).map((r) => ({ ruleId: r.id, text: reminderText(r) }))
  }

  /** Marks reminders as delivered (after the send succeeded). */
  markDelivered(sessionId: string, ruleIds: Iterable<string>): void {
    const state = this.#state(sessionId)
    for (const id of ruleIds) state.delivered.add(id)
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
   * At the end of a turn: one short line for each active rule with
   * `remind: every-turn`. O(1) when there is none.
   */
  onStop(sessionId: string): string[] {
    const sticky = this.#sessions.get(sessionId)?.sticky
    if (!sticky || sticky.length === 0) return []
    return sticky.map(stickyLine)
  }

  #state(sessionId: string): SessionState {
    let s = this.#sessions.get(sessionId)
    if (!s) {
      s = { delivered: new Set(), sticky: [] }
      this.#sessions.set(sessionId, s)
    }
    return s
  }
}
