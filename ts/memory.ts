/**
 * Memory topics for the agent: user memory (`~/.wave/memory/`) and project
 * memory (`~/.wave/projects/<hash>/memory/`), each an index `MEMORY.md` plus
 * one file per topic. The agent uses them through two tools; `loadForPrompt`
 * gives the text to put after the rules section.
 */
import { homedir } from 'node:os'
// Before '../index': loads the engine with the package's clear error (every entry and subpath).
import './binding'
import { NativeMemoryStore, memoryToolDefinitions as nativeDefinitions } from '../index'
import type { TopicEntry } from '../index'

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
  name: 'memory_read' | 'memory_write'
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

  constructor(options: MemoryStoreOptions = {}) {
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

  /** Runs `memory_read` / `memory_write`; always resolves to text for the model, never rejects. */
  async runMemoryTool(name: string, input: unknown): Promise<string> {
    try {
      return await this.#native.runTool(String(name), input === undefined ? null : JSON.parse(JSON.stringify(input)))
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`
    }
  }
}
