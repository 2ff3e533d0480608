/**
 * `RuleManager`: the package's rule manager, backed by the native
 * engine. The engine compiles every rule's triggers once per discovery; a
 * per-message call sends only the files and prompt across and gets back rule
 * indices, which map to rule objects held here. Those objects are shared
 * between calls: treat them as read-only. A rule's `content` is read from
 * the engine when first asked (see `LAZY_CONTENT`).
 */
import { homedir } from 'node:os'
import { resolve } from 'node:path'
// Before '../index': loads the engine with the package's clear error (every entry and subpath).
import './binding'
import { RuleEngine, chosenSources as nativeChosenSources, defaultSources as nativeDefaultSources, readRuleToolDefinition as nativeReadRuleDefinition, projectRoot as nativeProjectRoot, sourceNames as nativeSourceNames } from '../index'
import type { Diagnostic, MemoryRule, ProjectRootInfo, RuleFields, RuleSource, RuleTexts } from '../index'

/**
 * The project root of a directory: the nearest directory at or above it
 * holding a `.wave`, `.claude` or `.git` (the home's `.wave` and `.claude`
 * are the user's own and do not count; a `.git` counts only as git takes it,
 * with its `HEAD` or as a `gitdir:` file), else the directory itself; what the
 * CLI uses when no `--workdir` is given. `marker` says which entry was found.
 */
export function projectRoot(dir: string, homeDir: string = homedir()): ProjectRootInfo {
  return nativeProjectRoot(resolve(dir), homeDir)
}

/**
 * A source by name: that tool's own places (`cursor`: `.cursor/rules` and
 * nested `.cursor/rules`; `agents-md`: `AGENTS.md`; `claude`: `.claude/rules`
 * and `CLAUDE.md`; `gemini`: `GEMINI.md`; ...), or `all`. The default, `['claude', 'wave']`, is what the agent SDK reads.
 */
export type SourceName = FormatName | 'all'

/**
 * A rule format's name (`'wave'`, `'cursor'`, `'agents-md'`, ...): the
 * engine's list (`sourceNames()` at run time), typed once in the binding.
 */
export type FormatName = NonNullable<RuleSource['format']>

/** Every format name, in the engine's order (a source may also be `'all'`). */
export function sourceNames(): FormatName[] {
  return nativeSourceNames()
}

/** The tool spec for reading an on-request rule: `{ name: 'read_rule', description, parameters }`. */
export interface ReadRuleToolDefinition {
  name: 'read_rule'
  description: string
  /** JSON schema of the input (Anthropic calls it `input_schema`). */
  parameters: Record<string, unknown>
}

/** The `read_rule` tool spec to give the model (with `getAvailableRulesText`). */
export function readRuleToolDefinition(): ReadRuleToolDefinition {
  return nativeReadRuleDefinition() as ReadRuleToolDefinition
}

export interface ActiveRulesOptions {
  /**
   * The content of files in context, by the path given in `filesInContext`,
   * for rules that match file content (Continue's `regex`). Without it such
   * a rule is decided by its globs alone.
   */
  contents?: Record<string, string> | Map<string, string>
}

