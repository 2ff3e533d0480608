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
import { RuleInjector, withReminders } from './inject'
import type { PlacedReminder, RuleInjectorOptions } from './inject'
import type { RuleManager } from './manager'
import { ToolGuard, ToolRefusedError } from './guard'
import type { ToolGuardOptions } from './guard'

export { ToolRefusedError }
export type { ToolGuardOptions }

export interface MemoryRulesMiddlewareOptions extends RuleInjectorOptions {
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
  readonly manager: RuleManager
  /**
   * The `read_rule` tool for rules offered on request (listed after the
   * rules in the system prompt): its spec, and a runner that never throws.
   * Give it to the model as a tool (e.g. `tool({ description, inputSchema:
   * jsonSchema(definition.parameters), execute: run })`).
   */
  readonly readRuleTool: RuleInjector['readRuleTool']
  transformParams<P extends CallParams>(options: { type: 'generate' | 'stream'; params: P; model?: unknown }): Promise<P>
  /** Call after the conversation was compacted: active rules are delivered again. */
  onCompacted(sessionId?: string): void
  /** Ids of the rules delivered as reminders in a session (since compaction). */
  delivered(sessionId?: string): string[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null

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

const reminderMessage = (r: PlacedReminder) => ({ role: 'user', content: [{ type: 'text', text: r.text }] })

export function memoryRulesMiddleware(options: MemoryRulesMiddlewareOptions = {}): MemoryRulesMiddleware {
  const injector = new RuleInjector({ agent: 'ai-sdk', ...options })
  const onError = options.onError ?? (() => {})
  const sessionOf = options.sessionId ?? (() => 'default')

  async function transform<P extends CallParams>(params: P): Promise<P> {
    if (!isObj(params) || !Array.isArray(params.prompt)) return params
    const { system, reminders } = await injector.prepare(sessionOf(params), params.prompt)
    // Always a copy: the SDK passes the same prompt array again when it
    // retries a call, so changing it in place would add the rules twice.
    const prompt = withReminders<unknown>(params.prompt, reminders, reminderMessage)
    addSystem(prompt, system)
    return { ...params, prompt }
  }

  return {
    specificationVersion: 'v3',
    manager: injector.manager,
    readRuleTool: injector.readRuleTool,
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
    onCompacted: (sessionId = 'default') => injector.onCompacted(sessionId),
    delivered: (sessionId = 'default') => injector.delivered(sessionId),
  }
}

/**
 * Guards an AI SDK tool set with the rules that enforce (`enforce: block` /
 * `enforce: warn`): before each call, the core checks the files the call
 * would write and the commands it would run.
 *
 * ```ts
 * const rules = memoryRulesMiddleware({ workdir })
 * const tools = guardTools({ writeFile, bash }, { manager: rules.manager })
 * await generateText({ model: wrapLanguageModel({ model, middleware: rules }), tools, prompt })
 * ```
 *
 * A refused call does not run: its `execute` throws a `ToolRefusedError`
 * whose message is the rule's text, which the SDK gives the model as the
 * tool's error result. A warned call runs; a string result gets the
 * warning appended (other results are returned as they are: the rule still
 * reaches the model through the middleware, as a rule of the file). A tool
 * without `execute` (run by the caller) is returned unchanged. Tools are
 * known by name: `writeFile` writes, `bash` runs commands (`kinds` says
 * otherwise).
 */
export function guardTools<T extends Record<string, unknown>>(tools: T, options: ToolGuardOptions = {}): T {
  const guard = new ToolGuard(options)
  const out: Record<string, unknown> = {}
  for (const [name, tool] of Object.entries(tools)) {
    const execute = isObj(tool) ? tool.execute : undefined
    if (typeof execute !== 'function') {
      out[name] = tool
      continue
    }
    out[name] = {
      ...(tool as Obj),
      execute: async (input: unknown, ...rest: unknown[]) => {
        const check = await guard.check(name, input)
        if (check.refused) throw new ToolRefusedError(check.reason, check.ruleIds)
        const result = await (execute as (...args: unknown[]) => unknown).call(tool, input, ...rest)
        return check.warning !== '' && typeof result === 'string' ? `${result}\n\n${check.warning}` : result
      },
    }
  }
  return out as T
}
