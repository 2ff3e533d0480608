// The enforcement matrix, end to end: every agent (pinned, headless, against
// the fake model) x every way it writes a file (its file tools, and the
// shell forms: `>`, `>>`, `tee`, `cp` and `mv` targets, `sed -i`) x
// `enforce: block` / `enforce: warn`, and a forbidden command. With `block`
// no guarded file is written, no forbidden command runs, and the refusal
// (the rule's text) is what the model reads as each call's result; with
// `warn` everything runs and the rule's text reaches the model with each
// call. The hook-level matrix (every dialect's payloads, Cursor's included)
// is in crates/wave-rules/tests/enforce.rs.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { count, shDirective } from './fake-model.mjs'
import { agentHarness, waveRulesBinary } from './agents.mjs'
import { DRIVERS } from './drivers.mjs'

const GEN = 'Generated files are rebuilt by `npm run gen`.'
const DEPLOY = 'Production deploys go through CI.'
const REFUSED = "Refused by the project's rules"
const WARNED = "Allowed, with a warning from the project's rules"

const files = (mode) => ({
  '.wave/rules/gen.md': `---\npaths: gen/**\nenforce: ${mode}\n---\n${GEN}\n`,
  '.wave/rules/deploy.md': `---\ncommands: ["*deploy.sh --prod*"]\nenforce: ${mode}\n---\n${DEPLOY}\n`,
  'gen/edit.ts': 'export const edit = 1\n',
  'gen/sed.ts': 'export const sed = 1\n',
  'src/a.ts': 'export const a = 1\n',
  'src/move.ts': 'export const move = 1\n',
  'deploy.sh': 'touch deployed.marker\n',
})

/** The shell forms of a write, each to its own guarded file. */
const SHELL_FORMS = {
  'gen/redirect.ts': 'echo x > gen/redirect.ts',
  'gen/append.ts': 'echo x >> gen/append.ts',
  'gen/tee.ts': 'echo x | tee gen/tee.ts',
  'gen/cp.ts': 'cp src/a.ts gen/cp.ts',
  'gen/mv.ts': 'mv src/move.ts gen/mv.ts',
}

/**
 * Per agent: its file-tool writes (directives; `new` files it creates,
 * `edited` ones it changes) and the model it runs (Codex offers
 * `apply_patch` to gpt-5.5).
 */
const TOOL_WRITES = {
  claude: { script: 'WRITE:gen/write.ts READ:gen/edit.ts EDIT:gen/edit.ts', created: ['gen/write.ts'], edited: ['gen/edit.ts'] },
  codex: { script: 'PATCH:gen/patch.ts EDIT:gen/edit.ts', created: ['gen/patch.ts'], edited: ['gen/edit.ts'], model: 'gpt-5.5' },
  gemini: { script: 'WRITE:gen/write.ts EDIT:gen/edit.ts', created: ['gen/write.ts'], edited: ['gen/edit.ts'] },
  copilot: { script: 'WRITE:gen/write.ts EDIT:gen/edit.ts', created: ['gen/write.ts'], edited: ['gen/edit.ts'] },
  opencode: { script: 'WRITE:gen/write.ts READ:gen/edit.ts EDIT:gen/edit.ts', created: ['gen/write.ts'], edited: ['gen/edit.ts'] },
}

const h = agentHarness({ prefix: 'wave-enforce-', dump: 'enforce' })
let bin
before(async () => {
  if (Object.values(DRIVERS).every((d) => d.skip)) return
  bin = waveRulesBinary()
  await h.start()
})

for (const [key, driver] of Object.entries(DRIVERS)) {
  const writes = TOOL_WRITES[key]
  const script = [
    'MAIN-TASK',
    writes.script,
    ...Object.values(SHELL_FORMS).map(shDirective),
    shDirective("sed -i 's/1/2/' gen/sed.ts"),
    shDirective('sh deploy.sh --prod'),
  ].join(' ')
  const calls = writes.created.length + writes.edited.length + Object.keys(SHELL_FORMS).length + 2

  test(`${driver.name}: enforce: block refuses every write form to a guarded file and a forbidden command, and the model reads the rule as the reason`, { skip: driver.skip, timeout: 300_000 }, async () => {
    const p = driver.project(h, bin, `${key}-block`, files('block'), { model: writes.model })
    const t = await p.run(script)
    const at = (f) => path.join(p.work, f)
    for (const f of [...writes.created, ...Object.keys(SHELL_FORMS)]) assert.ok(!fs.existsSync(at(f)), `${f} was not written\n${t.stderr.slice(-2000)}`)
    assert.equal(fs.readFileSync(at('gen/edit.ts'), 'utf8'), 'export const edit = 1\n', 'the edit was refused')
    assert.equal(fs.readFileSync(at('gen/sed.ts'), 'utf8'), 'export const sed = 1\n', '`sed -i` was refused')
    assert.ok(fs.existsSync(at('src/move.ts')), 'the `mv` did not run')
    assert.ok(!fs.existsSync(at('deployed.marker')), 'the forbidden command did not run')
    const last = t.requests.at(-1).body
    assert.ok(t.requests.length >= calls, `every call was made: ${t.requests.length} requests\n${t.stderr.slice(-2000)}`)
    assert.equal(count(last, `${REFUSED}: writing gen/`), calls - 1, 'each refused write came back with the reason')
    assert.equal(count(last, `${REFUSED}: running \`sh deploy.sh --prod\``), 1, 'the refused command came back with the reason')
    assert.ok(count(last, GEN) >= calls - 1, 'the rule\'s text is the reason')
    assert.ok(count(last, DEPLOY) >= 1)
  })

  test(`${driver.name}: enforce: warn lets every write and the command run, and puts the rule in front of the model with each`, { skip: driver.skip, timeout: 300_000 }, async () => {
    const p = driver.project(h, bin, `${key}-warn`, files('warn'), { model: writes.model })
    const t = await p.run(script)
    const at = (f) => path.join(p.work, f)
    for (const f of [...writes.created, ...Object.keys(SHELL_FORMS)]) assert.ok(fs.existsSync(at(f)), `${f} was written\n${t.stderr.slice(-2000)}`)
    assert.notEqual(fs.readFileSync(at('gen/edit.ts'), 'utf8'), 'export const edit = 1\n', 'the edit ran')
    assert.equal(fs.readFileSync(at('gen/sed.ts'), 'utf8'), 'export const sed = 2\n', '`sed -i` ran')
    assert.ok(fs.existsSync(at('deployed.marker')), 'the command ran')
    const last = t.requests.at(-1).body
    assert.equal(count(last, REFUSED), 0, 'nothing was refused')
    assert.equal(count(last, `${WARNED} about writing gen/`), calls - 1, 'each write came back with the warning')
    assert.equal(count(last, `${WARNED} about running \`sh deploy.sh --prod\``), 1, 'the command came back with the warning')
    assert.ok(count(last, DEPLOY) >= 1)
  })
}
