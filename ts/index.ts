/**
 * wave-memory-rules: the package entry. Re-exports the rule manager (a
 * drop-in for the agent SDK's `MemoryRuleManager`) and its types.
 */
export { MemoryRuleManager } from './manager'
export type { MemoryRuleManagerOptions, ActiveRulesSplit } from './manager'
export type { MemoryRule, RuleMetadata, Diagnostic } from '../index'
