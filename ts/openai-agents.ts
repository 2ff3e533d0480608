/**
 * `wave-memory-rules/openai-agents`: memory rules for the OpenAI Agents SDK
 * (`@openai/agents`), as a `callModelInputFilter`: the SDK calls it right
 * before every model call with the instructions and the input items it is
 * about to send, and sends what it returns.
 *
 * ```ts
 * import { Agent, run } from '@openai/agents'
 * import { memoryRulesInputFilter } from 'wave-memory-rules/openai-agents'
 *
 * const rules = memoryRulesInputFilter({ workdir })
 * await run(agent, 'Add paging to the customer list', { callModelInputFilter: rules })
 * // or for every run: new Runner({ callModelInputFilter: rules })
 * ```
 *
 * It reads the files named by `function_call` items (their JSON arguments)
 * and `@path` mentions, and the last user text, only from the items added
 * since its previous call (see `RuleInjector`). System-prompt mode appends
 * the rules to the agent's instructions; reminder mode appends only the
 * always-on rules and delivers each conditional rule once per session as a
 * user item placed where it became active, kept there in later calls, and
 * delivered again after compaction. The filter reads the items and never
 * changes them (so it asks the SDK not to copy them: `preserveInputIdentity`).
 * Nothing throws into the SDK: on an error the model gets the call unchanged.
 */
import { RuleInjector, withReminders } from './inject'
import type { PlacedReminder, RuleInjectorOptions } from './inject'
import type { RuleManager } from './manager'
import { ToolGuard } from './guard'
import type { ToolGuardOptions } from './guard'

export type { ToolGuardOptions }

/** What the SDK passes to a `callModelInputFilter` (as far as it is read here). */
export interface CallModelInputFilterArgs {
  modelData: { input: unknown[]; instructions?: string }
  agent?: unknown
  context?: unknown
}

export interface MemoryRulesInputFilterOptions extends RuleInjectorOptions {
  /** The session a call belongs to (e.g. from the run context). Default: one session, `'default'`. */
  sessionId?: (args: CallModelInputFilterArgs) => string
  /** Receives every error instead of the SDK. Default: ignore. */
  onError?: (error: unknown) => void
}

export interface MemoryRulesInputFilter {
  <A extends CallModelInputFilterArgs>(args: A): Promise<A['modelData']>
  /** The SDK passes the items without copying them: this filter never changes them. */
  preserveInputIdentity: true
  readonly manager: RuleManager
  /** The `read_rule` tool for rules offered on request: its spec, and a runner that never throws. */
  readonly readRuleTool: RuleInjector['readRuleTool']
  /** Call after the conversation was compacted: active rules are delivered again. */
  onCompacted(sessionId?: string): void
  /** Ids of the rules delivered as reminders in a session (since compaction). */
  delivered(sessionId?: string): string[]
}

const reminderItem = (r: PlacedReminder) => ({ role: 'user', content: r.text })

export function memoryRulesInputFilter(options: MemoryRulesInputFilterOptions = {}): MemoryRulesInputFilter {
  const injector = new RuleInjector({ agent: 'openai-agents', ...options })
  const onError = options.onError ?? (() => {})
  const sessionOf = options.sessionId ?? (() => 'default')

  const filter = async <A extends CallModelInputFilterArgs>(args: A): Promise<A['modelData']> => {
    const modelData = args?.modelData
    try {
      if (!modelData || !Array.isArray(modelData.input)) return modelData
      const { system, reminders } = await injector.prepare(sessionOf(args), modelData.input)
      const input = reminders.length === 0 ? modelData.input : withReminders<unknown>(modelData.input, reminders, reminderItem)
      const base = modelData.instructions ?? ''
      const instructions = system === '' ? modelData.instructions : base === '' ? system : `${base}\n\n${system}`
      return { ...modelData, input, instructions }
    } catch (error) {
      try {
        onError(error)
      } catch {
        // An onError that throws must not reach the SDK either.
      }
      return modelData
    }
  }
  return Object.assign(filter, {
    preserveInputIdentity: true as const,
    manager: injector.manager,
    readRuleTool: injector.readRuleTool,
    onCompacted: (sessionId = 'default') => injector.onCompacted(sessionId),
    delivered: (sessionId = 'default') => injector.delivered(sessionId),
  })
}

/** A tool input guardrail, as the OpenAI Agents SDK takes it (`tool({ ..., inputGuardrails: [guardrail] })`). */
export interface RuleGuardrail {
  type: 'tool_input'
  name: string
  run(data: { toolCall: { name?: string; arguments?: string } }): Promise<{
    behavior: { type: 'allow' } | { type: 'rejectContent'; message: string }
    outputInfo?: { ruleIds: string[]; warning?: string; unchecked?: string[] }
  }>
}

/**
 * The rules that enforce, as an OpenAI Agents SDK tool input guardrail:
 * before the tool runs, the core checks the files the call would write and
 * the commands it would run. An `enforce: block` rule rejects the call: the
 * model reads the rule's text as the call's result (`rejectContent`) and the
 * tool does not run. `enforce: warn` lets it run (the warning is in
 * `outputInfo`, and the rule reaches the model through the input filter, as
 * a rule of the file).
 *
 * ```ts
 * const guardrail = ruleGuardrail({ manager: rules.manager })
 * const writeFile = tool({ name: 'write_file', parameters, execute, inputGuardrails: [guardrail] })
 * ```
 */
export function ruleGuardrail(options: ToolGuardOptions = {}): RuleGuardrail {
  const guard = new ToolGuard(options)
  return {
    type: 'tool_input',
    name: 'wave-memory-rules',
    async run({ toolCall }) {
      let input: unknown = {}
      try {
        input = JSON.parse(toolCall?.arguments ?? '{}')
      } catch {
        input = {}
      }
      const check = await guard.check(String(toolCall?.name ?? ''), input)
      const outputInfo = { ruleIds: check.ruleIds, warning: check.warning || undefined, unchecked: check.unchecked.length ? check.unchecked : undefined }
      return check.refused ? { behavior: { type: 'rejectContent', message: check.reason }, outputInfo } : { behavior: { type: 'allow' }, outputInfo }
    },
  }
}
