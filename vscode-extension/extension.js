// The VS Code extension: starts `wave-rules lsp` for the first workspace
// folder (in that folder, so the server finds the project's rules) and
// hands it the rule files. Bundled with vscode-languageclient into
// dist/extension.js by scripts/package-vscode.mjs.
const vscode = require('vscode')
const { LanguageClient } = require('vscode-languageclient/node')
const { serverCommand } = require('./server-command.js')

/** The files the server reads: every rule format, the evals and the config. */
const DOCUMENTS = [
  '**/.wave/rules/**/*.md',
  '**/.claude/rules/**/*.md',
  '**/.claude/rules.{yaml,yml}',
  '**/{CLAUDE,CLAUDE.local,AGENTS,AGENT,GEMINI}.md',
  '**/.cursor/rules/**/*.mdc',
  '**/.cursorrules',
  '**/.github/copilot-instructions.md',
  '**/*.instructions.md',
  '**/.windsurf/rules/**/*.md',
  '**/.windsurfrules',
  '**/.kiro/steering/**/*.md',
  '**/.clinerules{,/**/*}',
  '**/.continue/rules/**/*.md',
  '**/rules.{yaml,yml}',
  '**/.wave/evals/*.{yaml,yml}',
  '**/.wave/config.toml',
].map((pattern) => ({ scheme: 'file', pattern }))

let client

async function activate() {
  const folder = vscode.workspace.workspaceFolders?.[0]
  if (!folder) return
  const root = folder.uri.fsPath
  const configured = vscode.workspace.getConfiguration('waveRules').get('serverPath')
  const command = serverCommand(root, configured)
  client = new LanguageClient(
    'waveRules',
    'wave-rules',
    { command, args: ['lsp'], options: { cwd: root } },
    { documentSelector: DOCUMENTS },
  )
  await client.start()
}

function deactivate() {
  return client?.stop()
}

module.exports = { activate, deactivate }
