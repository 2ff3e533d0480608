/**
 * wave-memory-rules: the package entry. The rule manager (a drop-in for the
 * agent SDK's `MemoryRuleManager`), and the glue that puts rules into the
 * SDK's prompts.
 */
// First: loads the engine, with a clear error when no binary fits this host.
export { bindingTarget, syncWorkingDir } from './binding'
export { MemoryRuleManager } from './manager'
export type { MemoryRuleManagerOptions, ActiveRulesSplit } from './manager'
export { contextFilesFromMessages, lastUserText, normalizeFile, FILE_KEYS, FILE_LIST_KEYS } from './context'
export type { ContextOptions } from './context'
export { renderRules, planRules, stableOrder, MANDATORY_HEADER, MANDATORY_FOOTER, RULES_HEADING } from './render'
export type { RenderOptions, RenderPlan } from './render'
export { RuleSession, reminderText, stickyLine, deliveredInTranscript } from './session'
export type { Reminder, DeliveryResult } from './session'
export { withMemoryRules } from './integrate'
export type { AIManagerLike, MessageManagerLike, WithMemoryRulesOptions, MemoryRulesHandle } from './integrate'
export { MemoryStore, memoryToolDefinitions } from './memory'
export type { MemoryScope, MemoryStoreOptions, MemoryToolDefinition } from './memory'
export type { MemoryRule, RuleMetadata, Diagnostic, TopicEntry } from '../index'
