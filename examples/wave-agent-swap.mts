/**
 * The agent SDK's `MemoryRuleManager` file, replaced by one line, and the
 * SDK's own uses of it, type-checked (`tsc -p examples`, part of the build)
 * against the SDK's shapes: its container, its `MemoryRule`, its calls.
 */
export { MemoryRuleManager } from 'wave-memory-rules/wave-agent'
import { MemoryRuleManager } from 'wave-memory-rules/wave-agent'

/** The SDK's `MemoryRule` (types/memoryRule.ts). */
interface SdkMemoryRule {
  id: string
  content: string
  metadata: { paths?: string[]; priority?: number }
  source: 'project' | 'user'
  filePath: string
}

/** What the SDK's MessageManager and agent call on the manager. */
interface SdkMemoryRuleManager {
  discoverRules(): Promise<void>
  getActiveRules(filesInContext: string[]): SdkMemoryRule[]
  getActiveRulesSplit(filesInContext: string[]): { unconditional: SdkMemoryRule[]; conditional: SdkMemoryRule[] }
  reload(): Promise<void>
}

/** The SDK's container, as far as construction goes. */
class Container {
  readonly #services = new Map<string, unknown>()
  register(name: string, service: unknown): void {
    this.#services.set(name, service)
  }
  has(name: string): boolean {
    return this.#services.has(name)
  }
  get<T>(name: string): T {
    return this.#services.get(name) as T
  }
}

export function construct(workdir: string): SdkMemoryRuleManager {
  const container = new Container()
  const manager: SdkMemoryRuleManager = new MemoryRuleManager(container, { workdir })
  container.register('MemoryRuleManager', manager)
  return manager
}
