/**
 * `MemoryRuleManager`: the agent SDK's rule manager, backed by the native
 * engine. The engine compiles every rule's triggers once per discovery; a
 * per-message call sends only the files and prompt across and gets back rule
 * indices, which map to rule objects held here. Those objects are shared
 * between calls: treat them as read-only.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
// Before '../index': loads the engine with the package's clear error (every entry and subpath).
import './binding'
import { RuleEngine } from '../index'
import type { Diagnostic, MemoryRule, RuleSource } from '../index'

export interface MemoryRuleManagerOptions {
  /** The project root: context paths are relative to it. */
  workdir: string
  /**
   * The user's home, for the default sources. Default: `os.homedir()`,
   * resolved again at every discovery (as the agent SDK does).
   */
  homeDir?: string
  /**
   * The rule sources in override order (later wins by id). Default:
   * `defaultSources(workdir, homeDir)`. A function is called at every
   * discovery with the workdir and the home of that discovery.
   */
  sources?: RuleSource[] | ((where: { workdir: string; homeDir: string }) => RuleSource[])
}

/**
 * The agent SDK's four sources, in override order: `~/.claude/rules` (any
 * depth), `~/.wave/rules` (one level), `<workdir>/.claude/rules` (any depth),
 * `<workdir>/.wave/rules` (one level).
 */
export function defaultSources(workdir: string, homeDir: string): RuleSource[] {
  return [
    { dir: join(homeDir, '.claude', 'rules'), scope: 'user', format: 'wave', depth: 'any' },
    { dir: join(homeDir, '.wave', 'rules'), scope: 'user', format: 'wave', depth: 1 },
    { dir: join(workdir, '.claude', 'rules'), scope: 'project', format: 'wave', depth: 'any' },
    { dir: join(workdir, '.wave', 'rules'), scope: 'project', format: 'wave', depth: 1 },
  ]
}

export interface ActiveRulesSplit {
  /** Active rules without `paths` or `topics` (always on). */
  unconditional: MemoryRule[]
  /** Active rules that a file in context or a prompt topic fired. */
  conditional: MemoryRule[]
}

export class MemoryRuleManager {
  readonly #engine: RuleEngine
  readonly #options: MemoryRuleManagerOptions
  #rules: MemoryRule[] = []
  #conditional: boolean[] = []
  #unconditional: MemoryRule[] = []
  #diagnostics: Diagnostic[] = []
  #sticky: ReadonlySet<string> = new Set()
  /** Where the engine writes active rule indices; reused by every message. */
  #indices = new Uint32Array(0)
  /** The files in context the engine holds (what the last message sent). */
  #sent: string[] = []
  #discovered = false
  #generation = 0

  constructor(options: MemoryRuleManagerOptions) {
    if (!options || typeof options.workdir !== 'string' || options.workdir === '') {
      throw new TypeError('MemoryRuleManager: options.workdir must be a non-empty string')
    }
    this.#options = { ...options }
    this.#engine = new RuleEngine(this.#engineOptions())
  }

