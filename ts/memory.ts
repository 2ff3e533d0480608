/**
 * Memory for the agent: user memory (`~/.wave/memory/`) and project memory
 * (`~/.wave/projects/<hash>/memory/`), each an index `MEMORY.md` plus one
 * Markdown file per topic holding entries (notes with an id). The agent uses
 * them through its memory tools; `writeNote` keeps memory clean (duplicates
 * folded, credentials refused, notes a rule already says not stored,
 * conflicts flagged); `search` ranks entries by relevance; a session's
 * `recall` (see `RuleInjector`'s `recall` option) gives the relevant ones at
 * each call; `loadForPrompt` gives the first lines of every topic instead.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
// Before '../index': loads the engine with the package's clear error (every entry and subpath).
import './binding'
import { NativeMemoryStore, memoryToolDefinitions as nativeDefinitions } from '../index'
import type { EntryMoved, MemoryFinding, MemoryHit, NoteInput, RuleEngine, TopicEntry, WriteAnswer } from '../index'

export type { EntryMoved, MemoryFinding, MemoryHit, NoteInput, WriteAnswer }

export type MemoryScope = 'user' | 'project'

export interface MemoryStoreOptions {
  /** The project root. Default: `process.cwd()`. */
  workdir?: string
  /** Default: `os.homedir()`. */
  homeDir?: string
  /** Overrides `<homeDir>/.wave/memory` (tests never need the real home). */
  userDir?: string
  /** Overrides `<homeDir>/.wave/projects/<hash>/memory`. */
  projectDir?: string
}

export interface MemoryToolDefinition {
  name: 'memory_read' | 'memory_write' | 'memory_search' | 'memory_propose_rule'
  description: string
  /** JSON schema of the input (Anthropic calls it `input_schema`). */
  parameters: Record<string, unknown>
}

/** The tool specs to give the model. */
export function memoryToolDefinitions(): MemoryToolDefinition[] {
  return nativeDefinitions() as MemoryToolDefinition[]
}

export class MemoryStore {
  readonly #native: NativeMemoryStore
  readonly #workdir: string

  constructor(options: MemoryStoreOptions = {}) {
    this.#workdir = options.workdir ?? process.cwd()
    this.#native = new NativeMemoryStore({
      workdir: options.workdir ?? process.cwd(),
      homeDir: options.homeDir ?? homedir(),
      userDir: options.userDir,
      projectDir: options.projectDir,
    })
  }

  get userDir(): string {
    return this.#native.userDir
  }
  get projectDir(): string {
    return this.#native.projectDir
  }

  // Every operation runs off the main thread (a write may wait up to 5 s for
  // another process's lock, then rejects with an error naming the lock).

  /** The index text; empty when the scope has no topics. */
  async readIndex(scope: MemoryScope): Promise<string> {
    return this.#native.readIndex(scope)
  }
  /** A topic's text; rejects with an error naming an unknown topic. */
  async readTopic(scope: MemoryScope, topic: string): Promise<string> {
    return this.#native.readTopic(scope, topic)
  }
  /** Appends (default) or replaces; resolves to the topic's file name. A topic is at most 256 KiB. */
  async writeTopic(scope: MemoryScope, topic: string, content: string, mode: 'append' | 'replace' = 'append'): Promise<string> {
    return this.#native.writeTopic(scope, topic, content, mode)
  }
  async listTopics(scope: MemoryScope): Promise<TopicEntry[]> {
    return this.#native.listTopics(scope)
  }
  async removeTopic(scope: MemoryScope, topic: string): Promise<void> {
    await this.#native.removeTopic(scope, topic)
  }
  async clear(scope: MemoryScope): Promise<void> {
    await this.#native.clear(scope)
  }

  /**
   * `## User Memory` (at most half) then `## Project Memory`, within `maxLines`
   * (default 200) and `maxBytes` (default 64 KiB).
   */
  async loadForPrompt(options: { maxLines?: number; maxBytes?: number } = {}): Promise<string> {
    const int = (n: number | undefined, d: number) => (n === undefined ? d : Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), 0xffffffff) : 0)
    return this.#native.loadForPrompt(int(options.maxLines, 200), int(options.maxBytes, 64 * 1024))
  }

  /**
   * Writes a note: stored, folded into a duplicate, not stored when a rule
   * of `engine` already says it, refused when it holds a credential; the
   * answer says which (`action`) and flags conflicts.
   */
  async writeNote(note: NoteInput, engine?: RuleEngine): Promise<WriteAnswer> {
    return this.#native.writeNote(note, engine)
  }

  /** The entries of both scopes most relevant to `query` and the files in context (relative to the workdir), best first. */
  async search(query: string, options: { files?: string[]; limit?: number } = {}): Promise<MemoryHit[]> {
    return this.#native.search(query, options.files, options.limit)
  }

  /** Duplicates, notes that restate or contradict rules or each other, files that no longer exist, topics too large, proposals. */
  async lint(engine?: RuleEngine): Promise<MemoryFinding[]> {
    return this.#native.lint(this.#workdir, engine)
  }

  /** Removes an entry (by id or a prefix only it has). */
  async forget(id: string): Promise<EntryMoved> {
    return this.#native.forget(id)
  }

  /** Turns an entry into a rule in `<workdir>/.wave/rules` (or `rulesDir`) and removes it from memory. */
  async promote(id: string, options: { rulesDir?: string; paths?: string[]; topics?: string[] } = {}): Promise<EntryMoved> {
    return this.#native.promote(id, { rulesDir: options.rulesDir ?? join(this.#workdir, '.wave', 'rules'), paths: options.paths, topics: options.topics })
  }

  /** Runs a memory tool (`memory_read`, `memory_write`, `memory_search`, `memory_propose_rule`); always resolves to text for the model, never rejects. */
  async runMemoryTool(name: string, input: unknown): Promise<string> {
    try {
      return await this.#native.runTool(String(name), input === undefined ? null : JSON.parse(JSON.stringify(input)))
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`
    }
  }
}
