// `wave-rules validate --format sarif` against the SARIF 2.1.0 JSON schema
// (draft-04): the schema is vendored in __test__/fixtures/sarif-2.1.0-rtm.5.json,
// copied unchanged from the npm package @microsoft/jest-sarif 1.0.0-beta.0
// (lib/schemas/sarif-2.1.0-rtm.5.json, MIT, Microsoft's sarif-js-sdk: the
// OASIS SARIF 2.1.0 schema as schemastore publishes it), since tests have no
// network. Validated with ajv-draft-04 and ajv-formats.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import Ajv from 'ajv-draft-04'
import addFormats from 'ajv-formats'
import { corpus, tempTree } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const schema = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'fixtures/sarif-2.1.0-rtm.5.json'), 'utf8'))


function validator() {
  // unicodeRegExp off: the schema's `language` pattern has a stray `]` that only
  // a non-unicode RegExp accepts (as the schema's own tools read it).
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false })
  addFormats(ajv)
  return ajv.compile(schema)
}

function sarif(bin, args, cwd) {
  const r = spawnSync(bin, ['validate', '--format', 'sarif', ...args], { cwd, encoding: 'utf8', maxBuffer: 256 << 20 })
  assert.ok(r.status === 0 || r.status === 1, r.stderr)
  return JSON.parse(r.stdout)
}

test('validate --format sarif is a valid SARIF 2.1.0 log, with rules, regions and help', (t) => {
  const tree = tempTree()
  t.after(tree.cleanup)
  tree.project('ts.md', '---\npath: src/**/*.ts\n---\nStrict.\n')
  tree.project('empty.md', '---\npaths: src/**\n---\n')
  tree.write(path.join(tree.workdir, '.cursor/rules/ts.mdc'), '---\ndescription: TS\nglobs: "src/**/*.ts"\n---\nStrict.\n')
  tree.write(path.join(tree.workdir, 'Agents.md'), 'Be brief.\n')
  tree.user('ts.md', 'Mine.\n')
  const log = sarif(rustBin(), ['--sources', 'all', '--home', tree.homeDir], tree.workdir)
  const validate = validator()
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2))
  // The schema does refuse: another version, a region starting at line 0.
  assert.equal(validate({ ...log, version: '2.0.0' }), false)
  const bad = structuredClone(log)
  bad.runs[0].results.find((r) => r.ruleId === 'misspelled-key').locations[0].physicalLocation.region.startLine = 0
  assert.equal(validate(bad), false)
  const run = log.runs[0]
  const ids = run.tool.driver.rules.map((r) => r.id)
  for (const code of ['misspelled-key', 'quoted-glob', 'misplaced', 'empty-body']) assert.ok(ids.includes(code), ids.join(' '))
  for (const r of run.tool.driver.rules) assert.ok(r.help.text.length > 20, r.id)
  for (const result of run.results) assert.equal(run.tool.driver.rules[result.ruleIndex].id, result.ruleId)
  const misspelled = run.results.find((r) => r.ruleId === 'misspelled-key')
  assert.deepEqual(misspelled.locations[0].physicalLocation.region, { startLine: 2, startColumn: 1, endColumn: 5 })
})

test('validate --format sarif over every corpus file is a valid log', { skip: corpus().skip }, () => {
  const { dir } = corpus()
  const log = sarif(rustBin(), [path.join(dir, 'rules')], root)
  const validate = validator()
  assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5), null, 2))
  assert.ok(log.runs[0].results.length > 0, 'the corpus has diagnostics')
})
