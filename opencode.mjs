// `wave-memory-rules/opencode`: the opencode plugin module. opencode calls
// every export of a plugin module as a plugin, so this exports only the
// plugin function (the implementation is ts/opencode.ts, in dist/).
import opencode from './dist/opencode.js'

export const WaveMemoryRules = opencode.WaveMemoryRules
