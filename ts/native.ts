/**
 * `wave-memory-rules/native`: the raw binding (`RuleEngine`, `NativeMemoryStore`,
 * `runCli`, ...), loaded through ./binding so a failed load gets the
 * package's clear error.
 */
import { native } from './binding'
export = native
