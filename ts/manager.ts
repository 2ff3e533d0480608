/**
 * `MemoryRuleManager`: the agent SDK's rule manager, backed by the native
 * engine. The engine compiles every rule's triggers once per discovery; a
 * per-message call sends only the files and prompt across and gets back rule
 * indices, which map to rule objects held here. Those objects are shared
 * between calls: treat them as read-only.
 */
import { homedir } from 'node:os'
import { RuleEngine } from '../index'
import type { Diagnostic, MemoryRule } from '../index'

export interface MemoryRuleManagerOptions {
  /** The project root; project rules live in `<workdir>/.wave/rules`. */
  workdir: string
  /** The user's home; user rules live in `<homeDir>/.wave/rules`. Default: `os.homedir()`. */
  homeDir?: string
  /**
   * Directories outside the workdir that project rules may resolve into
   * through symlinks (e.g. a shared team folder linked into `.wave/rules`).
   * Any other project rule whose real path is outside the workdir is not
   * loaded (a `symlink-outside` warning).
   */
  allowDirs?: string[]
}

export interface ActiveRulesSplit {
  /** Active rules without `paths` or `topics` (always on). */
  unconditional: MemoryRule[]
  /** Active rules that a file in context or a prompt topic fired. */
  conditional: MemoryRule[]
}

export class MemoryRuleManager {
  readonly #engine: RuleEngine
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
  /** The engine generation the fields above were fetched at. */
  #generation = 0

  constructor(options: MemoryRuleManagerOptions) {
    if (!options || typeof options.workdir !== 'string' || options.workdir === '') {
      throw new TypeError('MemoryRuleManager: options.workdir must be a non-empty string')
    }
    const allowDirs = Array.isArray(options.allowDirs) ? options.allowDirs.filter((d) => typeof d === 'string') : undefined
    this.#engine = new RuleEngine({ workdir: options.workdir, homeDir: options.homeDir ?? homedir(), allowDirs })
  }

  /**
   * Finds, parses and compiles every rule, off the main thread. Overlapping
   * calls (and `reload()`s) are run one at a time by the engine, and the
   * newest result wins.
   */
  async discoverRules(): Promise<void> {
    await this.#engine.discover()
    this.#sync()
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
    const before = this.#generation
    await this.#engine.reload()
    this.#sync()
    return this.#generation !== before
  }

  /** Whether `discoverRules()` (or `reload()`) has completed once. */
  get discovered(): boolean {
    return this.#discovered
  }

  /**
   * Fetches the rule objects again when the engine's rules in use changed
   * (any discovery or reload, whoever started it, resolves on this thread),
   * so objects, diagnostics and indices always come from one discovery.
   */
  #sync(): void {
    if (this.#engine.generation !== this.#generation) this.#refresh()
  }

  #refresh(): void {
    this.#generation = this.#engine.generation
    this.#rules = this.#engine.rules()
    this.#conditional = this.#engine.conditional()
    this.#unconditional = this.#rules.filter((_, i) => !this.#conditional[i])
    this.#diagnostics = this.#engine.diagnostics()
    this.#indices = new Uint32Array(this.#rules.length)
    this.#sticky = new Set(this.#rules.filter((r) => r.metadata.remind === 'every-turn').map((r) => r.id))
    this.#discovered = true
  }

  /** Every loaded rule: priority descending, project before user, then id. */
  getRules(): MemoryRule[] {
    this.#sync()
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
    this.#sync()
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
    this.#sync()
    try {
      return Array.from(this.#engine.topicActive(prompt), (i) => this.#rules[i])
    } catch {
      return []
    }
  }

  /** Ids of the rules with `remind: every-turn`, decided at discovery. */
  getStickyRuleIds(): ReadonlySet<string> {
    this.#sync()
    return this.#sticky
  }

  /**
   * The rules without `paths` or `topics`: always active, whatever the files
   * and prompt, so known at discovery (no match needed).
   */
  getUnconditionalRules(): MemoryRule[] {
    this.#sync()
    return this.#unconditional.slice()
  }

  /** Diagnostics of the last discovery, sorted by file and line. */
  getDiagnostics(): Diagnostic[] {
    this.#sync()
    return this.#diagnostics.slice()
  }

  #activeIndices(filesInContext: unknown, prompt: unknown): Uint32Array {
    const files = stringsOf(filesInContext)
    this.#sync()
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
      let n = this.#engine.activeDelta(keep, files.length - keep, added, p, this.#indices)
      if (n === 0xffffffff) {
        // The engine's kept list is not what we thought: send everything.
        this.#sent = []
        n = this.#engine.activeDelta(0, files.length, files.join('\0'), p, this.#indices)
        if (n === 0xffffffff) return new Uint32Array(0)
      }
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

/**
 * The strings of an array (the array itself when all are strings); [] for
 * anything else. A path containing NUL names no file and is dropped (NUL
 * separates paths on their way to the engine).
 */
function stringsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const ok = (f: unknown): f is string => typeof f === 'string' && !f.includes('\0')
  for (let i = 0; i < value.length; i++) {
    if (!ok(value[i])) return value.filter(ok)
  }
  return value as string[]
}
