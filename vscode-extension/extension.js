// The VS Code extension: starts `wave-rules lsp` for the first workspace
// folder (in that folder, so the server finds the project's rules) and
// hands it the rule files. Which program: server-command.js (the setting,
// the folder's node_modules/.bin, the bundled binary, PATH; only the first
// and third in Restricted Mode). The output channel "wave-rules" says which
// was used and its version; when none can be started, a notification says
// what was tried and offers the setting and the install command, and the
// extension stays active (nothing throws out of activate). Bundled with
// vscode-languageclient into dist/extension.js by scripts/package-vscode.mjs.
const vscode = require('vscode')
const { LanguageClient } = require('vscode-languageclient/node')
const { INSTALL_COMMAND, serverCandidates, chooseServer, describeTried } = require('./server-command.js')

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
let output
let extensionPath

async function activate(context) {
  extensionPath = context.extensionPath
  // A log channel: the language client writes its own lines with levels into it.
  output = vscode.window.createOutputChannel('wave-rules', { log: true })
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('waveRules.restartServer', () => restart()),
    vscode.commands.registerCommand('waveRules.showOutput', () => output.show()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart('the folder is trusted now')),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('waveRules.serverPath')) restart('waveRules.serverPath changed')
    }),
  )
  await start()
}

async function restart(why) {
  if (why) output.appendLine(`restarting: ${why}`)
  await stop()
  await start()
}

/** Starts the server; every failure ends in the output channel, none throws. */
async function start() {
  try {
    const folder = vscode.workspace.workspaceFolders?.[0]
    if (!folder) return
    const root = folder.uri.fsPath
    const trusted = vscode.workspace.isTrusted
    if (!trusted) {
      output.appendLine("Restricted Mode: the folder's node_modules/.bin/wave-rules, PATH and a workspace-level waveRules.serverPath are not used; only the bundled binary (or your user setting) runs")
    }
    const configured = vscode.workspace.getConfiguration('waveRules').get('serverPath')
    const candidates = serverCandidates({ root, configured, trusted, extensionPath })
    const { chosen, tried } = await chooseServer(candidates, root)
    for (const line of describeTried(tried)) output.appendLine(`  ${line}`)
    if (!chosen) return notFound(tried, trusted)
    output.appendLine(`wave-rules: using ${chosen.source}: ${chosen.command} (${chosen.version})`)
    client = new LanguageClient(
      'waveRules',
      'wave-rules',
      { command: chosen.command, args: ['lsp'], options: { cwd: root, shell: /\.(cmd|bat)$/i.test(chosen.command) } },
      { documentSelector: DOCUMENTS, outputChannel: output },
    )
    await client.start()
  } catch (err) {
    output.appendLine(`wave-rules: the server did not start: ${err?.message ?? err}`)
    client = undefined
    offerHelp(`wave-rules: the language server did not start (${err?.message ?? err}).`)
  }
}

async function stop() {
  const running = client
  client = undefined
  try {
    await running?.stop()
  } catch (err) {
    output.appendLine(`wave-rules: stopping the server: ${err?.message ?? err}`)
  }
}

function notFound(tried, trusted) {
  const names = tried.map((t) => `${t.source} (${t.outcome.replace(/ \(.*\)$/, '')})`).join('; ')
  const restricted = trusted ? '' : ' In Restricted Mode only the bundled binary or your user setting runs.'
  output.appendLine('wave-rules: no language server could be started')
  offerHelp(`wave-rules: no language server could be started. Tried ${names}.${restricted} Install it in the project (${INSTALL_COMMAND}) or set waveRules.serverPath.`)
}

/** The notification: open the setting, copy the install command, or the log. */
async function offerHelp(message) {
  const OPEN = 'Open Setting'
  const COPY = 'Copy Install Command'
  const LOG = 'Show Output'
  const choice = await vscode.window.showWarningMessage(message, OPEN, COPY, LOG)
  if (choice === OPEN) await openSetting()
  if (choice === COPY) {
    await vscode.env.clipboard.writeText(INSTALL_COMMAND)
    vscode.window.showInformationMessage(`Copied: ${INSTALL_COMMAND}`)
  }
  if (choice === LOG) output.show()
}

/**
 * The settings editor on waveRules.serverPath. In a remote window (Remote
 * SSH, WSL, code-server) the setting is the remote machine's: its User tab
 * does not list machine-scoped settings, the Remote tab does.
 */
function openSetting() {
  const query = 'waveRules.serverPath'
  if (vscode.env.remoteName) return vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query })
  return vscode.commands.executeCommand('workbench.action.openSettings', query)
}

function deactivate() {
  return stop()
}

module.exports = { activate, deactivate }
