/**
 * `wave-memory-rules/wave-agent`: the agent SDK's `MemoryRuleManager`, with
 * exactly its public shape, backed by the native engine. Swap the SDK's file
 * for one line:
 *
 * ```ts
 * export { MemoryRuleManager } from 'wave-memory-rules/wave-agent'
 * ```
 *
 * As in the SDK: the constructor takes the SDK's container and `{ workdir }`;
 * rules come from `~/.claude/rules`, `~/.wave/rules`, `<workdir>/.claude/rules`
 * and `<workdir>/.wave/rules`, later ones overriding earlier ones by id; the
 * home is `os.homedir()` at every discovery; `reload()` resolves to nothing.
 * What discovery skipped is logged on the container's `Logger` (when it has
 * one) or on `options.logger`; otherwise nothing is printed. Nothing here
 * throws into the agent loop.
 *
 * Beyond the SDK: `getActiveRules` and `getActiveRulesSplit` take an optional
 * prompt, so topic rules fire when the SDK passes the user's message.
 */
import { RuleManager as Engine } from './manager'
import type { Diagnostic, MemoryRule } from '../index'

export type { MemoryRule, RuleMetadata as MemoryRuleMetadata } from '../index'

/** The logger methods the SDK's logger has; any of them may be missing. */
export interface Logger {
  debug?(...args: unknown[]): void
  info?(...args: unknown[]): void
  warn?(...args: unknown[]): void
  error?(...args: unknown[]): void
}

/** The SDK's dependency container, as far as this manager uses it. */
export interface ContainerLike {
  has?(name: string): boolean
  get?(name: string): unknown
}

export interface MemoryRuleManagerOptions {
  workdir: string
  /** Used when the container has no `Logger`. */
  logger?: Logger
}

/** The container's `Logger`, else the option's; `undefined` when neither. */
function loggerOf(container: unknown, fallback: Logger | undefined): Logger | undefined {
  try {
    const c = container as ContainerLike | null | undefined
    if (c && typeof c.has === 'function' && typeof c.get === 'function' && c.has('Logger')) {
      const logger = c.get('Logger')
      if (typeof logger === 'object' && logger !== null) return logger as Logger
    }
  } catch {
    // A container that throws on lookup is treated as having no logger.
  }
  return fallback
}

/** `file:line:col: severity[code]: message` (the core's text, as the CLI prints it). */
export function formatDiagnostic(d: Diagnostic): string {
  return d.text
}

export class MemoryRuleManager {
  readonly #container: unknown
  readonly #options: MemoryRuleManagerOptions
  readonly #engine: Engine

  constructor(container: unknown, options: MemoryRuleManagerOptions) {
    this.#container = container
    this.#options = { ...options }
    // The SDK reads `<workdir>/.wave/rules` as given: no project root search.
    this.#engine = new Engine({ workdir: options.workdir, findRoot: false })
  }

  /** Scans the four rule roots (home resolved now), off the main thread. */
  async discoverRules(): Promise<void> {
    try {
      await this.#engine.discoverRules()
      this.#report(true)
    } catch (error) {
      this.#log('error', 'Failed to discover memory rules; the previous rules are kept:', error)
    }
  }

  /** Discovers again, re-reading only changed files. */
  async reload(): Promise<void> {
    try {
      const changed = await this.#engine.reload()
      this.#report(changed)
    } catch (error) {
      this.#log('error', 'Failed to reload memory rules; the previous rules are kept:', error)
    }
  }

  /** The active rules for these files (and, optionally, the user's prompt). */
  getActiveRules(filesInContext: string[], prompt?: string): MemoryRule[] {
    return this.#engine.getActiveRules(filesInContext, prompt)
  }

  /**
   * The active rules, split: `unconditional` (no `paths`, no `topics`: for
   * the memory prepended to every request) and `conditional` (fired by a
   * file or a prompt topic).
   */
  getActiveRulesSplit(filesInContext: string[], prompt?: string): { unconditional: MemoryRule[]; conditional: MemoryRule[] } {
    return this.#engine.getActiveRulesSplit(filesInContext, prompt)
  }

  /** Diagnostics of the last discovery (not part of the SDK's shape). */
  getDiagnostics(): Diagnostic[] {
    return this.#engine.getDiagnostics()
  }

  #report(changed: boolean): void {
    if (!changed) return
    const logger = loggerOf(this.#container, this.#options.logger)
    if (!logger) return
    for (const d of this.#engine.getDiagnostics()) {
      this.#log(d.severity === 'error' ? 'error' : d.severity === 'warning' ? 'warn' : 'debug', formatDiagnostic(d))
    }
    this.#log('debug', `Discovered ${this.#engine.getRules().length} modular memory rules`)
  }

  #log(level: 'debug' | 'warn' | 'error', ...args: unknown[]): void {
    try {
      const logger = loggerOf(this.#container, this.#options.logger)
      const method = logger?.[level]
      if (typeof method === 'function') method.apply(logger, args)
    } catch {
      // A logger that throws must not take the agent down.
    }
  }
}
