/**
 * `wave-memory-rules/ai-sdk`: memory rules for the Vercel AI SDK (`ai`), as a
 * language-model middleware.
 *
 * ```ts
 * import { wrapLanguageModel, generateText } from 'ai'
 * import { memoryRulesMiddleware } from 'wave-memory-rules/ai-sdk'
 *
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: memoryRulesMiddleware({ workdir }) })
 * ```
 *
 * Before every model call (`generateText`, `streamText`, every step of a tool
 * loop) `transformParams` reads the call's prompt: the files named by its
 * tool-call parts (`path`, `file_path`, `files`, ...) and `@path` mentions,
 * and the text of the last user message (for topics). It reads only the
 * messages added since the previous call of the session (see
 * `ConversationReader`), so its cost does not grow with the conversation.
 *
 * - `mode: 'system-prompt'` (default): the active rules (topic rules first,
 *   as MANDATORY RULES), then the memory text, are added to the system
 *   prompt; rules already there keep their place.
 * - `mode: 'reminders'`: the system prompt gets only the always-on rules; a
 *   conditional rule is delivered once per session, as a `<system-reminder>`
 *   user message placed where it became active. The SDK does not keep it in
 *   its history, so the middleware puts it back at the same place in every
 *   later call: each rule appears once, and the prompt's prefix is stable.
 *   After compaction (a history that no longer starts with what was seen, or
 *   `onCompacted()`), active rules are delivered again.
 *
 * Nothing throws into the SDK: on any error the call goes on without rules,
 * and the error goes to `onError`.
 */
import { ConversationReader } from './conversation'
import { MemoryRuleManager } from './manager'
import type { MemoryRuleManagerOptions } from './manager'
import { planRules } from './render'
import { reminderText } from './session'
import type { MemoryRule } from '../index'

export interface MemoryRulesMiddlewareOptions {
  /** The rule manager to use; or give `workdir` (and `homeDir`, `sources`) to make one. */
  manager?: MemoryRuleManager
  workdir?: string
  homeDir?: string
  sources?: MemoryRuleManagerOptions['sources']
  /** Default `'system-prompt'`. */
  mode?: 'system-prompt' | 'reminders'
  /** Budget for the rules section of the system prompt. */
  maxLines?: number
  maxBytes?: number
  /** Memory text, placed after the rules in the system prompt. */
  memory?: () => string | Promise<string>
  /**
   * Rules are reloaded (incrementally) before a call when at least this many
   * milliseconds passed since the last reload. Default 1000; 0: before every
   * call; `Infinity`: never (call `manager.reload()` yourself).
   */
  reloadIntervalMs?: number
  /** The session a call belongs to. Default: one session, `'default'`. */
  sessionId?: (params: CallParams) => string
  /** Receives every error instead of the SDK. Default: ignore. */
  onError?: (error: unknown) => void
}

/** The parts of the SDK's call options this middleware reads. */
export interface CallParams {
  prompt: unknown[]
  [key: string]: unknown
}

export interface MemoryRulesMiddleware {
  /** The middleware spec version (`ai` 6 and 7 accept v3 middleware). */
  readonly specificationVersion: 'v3'
  readonly manager: MemoryRuleManager
  transformParams<P extends CallParams>(options: { type: 'generate' | 'stream'; params: P; model?: unknown }): Promise<P>
  /** Call after the conversation was compacted: active rules are delivered again. */
  onCompacted(sessionId?: string): void
  /** Ids of the rules delivered as reminders in a session (since compaction). */
  delivered(sessionId?: string): string[]
}

interface Anchor {
  /** Index in the SDK's prompt before which the reminder goes. */
  at: number
  message: { role: 'user'; content: Array<{ type: 'text'; text: string }> }
}