  /** The workdir, the home and the sources of a discovery starting now. */
  #engineOptions(): { workdir: string; sources: RuleSource[] } {
    const workdir = this.#options.workdir
    const homeDir = this.#options.homeDir ?? homedir()
    const given = this.#options.sources
    const sources = typeof given === 'function' ? given({ workdir, homeDir }) : given ?? defaultSources(workdir, homeDir)
    return { workdir, sources }
  }

  /** Finds, parses and compiles every rule, off the main thread. */
  async discoverRules(): Promise<void> {
    this.#engine.configure(this.#engineOptions())
    await this.#engine.discover()
    this.#refresh()
  }

  /**
   * Discovers again, off the main thread, re-reading only the rule files whose
   * size, mtime, inode or device changed; the rules in use change when the
   * promise resolves. Cheap when nothing changed, so it can run per message.
   * Resolves to whether the rules or diagnostics changed.
   */
  async reload(): Promise<boolean> {
    if (!this.#discovered) {
      await this.discoverRules()
      return true
    }
    this.#engine.configure(this.#engineOptions())
    const changed = await this.#engine.reload()
    if (changed) this.#refresh()
    return changed
  }

  /** Goes up by one each time the rules in use change (a discovery, or a reload that changed something). */
  get generation(): number {
    return this.#generation
  }

  /** Whether `discoverRules()` (or `reload()`) has completed once. */
  get discovered(): boolean {
    return this.#discovered
  }

  #refresh(): void {
    this.#rules = this.#engine.rules()
    this.#conditional = this.#engine.conditional()
    this.#unconditional = this.#rules.filter((_, i) => !this.#conditional[i])
    this.#diagnostics = this.#engine.diagnostics()
    this.#indices = new Uint32Array(this.#rules.length)
    this.#sticky = new Set(this.#rules.filter((r) => r.metadata.remind === 'every-turn').map((r) => r.id))
    this.#discovered = true
    this.#generation++
  }

  /** Every loaded rule: priority descending, project before user, then id. */
  getRules(): MemoryRule[] {
    return this.#rules.slice()
  }

  /**
   * The rules active for these files in context and prompt, in the same order
   * as `getRules()`. Never throws: entries that are not strings are skipped.
   */
  getActiveRules(filesInContext: string[], prompt?: string): MemoryRule[] {
    const indices = this.#activeIndices(filesInContext, prompt)
    const rules = this.#rules
    const out: MemoryRule[] = new Array(indices.length)
    for (let k = 0; k < indices.length; k++) out[k] = rules[indices[k]]
    return out
  }

  /** `getActiveRules`, split into always-on and triggered rules. */
  getActiveRulesSplit(filesInContext: string[], prompt?: string): ActiveRulesSplit {
    const split: ActiveRulesSplit = { unconditional: [], conditional: [] }
    for (const i of this.#activeIndices(filesInContext, prompt)) {
      ;(this.#conditional[i] ? split.conditional : split.unconditional).push(this.#rules[i])
    }
    return split
  }

  /**
   * The rules that a topic in `prompt` activates (a subset of the active
   * rules): the constraints the prompt itself asked for.
   */
  getTopicRules(prompt: string): MemoryRule[] {
    if (typeof prompt !== 'string' || prompt === '') return []
    try {
      return Array.from(this.#engine.topicActive(prompt), (i) => this.#rules[i])
    } catch {
      return []
    }
  }

  /** Ids of the rules with `remind: every-turn`, decided at discovery. */
  getStickyRuleIds(): ReadonlySet<string> {
    return this.#sticky
  }

  /**
   * The rules without `paths` or `topics`: always active, whatever the files
   * and prompt, so known at discovery (no match needed).
   */
  getUnconditionalRules(): MemoryRule[] {
    return this.#unconditional.slice()
  }

  /** Diagnostics of the last discovery, sorted by file and line. */
  getDiagnostics(): Diagnostic[] {
    return this.#diagnostics.slice()
  }

  #activeIndices(filesInContext: unknown, prompt: unknown): Uint32Array {
    const files = stringsOf(filesInContext)
    try {
      // The engine keeps the previous message's files: send only what changed
      // after the common prefix (usually nothing, or a few new files), as one
      // joined string. Indices come back in a buffer this manager keeps.
      const sent = this.#sent
      const max = Math.min(files.length, sent.length)
      let keep = 0
      while (keep < max && files[keep] === sent[keep]) keep++
      const same = keep === files.length && keep === sent.length
      const added = keep === files.length ? '' : files.slice(keep).join('\0')
      const p = typeof prompt === 'string' ? prompt : undefined
      const n = this.#engine.activeDelta(keep, files.length - keep, added, p, this.#indices)
      if (!same) this.#sent = files.slice()
      return this.#indices.subarray(0, n)
    } catch {
      this.#sent = []
      // The engine catches its own panics; this is the last guard so a
      // message loop never sees a surprise. No rule fires on a failed call.
      return new Uint32Array(0)
    }
  }
}

/** The strings of an array (the array itself when all are strings); [] for anything else. */
function stringsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') return value.filter((f): f is string => typeof f === 'string')
  }
  return value as string[]
}