export interface RuleManagerOptions {
  /**
   * A directory of the project. The rules and context paths are those of its
   * project root (see `findRoot`): relative context paths are relative to
   * that root, absolute ones may be anywhere inside it.
   */
  workdir: string
  /**
   * Use the project root of `workdir` (`projectRoot(workdir)`: the nearest
   * directory at or above it with `.wave`, `.claude` or `.git`), as the CLI
   * does, so a workdir of `src/api` reads the project's rules. `false` keeps
   * `workdir` as given, as the agent SDK does (`wave-memory-rules/wave-agent`
   * passes `false`). Default: `true`.
   */
  findRoot?: boolean
  /**
   * The user's home, for the default sources. Default: `os.homedir()`,
   * resolved again at every discovery (as the agent SDK does).
   */
  homeDir?: string
  /**
   * The rule sources in override order (later wins by id): source names
   * (`['claude', 'wave', 'cursor']`, `['all']`) and/or explicit sources.
   * Default: the project's choice (`sources = [...]` in its
   * `.wave/config.toml`, as `hook install --sources` writes it), else
   * `defaultSources(workdir, homeDir)`, the same as `['claude', 'wave']`.
   * A function is called at every discovery with the
   * workdir and the home of that discovery.
   */
  sources?: Array<RuleSource | SourceName> | ((where: { workdir: string; homeDir: string }) => Array<RuleSource | SourceName>)
  /**
   * Directories outside the workdir that project rules may resolve into
   * through symlinks (e.g. a shared team folder linked into `.wave/rules`).
   * Any other project rule whose real path is outside the workdir is not
   * loaded (a `symlink-outside` warning).
   */
  allowDirs?: string[]
  /**
   * Read the rule packs the project's `.wave/config.toml` names (npm
   * packages in `node_modules`, git checkouts, folders): they come first, so
   * user and project rules replace theirs. Default: `true`. See docs/teams.md.
   */
  packs?: boolean
  /**
   * The policy directory, whose rules come last and are locked. Default:
   * `WAVE_POLICY_DIR`, else the system's (`/etc/wave`, `/Library/Application
   * Support/Wave`, `%ProgramData%\Wave`).
   */
  policyDir?: string
  /**
   * The agent whose model gets the rules (`'claude'`, `'codex'`,
   * `'gemini'`, `'copilot'`, `'opencode'`, ...): the sources it loads by
   * itself are left out, so each rule reaches the model once (see
   * docs/agents.md). Default: none left out.
   */
  agent?: string
}

/**
 * The agent SDK's four sources, in override order: `~/.claude/rules` (any
 * depth), `~/.wave/rules` (one level), `<workdir>/.claude/rules` (any depth),
 * `<workdir>/.wave/rules` (one level).
 */
export function defaultSources(workdir: string, homeDir: string): RuleSource[] {
  return nativeDefaultSources(workdir, homeDir)
}

export interface ActiveRulesSplit {
  /** Active rules without `paths` or `topics` (always on). */
  unconditional: MemoryRule[]
  /** Active rules that a file in context or a prompt topic fired. */
  conditional: MemoryRule[]
}

/**
 * Where a rule object handed out by a manager lives: its engine, the
 * engine's generation and its index there, and the texts of that
 * generation's rules. `planRules` renders such rules by index, without
 * sending the objects across.
 * @internal
 */
export const ruleHome = new WeakMap<MemoryRule, { engine: RuleEngine; generation: number; index: number; texts: RuleTexts; text: string | undefined }>()

/**
 * A manager's rule object's `content`: an own enumerable property (spread,
 * `JSON.stringify`, `Object.keys` and deep equality see it as before) whose
 * text is read from the engine's `RuleTexts` of the rule's discovery when
 * first asked, then kept with the object: a text nobody reads is held once
 * (by the core), as the pure-JS manager holds it once. Assigning it stores
 * the value instead.
 */
const LAZY_CONTENT: PropertyDescriptor = {
  get(this: MemoryRule): string {
    const home = ruleHome.get(this)
    if (!home) return ''
    return (home.text ??= home.texts.get(home.index) ?? '')
  },
  set(this: MemoryRule, value: unknown): void {
    Object.defineProperty(this, 'content', { value, writable: true, enumerable: true, configurable: true })
  },
  enumerable: true,
  configurable: true,
}

/** A rule object of the engine's fields, its keys in `MemoryRule`'s order, `content` read when asked. */
function lazyRule(fields: RuleFields): MemoryRule {
  const rule = { id: fields.id } as MemoryRule
  Object.defineProperty(rule, 'content', LAZY_CONTENT)
  rule.metadata = fields.metadata
  rule.source = fields.source
  rule.filePath = fields.filePath
  if (fields.format !== undefined) rule.format = fields.format
  if (fields.origin !== undefined) rule.origin = fields.origin
  return rule
}

export class RuleManager {
  readonly #engine: RuleEngine
  readonly #options: RuleManagerOptions
  #rules: MemoryRule[] = []
  #conditional: boolean[] = []
  #unconditional: MemoryRule[] = []
  #unconditionalSet: ReadonlySet<MemoryRule> = new Set()
  #diagnostics: Diagnostic[] = []
  #sticky: ReadonlySet<string> = new Set()
  /** Where the engine writes active rule indices; reused by every message. */
  #indices = new Uint32Array(0)
  /** Indices of the on-request rules. */
  #onRequest: number[] = []
  /** The files in context the engine holds (what the last message sent). */
  #sent: string[] = []
  #discovered = false
  /** Goes up by one at each refresh (see `generation`). */
  #generation = 0
  /** The engine's generation the fields above were fetched at. */
  #engineGeneration = 0