interface Session {
  reader: ConversationReader
  /** The manager generation `pathIds` was computed for. */
  generation: number
  /** Conditional rules a file in context fired (a union over files). */
  pathIds: Set<string>
  topicPrompt: string | undefined
  topicIds: string[]
  order: string[]
  delivered: Set<string>
  anchors: Anchor[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null

const isConditional = (r: MemoryRule) => r.metadata.paths != null || r.metadata.topics != null

/** Adds `text` to the last leading system message, or adds one in front. */
function addSystem(prompt: unknown[], text: string): void {
  if (text === '') return
  let i = 0
  while (i < prompt.length && isObj(prompt[i]) && (prompt[i] as Obj).role === 'system') i++
  if (i > 0) {
    const last = prompt[i - 1] as Obj
    const content = typeof last.content === 'string' ? last.content : ''
    prompt[i - 1] = { ...last, content: content === '' ? text : `${content}\n\n${text}` }
  } else {
    prompt.unshift({ role: 'system', content: text })
  }
}

export function memoryRulesMiddleware(options: MemoryRulesMiddlewareOptions = {}): MemoryRulesMiddleware {
  const manager =
    options.manager ??
    new MemoryRuleManager({ workdir: options.workdir ?? process.cwd(), homeDir: options.homeDir, sources: options.sources })
  const workdir = options.workdir
  const mode = options.mode ?? 'system-prompt'
  const interval = options.reloadIntervalMs ?? 1000
  const onError = options.onError ?? (() => {})
  const sessionOf = options.sessionId ?? (() => 'default')
  const sessions = new Map<string, Session>()
  let reloadedAt = -Infinity

  const session = (id: string): Session => {
    let s = sessions.get(id)
    if (!s) {
      s = { reader: new ConversationReader({ workdir }), generation: -1, pathIds: new Set(), topicPrompt: undefined, topicIds: [], order: [], delivered: new Set(), anchors: [] }
      sessions.set(id, s)
    }
    return s
  }

  const forget = (s: Session) => {
    s.pathIds = new Set()
    s.order = []
    s.delivered = new Set()
    s.anchors = []
  }

  async function refresh(): Promise<void> {
    if (!manager.discovered) {
      await manager.discoverRules()
      reloadedAt = Date.now()
    } else if (Date.now() - reloadedAt >= interval) {
      reloadedAt = Date.now()
      await manager.reload()
    }
  }

  const pathRuleIds = (files: readonly string[]) => manager.getActiveRules(files as string[]).filter(isConditional).map((r) => r.id)

  async function transform<P extends CallParams>(params: P): Promise<P> {
    if (!isObj(params) || !Array.isArray(params.prompt)) return params
    await refresh()
    const s = session(sessionOf(params))
    const update = s.reader.read(params.prompt)
    if (update.reset) forget(s)
    if (s.generation !== manager.generation) {
      s.generation = manager.generation
      s.pathIds = new Set(pathRuleIds(update.files))
      s.topicPrompt = undefined
    } else if (update.newFiles.length > 0) {
      for (const id of pathRuleIds(update.newFiles)) s.pathIds.add(id)
    }
    if (update.prompt !== s.topicPrompt) {
      s.topicPrompt = update.prompt
      s.topicIds = update.prompt === '' ? [] : manager.getTopicRules(update.prompt).map((r) => r.id)
    }
    const topics = new Set(s.topicIds)
    const active = manager.getRules().filter((r) => !isConditional(r) || s.pathIds.has(r.id) || topics.has(r.id))
    const memory = options.memory ? await options.memory() : ''
    const budget = { maxLines: options.maxLines, maxBytes: options.maxBytes, memory }
    const prompt = params.prompt.slice()
    if (mode === 'system-prompt') {
      const plan = planRules(active, { ...budget, topicRuleIds: s.topicIds, previousOrder: s.order })
      s.order = plan.order
      addSystem(prompt, plan.text)
    } else {
      const plan = planRules(active.filter((r) => !isConditional(r)), { ...budget, previousOrder: s.order })
      s.order = plan.order
      for (const r of active) {
        if (!isConditional(r) || s.delivered.has(r.id)) continue
        s.delivered.add(r.id)
        s.anchors.push({ at: params.prompt.length, message: { role: 'user', content: [{ type: 'text', text: reminderText(r) }] } })
      }
      // Back to front, so earlier anchors keep their indices.
      for (let k = s.anchors.length - 1; k >= 0; k--) {
        const a = s.anchors[k]
        if (a.at <= prompt.length) prompt.splice(a.at, 0, a.message)
      }
      addSystem(prompt, plan.text)
    }
    return { ...params, prompt }
  }

  return {
    specificationVersion: 'v3',
    manager,
    async transformParams({ params }) {
      try {
        return await transform(params)
      } catch (error) {
        try {
          onError(error)
        } catch {
          // An onError that throws must not reach the SDK either.
        }
        return params
      }
    },
    onCompacted(sessionId = 'default') {
      const s = sessions.get(sessionId)
      if (!s) return
      s.reader.reset()
      forget(s)
    },
    delivered(sessionId = 'default') {
      return [...(sessions.get(sessionId)?.delivered ?? [])].sort()
    },
  }
}
