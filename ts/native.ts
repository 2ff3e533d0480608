/**
 * `wave-memory-rules/native`: the raw binding (`RuleEngine`, `NativeMemoryStore`,
 * `runCli`, ...), loaded through ./binding so a failed load gets the
 * package's clear error.
 *
 * Each export is named one by one (not `export = native`): Node finds the
 * named exports of a CommonJS module for `import { RuleEngine } from
 * 'wave-memory-rules/native'` only in `exports.NAME = ...` assignments.
 * __test__/api.test.mjs checks this list against index.d.ts.
 */
import { native } from './binding'
import type * as Binding from '../index'

export const __napiBindingTarget: typeof Binding.__napiBindingTarget = native.__napiBindingTarget
export const Answer: typeof Binding.Answer = native.Answer
export const checkToolCall: typeof Binding.checkToolCall = native.checkToolCall
export const Conversations: typeof Binding.Conversations = native.Conversations
export const NativeMemoryStore: typeof Binding.NativeMemoryStore = native.NativeMemoryStore
export const JsMemoryStore = (native as unknown as { JsMemoryStore: typeof Binding.NativeMemoryStore }).JsMemoryStore
export const RuleEngine: typeof Binding.RuleEngine = native.RuleEngine
export const RuleTexts: typeof Binding.RuleTexts = native.RuleTexts
export const chosenSources: typeof Binding.chosenSources = native.chosenSources
export const defaultSources: typeof Binding.defaultSources = native.defaultSources
export const eventMayMatter: typeof Binding.eventMayMatter = native.eventMayMatter
export const flushTelemetry: typeof Binding.flushTelemetry = native.flushTelemetry
export const memoryToolDefinitions: typeof Binding.memoryToolDefinitions = native.memoryToolDefinitions
export const nativePlanRules: typeof Binding.nativePlanRules = native.nativePlanRules
export const projectRoot: typeof Binding.projectRoot = native.projectRoot
export const readRuleToolDefinition: typeof Binding.readRuleToolDefinition = native.readRuleToolDefinition
export const reminderIds: typeof Binding.reminderIds = native.reminderIds
export const reminderText: typeof Binding.reminderText = native.reminderText
export const renderHeadings: typeof Binding.renderHeadings = native.renderHeadings
export const runCli: typeof Binding.runCli = native.runCli
export const runCliAsync: typeof Binding.runCliAsync = native.runCliAsync
export const setWorkingDir: typeof Binding.setWorkingDir = native.setWorkingDir
export const sourceNames: typeof Binding.sourceNames = native.sourceNames
export const stickyLine: typeof Binding.stickyLine = native.stickyLine
export const toolInputKeys: typeof Binding.toolInputKeys = native.toolInputKeys
export const touchedFiles: typeof Binding.touchedFiles = native.touchedFiles
