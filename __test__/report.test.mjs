// `wave-rules report --out` opened in a real headless browser (Debian's
// Chromium driven by playwright-core; no browser download): on the corpus's
// real repository trees and on a generated one, the page makes no request,
// logs no error, shows the numbers of `report --json`, and the keyboard
// reaches every rule. The report is made through the npm bin (the addon's
// runCli), as `npx wave-rules report` makes it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { corpus, gitRoot } from './helpers.mjs'
import { makeTree } from '../bench/report-tree.mjs'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const bin = path.join(root, 'bin/wave-rules.js')
/** Tab presses at most to reach the next thing the test looks for. */
const MAX_TABS = 20

/**
 * The system's Chromium: `$CHROMIUM_PATH`, else Debian's. `skip` is the one
 * line a test is skipped with when there is none; with
 * `WAVE_BROWSER_REQUIRED=1` (CI, which installs it) an absent browser throws.
 */
function chromiumPath() {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p))
  if (found) return { path: found, skip: false }
  const why = 'no Chromium on this machine (Debian: apt-get install chromium; or set CHROMIUM_PATH)'
  if (process.env.WAVE_BROWSER_REQUIRED === '1') throw new Error(`${why}, and WAVE_BROWSER_REQUIRED=1`)
  return { skip: why }
}

function wave(cwd, args, env = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 256 << 20 })
  return { stdout: r.stdout, stderr: r.stderr, status: r.status }
}

/** Makes the report of `workdir` (page and JSON) and checks it in `browser`. */
async function checkReport(t, browser, { workdir, home, state, args = [] }) {
  const out = path.join(path.dirname(workdir), 'report.html')
  const env = { WAVE_RULES_STATE_DIR: state }
  const made = wave(workdir, ['report', '--out', out, '--home', home, ...args], env)
  assert.equal(made.status, 0, made.stderr)
  const json = wave(workdir, ['report', '--json', '--home', home, ...args], env)
  assert.equal(json.status, 0, json.stderr)
  const R = JSON.parse(json.stdout)
  const size = fs.statSync(out).size

  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  t.after(() => page.close())
  const url = pathToFileURL(out).href
  const requests = []
  const errors = []
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()) })
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()) })
  page.on('pageerror', (e) => errors.push(String(e)))
  await page.goto(url)
  await page.waitForSelector('html[data-ready="true"]', { timeout: 30_000 })

  const num = (s) => Number(String(s).replace(/[^0-9]/g, ''))
  // The totals.
  const cards = await page.$$eval('[data-total]', (els) => els.map((e) => [e.dataset.total, e.querySelector('.n').textContent]))
  const shown = Object.fromEntries(cards.map(([k, v]) => [k, num(v)]))
  for (const k of ['files', 'folders', 'rules', 'always_tokens', 'max_file_tokens', 'governed_files', 'problems']) {
    assert.equal(shown[k], R.totals[k], `card ${k}`)
  }
  assert.equal(shown.sessions, R.sessions.sessions.length)
  // Every rule's reach and tokens, in order.
  const rows = await page.$$eval('#rules-list [role="option"]', (els) => els.map((e) => ({ id: e.dataset.ruleId, reach: e.querySelector('.n-reach').textContent, tokens: e.querySelector('.n-tokens').textContent })))
  assert.deepEqual(rows.map((r) => r.id), R.rules.map((r) => r.id))
  rows.forEach((r, i) => {
    assert.equal(num(r.reach), R.rules[i].reach, `${r.id} reach`)
    assert.equal(num(r.tokens), R.rules[i].tokens, `${r.id} tokens`)
  })
  // The root folder's panel, the problems, each agent's summary.
  const folder = await page.$$eval('#folder [data-folder]', (els) => Object.fromEntries(els.map((e) => [e.dataset.folder, e.textContent])))
  assert.equal(num(folder.files), R.tree.files)
  assert.equal(num(folder.tokens), R.tree.tokens)
  assert.equal(num(folder.max), R.tree.max)
  assert.equal(num(folder.governed.split('(')[0]), R.tree.governed)
  assert.equal(await page.$$eval('#problems-table tbody tr', (els) => els.length), R.problems.length)
  const agents = await page.$$eval('tr[data-target]', (els) => els.map((e) => [e.dataset.target, ...[...e.children].slice(1).map((c) => c.textContent)]))
  assert.deepEqual(
    agents.map(([target, ...n]) => [target, ...n.map(num)]),
    R.agents.map((a) => [a.target, a.kept, a.lossy, a.skipped, a.native, a.always_tokens]),
  )
  assert.equal(await page.$$eval('tr[data-session]', (els) => els.length), R.sessions.sessions.length)

  // The keyboard, as a person uses it: Tab from the top to the "Rules" link,
  // Enter, Tab on to the rules list, then the arrows through every rule.
  if (R.rules.length) {
    await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0) })
    const tabTo = async (test) => {
      for (let tabs = 0; tabs < MAX_TABS; tabs++) {
        if (await page.evaluate(test)) return
        await page.keyboard.press('Tab')
      }
      assert.fail(`not reached in ${MAX_TABS} Tab presses: ${test}`)
    }
    await tabTo(() => document.activeElement?.getAttribute('href') === '#rules')
    await page.keyboard.press('Enter')
    await tabTo(() => document.activeElement?.closest('#rules-list') != null)
    const seen = new Set()
    for (let i = 0; i < R.rules.length; i++) {
      if (i) await page.keyboard.press('ArrowDown')
      seen.add(await page.evaluate(() => document.activeElement.dataset.ruleId))
    }
    assert.deepEqual([...seen].sort(), R.rules.map((r) => r.id).sort())
    const last = R.rules.length - 1
    assert.equal(await page.$eval('#rule h3', (e) => e.textContent), rows[last].id, 'the focused rule is shown')
    // And the map: Home selects the root, ArrowDown its first folder.
    await page.focus('#icicle')
    await page.keyboard.press('Home')
    if (R.tree.folders.length) {
      await page.keyboard.press('ArrowDown')
      assert.equal(await page.$eval('#folder h3', (e) => e.textContent), R.tree.folders[0].name + '/')
    }
  }
  assert.deepEqual(requests, [], 'the page made requests')
  assert.deepEqual(errors, [], 'the page logged errors')
  return { R, size, page }
}

