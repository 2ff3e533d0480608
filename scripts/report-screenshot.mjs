// docs/report.png: the screenshot in docs/report.md, made again. The report
// of a generated project (bench/report-tree.mjs: 1,500 files, 40 rules) in
// Debian's Chromium driven by playwright-core (no browser download), the
// map coloured by coverage with packages/ selected.
//
//   node scripts/report-screenshot.mjs [wave-rules binary] [out.png]
//
// The binary defaults to target/release/wave-rules (cargo build --release -p
// wave-rules); the browser to $CHROMIUM_PATH, else /usr/bin/chromium.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { makeTree } from '../bench/report-tree.mjs'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const bin = path.resolve(process.argv[2] ?? path.join(root, 'target/release/wave-rules'))
const out = path.resolve(process.argv[3] ?? path.join(root, 'docs/report.png'))
const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p))
if (!fs.existsSync(bin)) throw new Error(`no ${bin}: cargo build --release -p wave-rules, or name the binary`)
if (!chromium) throw new Error('no Chromium (Debian: apt-get install chromium; or set CHROMIUM_PATH)')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-report-shot-'))
try {
  const work = path.join(dir, 'acme-monorepo')
  const home = path.join(dir, 'home')
  fs.mkdirSync(path.join(work, '.git'), { recursive: true })
  fs.mkdirSync(home)
  makeTree(work, { files: 1500, rules: 40 })
  const page = path.join(dir, 'report.html')
  const r = spawnSync(bin, ['report', '--out', page, '--home', home], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, WAVE_RULES_STATE_DIR: path.join(dir, 'state') },
  })
  if (r.status !== 0) throw new Error(`report failed: ${r.stderr}`)

  const { chromium: driver } = await import('playwright-core')
  const browser = await driver.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox'] })
  try {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await tab.goto(pathToFileURL(page).href)
    await tab.waitForSelector('html[data-ready="true"]', { timeout: 30_000 })
    // Select the first folder of the map with the keyboard, as a person would.
    await tab.focus('#icicle')
    await tab.keyboard.press('Home')
    await tab.keyboard.press('ArrowDown')
    for (let i = 0; i < 10 && (await tab.$eval('#folder h3', (e) => e.textContent)) !== 'packages/'; i++) await tab.keyboard.press('ArrowRight')
    await tab.evaluate(() => window.scrollTo(0, 0))
    await tab.screenshot({ path: out })
  } finally {
    await browser.close()
  }
  console.log(`${path.relative(process.cwd(), out)}: ${fs.statSync(out).size} bytes (page ${fs.statSync(page).size} bytes)`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
