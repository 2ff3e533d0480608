/**
 * `withMemoryRules`: the one-call integration with an agent SDK's AI manager.
 *
 * The AI manager needs the SDK's shape: `sendAIMessage(...)`, a
 * `messageManager` with `getMessages()` (and `addMessage(message)` for the
 * default reminder delivery), and `addSystemPromptHook(hook)`, a function the
 * manager calls while it builds each request's system prompt. Before every
 * `sendAIMessage` the rules are reloaded (cheap when nothing changed on disk),
 * the files in context and the prompt are read from the conversation, and:
 *
 * - `mode: 'system-prompt'` (default): the system prompt gets a rules section
 *   with every active rule (topic-matched rules first, as MANDATORY RULES),
 *   then the memory text, within the budget; the rules keep their order from
 *   one call to the next.
 * - `mode: 'reminders'`: the system prompt gets only the unconditional rules;
 *   a conditional rule is delivered once per session as a reminder message.
 *
 * Nothing here throws into the agent loop: errors go to `onError`.
 */
import { contextFilesFromMessages, lastUserText } from './context'
import { MemoryRuleManager } from './manager'
import { planRules } from './render'
import type { Reminder } from './session'
import { RuleSession } from './session'

export interface MessageManagerLike {
  getMessages(): unknown[]
  addMessage?(message: unknown): void
}

export interface AIManagerLike {
  sendAIMessage(...args: any[]): Promise<unknown>
  messageManager: MessageManagerLike
  addSystemPromptHook(hook: (systemPrompt: string) => string | Promise<string>): void
}

export interface WithMemoryRulesOptions {
  /** The rule manager to use; or give `workdir` (and `homeDir`) to make one. */
  manager?: MemoryRuleManager
  workdir?: string
  homeDir?: string
  /** Directories outside the workdir project rules may link into (see `MemoryRuleManagerOptions.allowDirs`). */
  allowDirs?: string[]
  /** Default `'system-prompt'`. */
  mode?: 'system-prompt' | 'reminders'
  /** The current session's id. Default: one session, `'default'`. */
  sessionId?: () => string
  /** Budget for the rules section. */
  maxLines?: number
  maxBytes?: number
  /** Project memory text, placed after the rules section. */
  memory?: () => string | Promise<string>
  /** Sends reminder messages. Default: `messageManager.addMessage({ role: 'user', content })` per reminder. */
  deliver?: (reminders: Reminder[]) => void | Promise<void>
  /** Receives every error instead of the agent loop. Default: ignore. */
  onError?: (error: unknown) => void
}

export interface MemoryRulesHandle {
  readonly manager: MemoryRuleManager
  readonly session: RuleSession
  /** Call after the SDK compacts the conversation. */
  onCompacted(): void
  /** Call at the end of a turn; returns the sticky lines to show. */
  onStop(): string[]
  /** The rules text added to the last system prompt. */
  lastSection(): string
}

export function withMemoryRules(ai: AIManagerLike, options: WithMemoryRulesOptions = {}): MemoryRulesHandle {
  const manager =
    options.manager ??
    new MemoryRuleManager({ workdir: options.workdir ?? process.cwd(), homeDir: options.homeDir, allowDirs: options.allowDirs })
  const workdir = options.workdir
  const session = new RuleSession(manager)
  const sessionId = options.sessionId ?? (() => 'default')
  const onError = options.onError ?? (() => {})
  const mode = options.mode ?? 'system-prompt'
  const deliver =
    options.deliver ??
    ((reminders: Reminder[]) => {
      if (typeof ai.messageManager.addMessage !== 'function') {
        throw new Error('withMemoryRules: reminder mode needs messageManager.addMessage or a deliver option')
      }
      for (const r of reminders) ai.messageManager.addMessage({ role: 'user', content: r.text })
    })
  const restored = new Set<string>()
  let order: string[] = []
  let section = ''

  async function prepare(): Promise<void> {
    await manager.reload()
    const messages = ai.messageManager.getMessages()
    const files = contextFilesFromMessages(messages, { workdir })
    const prompt = lastUserText(messages)
    const sid = sessionId()
    session.onSessionCreated(sid)
    if (!restored.has(sid)) {
      session.restore(sid, messages)
      restored.add(sid)
    }
    const memory = options.memory ? await options.memory() : ''
    // Reminder mode: the system prompt holds the always-on rules, known since
    // discovery; the one match of this message happens in session.deliver.
    const rules = mode === 'system-prompt' ? manager.getActiveRules(files, prompt) : manager.getUnconditionalRules()
    const topicRuleIds = mode === 'system-prompt' ? manager.getTopicRules(prompt).map((r) => r.id) : []
    const plan = planRules(rules, {
      topicRuleIds,
      previousOrder: order,
      maxLines: options.maxLines,
      maxBytes: options.maxBytes,
      memory,
    })
    order = plan.order
    section = plan.text
    if (mode === 'reminders') {
      const result = await session.deliver(sid, files, prompt, deliver)
      if (result.error !== undefined) onError(result.error)
    }
  }

  ai.addSystemPromptHook((systemPrompt: string) => (section === '' ? systemPrompt : systemPrompt === '' ? section : `${systemPrompt}\n\n${section}`))
  const original = ai.sendAIMessage.bind(ai)
  ai.sendAIMessage = async (...args: any[]) => {
    try {
      await prepare()
    } catch (error) {
      onError(error)
    }
    return original(...args)
  }

  return {
    manager,
    session,
    onCompacted: () => session.onCompacted(sessionId()),
    onStop: () => session.onStop(sessionId()),
    lastSection: () => section,
  }
}