/** The corpus's file list of `repo` as empty files, its rule files as they are. */
function materialize(corpusDir, repo, dir) {
  const list = fs.readFileSync(path.join(corpusDir, 'trees', `${repo.replace('/', '__')}.txt`), 'utf8').split('\n').filter(Boolean)
  for (const p of list) {
    fs.mkdirSync(path.join(dir, path.dirname(p)), { recursive: true })
    fs.writeFileSync(path.join(dir, p), '')
  }
  const manifest = fs.readFileSync(path.join(corpusDir, 'rules', 'MANIFEST.tsv'), 'utf8').split('\n').slice(1)
  for (const line of manifest) {
    const [system, r, rel] = line.split('\t')
    if (r !== repo) continue
    const src = path.join(corpusDir, 'rules', system, `${repo.replace('/', '__')}__${rel.replaceAll('/', '__')}`)
    fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true })
    fs.copyFileSync(src, path.join(dir, rel))
  }
  gitRoot(dir)
  return list.length
}

function temp(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-report-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const d of ['work', 'home', 'state']) fs.mkdirSync(path.join(dir, d))
  return { dir, workdir: path.join(dir, 'work'), home: path.join(dir, 'home'), state: path.join(dir, 'state') }
}

const chromium = chromiumPath()

async function launch(t) {
  const { chromium: driver } = await import('playwright-core')
  const browser = await driver.launch({ executablePath: chromium.path, headless: true, args: ['--no-sandbox'] })
  t.after(() => browser.close())
  return browser
}

test('the report of a generated tree opens in Chromium with the numbers of --json', { skip: chromium.skip, timeout: 300_000 }, async (t) => {
  const d = temp(t)
  makeTree(d.workdir, { files: 3000, rules: 60 })
  gitRoot(d.workdir)
  const browser = await launch(t)
  const { R, size } = await checkReport(t, browser, d)
  assert.equal(R.totals.files, 3000 + 60, 'the files (.gitignore among them) and the rules; dist/ is ignored')
  assert.ok(R.problems.some((p) => p.kind === 'no-match'), 'the generated legacy/ rules match nothing')
  assert.ok(size < 200_000, `${size} bytes`)
})

const { dir: corpusDir, skip: noCorpus } = corpus()
const TREES = ['rolldown/rolldown', 'Cratis/Chronicle', 'continuedev/continue', 'elie222/inbox-zero', 'netease-lcap/wave-agent', 'kynoptic/wikipedia-reliable-sources']

test('the report of every real tree of the corpus opens in Chromium with the numbers of --json', { skip: chromium.skip || noCorpus, timeout: 600_000 }, async (t) => {
  const browser = await launch(t)
  for (const repo of TREES) {
    const d = temp(t)
    const files = materialize(corpusDir, repo, d.workdir)
    const { R, size } = await checkReport(t, browser, { ...d, args: ['--sources', 'all'] })
    assert.ok(R.totals.files >= files, `${repo}: ${R.totals.files} files of ${files}`)
    assert.ok(R.rules.length > 0, `${repo}: its rules load`)
    t.diagnostic(`${repo}: ${R.totals.files} files, ${R.rules.length} rules, page ${size} bytes`)
  }
})