  constructor(options: RuleManagerOptions) {
    if (!options || typeof options.workdir !== 'string' || options.workdir === '') {
      throw new TypeError('RuleManager: options.workdir must be a non-empty string')
    }
    this.#options = { ...options }
    this.#engine = new RuleEngine(this.#engineOptions())
  }

  /** The workdir, the home, the sources and the allowed directories of a discovery starting now. */
  #engineOptions(): { workdir: string; homeDir: string; sources: Array<RuleSource | SourceName>; allowDirs?: string[]; packs?: boolean; policyDir?: string; agent?: string } {
    const homeDir = this.#options.homeDir ?? homedir()
    const workdir = this.#options.findRoot === false ? this.#options.workdir : projectRoot(this.#options.workdir, homeDir).dir
    const given = this.#options.sources
    const sources = typeof given === 'function' ? given({ workdir, homeDir }) : given ?? (nativeChosenSources(workdir) as SourceName[] | null) ?? defaultSources(workdir, homeDir)
    const allow = this.#options.allowDirs
    const allowDirs = Array.isArray(allow) ? allow.filter((d) => typeof d === 'string') : undefined
    const { packs, policyDir, agent } = this.#options
    return { workdir, homeDir, sources, allowDirs, packs, policyDir, agent }
  }

  /**
   * Finds, parses and compiles every rule, off the main thread. Overlapping
   * calls (and `reload()`s) are run one at a time by the engine, and the
   * newest result wins.
   */
  async discoverRules(): Promise<void> {
    this.#engine.configure(this.#engineOptions())
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
    this.#engine.configure(this.#engineOptions())
    const before = this.#engineGeneration
    await this.#engine.reload()
    this.#sync()
    return this.#engineGeneration !== before
  }

  /** Goes up by one each time the rules in use change (a discovery, or a reload that changed something). */
  get generation(): number {
    return this.#generation
  }

  /**
   * The native engine, for the delivery session (`DeliverySession`), whose
   * calls take the engine whose rules they answer with.
   * @internal
   */
  get engine(): RuleEngine {
    this.#sync()
    return this.#engine
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
    if (this.#engine.generation !== this.#engineGeneration) this.#refresh()
  }

  #refresh(): void {
    this.#engineGeneration = this.#engine.generation
    const texts = this.#engine.ruleTexts()
    this.#rules = this.#engine.ruleFields().map(lazyRule)
    this.#conditional = this.#engine.conditional()
    this.#unconditional = this.#rules.filter((_, i) => !this.#conditional[i])
    this.#unconditionalSet = new Set(this.#unconditional)
    const engine = this.#engine
    const generation = this.#engineGeneration
    this.#rules.forEach((rule, index) => ruleHome.set(rule, { engine, generation, index, texts, text: undefined }))
    this.#diagnostics = this.#engine.diagnostics()
    this.#indices = new Uint32Array(this.#rules.length)
    this.#sticky = new Set(this.#rules.filter((r) => r.metadata.remind === 'every-turn').map((r) => r.id))
    this.#onRequest = []
    this.#rules.forEach((r, i) => {
      if (r.metadata.activation === 'on-request') this.#onRequest.push(i)
    })
    this.#discovered = true
    this.#generation++
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
  getActiveRules(filesInContext: string[], prompt?: string, options?: ActiveRulesOptions): MemoryRule[] {
    const indices = options?.contents ? this.#activeWithContents(filesInContext, prompt, options.contents) : this.#activeIndices(filesInContext, prompt)
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

  /**
   * Whether a rule of this manager (an object from `getRules()` & co.) fires
   * on something (files, topics, content, a mention, a request) rather than
   * being always on: the core's answer, fetched at discovery.
   */
  isConditional(rule: MemoryRule): boolean {
    return !this.getUnconditionalSet().has(rule)
  }

  /** The always-on rule objects, as a set (one check per call, not per rule). */
  getUnconditionalSet(): ReadonlySet<MemoryRule> {
    this.#sync()
    return this.#unconditionalSet
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

  /**
   * The on-request rules (a Cursor "Agent Requested" rule, Windsurf
   * `model_decision`, Kiro `auto`, ...) not active for these files and
   * prompt: offer them to the model by id and description, with the
   * `read_rule` tool. Never throws.
   */
  getAvailableRules(filesInContext: string[] = [], prompt?: string): MemoryRule[] {
    this.#sync()
    if (this.#onRequest.length === 0) return []
    const active = new Set(this.#activeIndices(filesInContext, prompt))
    return this.#onRequest.filter((i) => !active.has(i)).map((i) => this.#rules[i])
  }

  /**
   * `getAvailableRules` as the short list for the model: a heading naming
   * the `read_rule` tool, then one `- id: description` line each; `''` when
   * there are none. Never throws.
   */
  getAvailableRulesText(filesInContext: string[] = [], prompt?: string): string {
    return this.offerText(this.getAvailableRules(filesInContext, prompt))
  }

  /** The short list for the model of these rules (of this manager); `''` for none. Never throws. */
  offerText(rules: readonly MemoryRule[]): string {
    if (rules.length === 0) return ''
    this.#sync()
    try {
      const index = new Map(this.#rules.map((r, i) => [r, i]))
      const indices = rules.map((r) => index.get(r)).filter((i): i is number => i !== undefined)
      return this.#engine.offerText(indices)
    } catch {
      return ''
    }
  }

  /**
   * The manual and on-request rules the prompt mentions (`@name`, `@id`;
   * `#name` as Kiro writes it). Never throws.
   */
  getMentionedRules(prompt: string): MemoryRule[] {
    if (typeof prompt !== 'string' || !/[@#]/.test(prompt)) return []
    this.#sync()
    try {
      return Array.from(this.#engine.active([], prompt), (i) => this.#rules[i]).filter((r) => r.metadata.activation != null)
    } catch {
      return []
    }
  }

  /**
   * Runs the `read_rule` tool (`{ id }`): the rule's text, or an error
   * message for the model. Never throws.
   */
  runReadRuleTool(input: unknown): string {
    try {
      return this.#engine.readRule(input === undefined ? null : JSON.parse(JSON.stringify(input)))
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`
    }
  }

  /** The on-request rules, known at discovery (in `getRules()` order). */
  getOnRequestRules(): MemoryRule[] {
    this.#sync()
    return this.#onRequest.map((i) => this.#rules[i])
  }

  /** Diagnostics of the last discovery, sorted by file and line. */
  getDiagnostics(): Diagnostic[] {
    this.#sync()
    return this.#diagnostics.slice()
  }

  #activeWithContents(filesInContext: unknown, prompt: unknown, contents: Record<string, string> | Map<string, string>): Uint32Array {
    this.#sync()
    try {
      const record: Record<string, string> = {}
      const entries = contents instanceof Map ? contents.entries() : Object.entries(contents)
      for (const [file, text] of entries) if (typeof text === 'string') record[file] = text
      const p = typeof prompt === 'string' ? prompt : undefined
      return this.#engine.activeWithContents(stringsOf(filesInContext), p, record)
    } catch {
      return new Uint32Array(0)
    }
  }

  #activeIndices(filesInContext: unknown, prompt: unknown): Uint32Array {
    const files = stringsOf(filesInContext)
    this.#sync()
    if (!IN_PLACE_WRITES) {
      try {
        return this.#engine.active(files, typeof prompt === 'string' ? prompt : undefined)
      } catch {
        return new Uint32Array(0)
      }
    }
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
 * Bun's N-API hands the addon a copy of a typed array, so the engine's
 * writes into the manager's index buffer never reach it (seen in Bun 1.3,
 * which opencode embeds); there, each call gets a fresh array instead.
 */
const IN_PLACE_WRITES = !(process.versions as Record<string, string | undefined>).bun

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

/**
 * Keeps a manager's rules fresh for one caller (a guard, an injector): the
 * first use discovers them, later ones reload at most every `intervalMs`.
 */
export class RuleRefresher {
  #reloadedAt = -Infinity

  async refresh(manager: RuleManager, intervalMs: number): Promise<void> {
    if (!manager.discovered) {
      await manager.discoverRules()
      this.#reloadedAt = Date.now()
    } else if (Date.now() - this.#reloadedAt >= intervalMs) {
      this.#reloadedAt = Date.now()
      await manager.reload()
    }
  }
}
