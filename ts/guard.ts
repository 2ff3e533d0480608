/**
 * `ToolGuard`: the rules that enforce, asked before an SDK's tool runs (the
 * AI SDK's `guardTools`, the OpenAI Agents SDK's `ruleGuardrail`). The core
 * decides: the files the call would write (its input's file keys when the
 * tool writes, a shell command's written files, a patch's), the simple
 * commands it would run, and which `enforce: block` / `enforce: warn` rules
 * they trigger; the guard only reloads the rules now and then and never
 * throws (a failure of its own lets the call run, and goes to `onError`).
 */
import { RuleManager, RuleRefresher } from './manager'
import type { RuleManagerOptions } from './manager'
import { checkToolCall } from '../index'
import type { AgentToolCall, ToolCheck } from '../index'

export interface ToolGuardOptions {
  /** The rule manager to use (e.g. the middleware's `manager`); or give `workdir` (and `homeDir`, `sources`) to make one. */
  manager?: RuleManager
  workdir?: string
  homeDir?: string
  sources?: RuleManagerOptions['sources']
  allowDirs?: string[]
  /** Where a shell command's relative paths start (default: the project root). */
  cwd?: string
  /**
   * What a tool is, by its name, when its name does not say (`writeFile`
   * writes, `bash` runs commands, `readFile` reads: the core guesses from
   * the name otherwise). E.g. `{ save: 'write' }`.
   */
  kinds?: Record<string, AgentToolCall['kind']>
  /** Rules are reloaded before a check when this many ms passed since the last reload (default 1000). */
  reloadIntervalMs?: number
  /** Receives the guard's own errors (the call then runs). Default: ignore. */
  onError?: (error: unknown) => void
}

/** Nothing to refuse, nothing to warn about. */
const ALLOW: ToolCheck = { refused: false, reason: '', warning: '', ruleIds: [], unchecked: [] }

export class ToolGuard {
  readonly manager: RuleManager
  readonly #options: ToolGuardOptions
  #refresher = new RuleRefresher()

  constructor(options: ToolGuardOptions = {}) {
    this.#options = { ...options }
    this.manager =
      options.manager ??
      new RuleManager({ workdir: options.workdir ?? process.cwd(), homeDir: options.homeDir, sources: options.sources, allowDirs: options.allowDirs })
  }

  /** The verdict on one call of the tool `name` with `input`, before it runs. Never throws. */
  async check(name: string, input: unknown): Promise<ToolCheck> {
    try {
      await this.#refresh()
      const kind = this.#options.kinds?.[name]
      const args = typeof input === 'object' && input !== null ? input : {}
      return checkToolCall(this.manager.engine, { name, kind, input: args }, this.#options.cwd)
    } catch (error) {
      this.#options.onError?.(error)
      return ALLOW
    }
  }

  async #refresh(): Promise<void> {
    await this.#refresher.refresh(this.manager, this.#options.reloadIntervalMs ?? 1000)
  }
}

/** The error a refused call throws (`guardTools`): its message is the rule's text. */
export class ToolRefusedError extends Error {
  readonly ruleIds: string[]
  constructor(reason: string, ruleIds: string[]) {
    super(reason)
    this.name = 'ToolRefusedError'
    this.ruleIds = ruleIds
  }
}
