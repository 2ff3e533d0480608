// The VS Code extension in a real VS Code (helpers.mjs says how): the
// universal package (no server inside) where no server is anywhere: the
// notification names what was tried and opens the setting.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { browser, installExtension, openFolder, project, shot, skip, startCodeServer, step, universal } from './helpers.mjs'

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
