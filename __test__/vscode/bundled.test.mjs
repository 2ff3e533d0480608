// The VS Code extension in a real VS Code (helpers.mjs says how): the
// platform package, its bundled server, in a trusted folder with nothing but a
// broken rule (diagnostic, quick fix, hover, the output channel) and in
// Restricted Mode (the folder's own node_modules/.bin/wave-rules never runs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { browser, installExtension, openFolder, problems, project, runCommand, shot, shots, skip, startCodeServer, step, vsix } from './helpers.mjs'

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
      // Ctrl+. opens the code actions; pressed again, at most 3 times, when
      // the server's actions were not in yet.
      const fix = page.locator('.action-widget').getByText(/paths/).first()
      for (let i = 0; i < 3 && !(await fix.isVisible()); i++) {
        await page.keyboard.press('Control+.')
        await fix.waitFor({ timeout: 10_000 }).catch(() => {})
      }
      await fix.click()
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

