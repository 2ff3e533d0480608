/**
 * wave-memory-rules: the package entry. The rule manager, and the pure pieces
 * any integration is made of: files and prompt from a conversation (read
 * incrementally), the rules' prompt text, and the reminder-mode session. The
 * agent SDK drop-in is `wave-memory-rules/wave-agent`; the Vercel AI SDK
 * middleware is `wave-memory-rules/ai-sdk`; the OpenAI Agents SDK input
 * filter is `wave-memory-rules/openai-agents`.
 */
// First: loads the engine, with a clear error when no binary fits this host.
export { bindingTarget, syncWorkingDir } from './binding'
export { RuleManager, defaultSources, readRuleToolDefinition, projectRoot, sourceNames } from './manager'
export type { RuleManagerOptions, ActiveRulesSplit, ActiveRulesOptions, SourceName, FormatName, ReadRuleToolDefinition } from './manager'
export { contextFilesFromMessages, filesOfMessage, lastUserText, userText, normalizeFile, FILE_KEYS, FILE_LIST_KEYS } from './context'
export { ConversationReader, fingerprint } from './conversation'
export type { ConversationUpdate } from './conversation'
export type { ContextOptions } from './context'
export { renderRules, planRules, MANDATORY_HEADER, MANDATORY_FOOTER, RULES_HEADING } from './session'
export type { RenderOptions, RenderPlan } from './session'
export { RuleSession, reminderText, stickyLine, deliveredInTranscript } from './session'
export type { Reminder, DeliveryResult } from './session'
export { RuleInjector, withReminders } from './inject'
export type { RuleInjectorOptions, Injection, PlacedReminder } from './inject'
export { memoryRulesMiddleware, guardTools } from './ai-sdk'
export type { MemoryRulesMiddleware, MemoryRulesMiddlewareOptions } from './ai-sdk'
export { memoryRulesInputFilter, ruleGuardrail } from './openai-agents'
export { ToolGuard, ToolRefusedError } from './guard'
export type { ToolGuardOptions } from './guard'
export type { MemoryRulesInputFilter, MemoryRulesInputFilterOptions } from './openai-agents'
export { MemoryStore, memoryToolDefinitions } from './memory'
export type { EntryMoved, MemoryFinding, MemoryHit, MemoryScope, MemoryStoreOptions, MemoryToolDefinition, NoteInput, WriteAnswer } from './memory'
export type { MemoryRule, RuleMetadata, RuleSource, Diagnostic, TopicEntry, ProjectRootInfo } from '../index'
