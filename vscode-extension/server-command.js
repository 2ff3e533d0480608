// Which program the extension runs as `<program> lsp`, in this order:
//   1. the setting `waveRules.serverPath` (in Restricted Mode VS Code hands
//      over only the user's own value: the manifest lists the setting in
//      `restrictedConfigurations`);
//   2. the folder's node_modules/.bin/wave-rules (the version the project
//      pins) — only in a trusted folder: a cloned repository must not get
//      its own program run by opening it;
//   3. the binary bundled in the platform-specific .vsix (server/wave-rules);
//   4. `wave-rules` on PATH — only in a trusted folder.
// The first that answers `--version` is used. No `vscode` import: the tests
// call these functions directly.
const { execFile } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const INSTALL_COMMAND = 'npm install --save-dev wave-memory-rules'
const PROBE_TIMEOUT_MS = 5000

/** The programs to try, in order, each with where it comes from. */
function serverCandidates({ root, configured, trusted, extensionPath, platform = process.platform, env = process.env }) {
  const win = platform === 'win32'
  const list = [{ source: 'the setting waveRules.serverPath', command: configured || '' }]
  if (trusted) {
    const shim = path.join(root, 'node_modules', '.bin', win ? 'wave-rules.cmd' : 'wave-rules')
    list.push({ source: "the folder's node_modules/.bin", command: shim })
  }
  list.push({ source: 'the binary bundled with the extension', command: path.join(extensionPath, 'server', win ? 'wave-rules.exe' : 'wave-rules') })
  if (trusted) list.push({ source: 'PATH', command: onPath(env, platform) ?? '' })
  return list
}

/** `wave-rules` in the PATH's absolute folders, or null. */
function onPath(env, platform = process.platform) {
  const win = platform === 'win32'
  const names = win ? ['wave-rules.exe', 'wave-rules.cmd'] : ['wave-rules']
  const dirs = (env.PATH ?? env.Path ?? '').split(win ? ';' : ':')
  for (const dir of dirs.filter((d) => path.isAbsolute(d))) {
    for (const name of names) {
      const file = path.join(dir, name)
      if (isFile(file)) return file
    }
  }
  return null
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** `<command> --version`: the version line, or an Error saying why not. */
function probeVersion(command, cwd) {
  return new Promise((resolve) => {
    const shell = /\.(cmd|bat)$/i.test(command)
    execFile(command, ['--version'], { cwd, timeout: PROBE_TIMEOUT_MS, shell, windowsHide: true }, (err, stdout) => {
      if (err) resolve(new Error(err.killed ? `no answer to --version within ${PROBE_TIMEOUT_MS / 1000} s` : err.message.split('\n')[0]))
      else resolve(stdout.trim().split('\n')[0] || 'wave-rules (no version printed)')
    })
  })
}

/**
 * Tries the candidates in order. Returns { chosen, tried }: chosen is the
 * first candidate that answered `--version` (with its `version`), or null;
 * tried says, for each one, what happened (`outcome`).
 */
async function chooseServer(candidates, cwd, probe = probeVersion) {
  const tried = []
  for (const c of candidates) {
    if (!c.command) {
      tried.push({ ...c, outcome: c.source === 'PATH' ? 'not found' : 'not set' })
      continue
    }
    if (path.isAbsolute(c.command) && !isFile(c.command)) {
      const none = c.source.includes('bundled') ? 'none in this package' : 'not found'
      tried.push({ ...c, outcome: `${none} (${c.command})` })
      continue
    }
    makeExecutable(c)
    const version = await probe(c.command, cwd)
    if (version instanceof Error) {
      tried.push({ ...c, outcome: `failed: ${version.message}` })
      continue
    }
    const chosen = { ...c, version, outcome: `used: ${version}` }
    tried.push(chosen)
    return { chosen, tried }
  }
  return { chosen: null, tried }
}

/** Zip extraction may drop the bundled binary's executable bit: restore it. */
function makeExecutable(candidate) {
  if (process.platform === 'win32' || !candidate.source.includes('bundled')) return
  try {
    fs.accessSync(candidate.command, fs.constants.X_OK)
  } catch {
    try {
      fs.chmodSync(candidate.command, 0o755)
    } catch {
      // the probe then reports why it cannot run
    }
  }
}

/** One line per candidate, for the output channel and the notification. */
function describeTried(tried) {
  return tried.map((t) => `${t.source}: ${t.outcome}`)
}

module.exports = { INSTALL_COMMAND, serverCandidates, chooseServer, probeVersion, describeTried, onPath }
