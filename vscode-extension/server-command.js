// Which program the extension runs as `<program> lsp`: the setting
// `waveRules.serverPath` when set, else the project's own
// node_modules/.bin/wave-rules (the version the project pins), else
// `wave-rules` on PATH. No `vscode` import: the tests call it directly.
const fs = require('node:fs')
const path = require('node:path')

function serverCommand(root, configured, platform = process.platform, exists = fs.existsSync) {
  if (configured) return configured
  const bin = path.join(root, 'node_modules', '.bin', platform === 'win32' ? 'wave-rules.cmd' : 'wave-rules')
  if (exists(bin)) return bin
  return 'wave-rules'
}

module.exports = { serverCommand }
