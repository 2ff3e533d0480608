/**
 * Memory topics for the agent: user memory (`~/.wave/memory/`) and project
 * memory (`~/.wave/projects/<hash>/memory/`), each an index `MEMORY.md` plus
 * one file per topic. The agent uses them through two tools; `loadForPrompt`
 * gives the text to put after the rules section.
 */
import { homedir } from 'node:os'
// Before '../index': loads the engine with the package's clear error (every entry and subpath).
import './binding'
import { MemoryStore as NativeMemoryStore, memoryToolDefinitions as nativeDefinitions } from '../index'
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

  /** The index text; empty when the scope has no topics. */
  readIndex(scope: MemoryScope): string {
    return this.#native.readIndex(scope)
  }
  /** A topic's text; throws an error naming an unknown topic. */
  readTopic(scope: MemoryScope, topic: string): string {
    return this.#native.readTopic(scope, topic)
  }
  /** Appends (default) or replaces; returns the topic's file name. */
  writeTopic(scope: MemoryScope, topic: string, content: string, mode: 'append' | 'replace' = 'append'): string {
    return this.#native.writeTopic(scope, topic, content, mode)
  }
  listTopics(scope: MemoryScope): TopicEntry[] {
    return this.#native.listTopics(scope)
  }
  removeTopic(scope: MemoryScope, topic: string): void {
    this.#native.removeTopic(scope, topic)
  }
  clear(scope: MemoryScope): void {
    this.#native.clear(scope)
  }

  /** `## User Memory` (at most half) then `## Project Memory`, within `maxLines` (default 200). */
  loadForPrompt(options: { maxLines?: number } = {}): string {
    const max = options.maxLines ?? 200
    return this.#native.loadForPrompt(Number.isFinite(max) && max > 0 ? Math.floor(max) : 0)
  }

  /** Runs `memory_read` / `memory_write`; always resolves to text for the model, never throws. */
  runMemoryTool(name: string, input: unknown): string {
    try {
      return this.#native.runTool(String(name), input === undefined ? null : JSON.parse(JSON.stringify(input)))
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`
    }
  }
}
