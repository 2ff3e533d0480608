// When no binary and no fallback can be loaded, every entry of the package
// (the main export, `/native`, the `wave-rules` bin) fails with one clear
// error: platform, architecture, libc on Linux, the packages tried and what
// to do. And the binding reports which artifact it loaded.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const require = createRequire(import.meta.url)
const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const pkg = require('../package.json')

test('the binding reports the artifact it loaded', () => {
  const { bindingTarget } = require('..')
  const forced = ['1', 'true', 'error'].includes(process.env.NAPI_RS_FORCE_WASI ?? '')
  assert.equal(bindingTarget, forced ? 'wasm32-wasi' : 'native')
  assert.equal(require('wave-memory-rules/native').__napiBindingTarget, bindingTarget)
})

test('no loadable binary: a clear error naming the host, the packages tried and the fix', (t) => {
  // The package as installed without its optional dependencies: no .node,
  // no .wasm, no node_modules anywhere above it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-noload-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const copy = path.join(dir, pkg.name)
  for (const f of ['package.json', 'index.js', 'dist', 'bin']) fs.cpSync(path.join(root, f), path.join(copy, f), { recursive: true })
  const env = { PATH: process.env.PATH, HOME: dir }
  const runs = [
    ['-e', `require(${JSON.stringify(copy)})`],
    ['-e', `require(${JSON.stringify(path.join(copy, 'dist/native.js'))})`],
    [path.join(copy, 'bin/wave-rules.js'), 'list'],
    ['-e', `require(${JSON.stringify(copy)})`, '--', 'wasi'],
  ]
  for (const args of runs) {
    const forceWasi = args.at(-1) === 'wasi'
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: forceWasi ? { ...env, NAPI_RS_FORCE_WASI: '1' } : env })
    assert.notEqual(r.status, 0, args.join(' '))
    const err = r.stderr
    assert.match(err, new RegExp(`could not load the engine on ${process.platform} ${process.arch}`))
    if (process.platform === 'linux') assert.match(err, /\((glibc [\d.]+|musl)\)/)
    assert.doesNotMatch(err, /npm has a bug/)
    // The packages tried: this host's own, and the WASI fallback.
    assert.match(err, new RegExp(`${pkg.name}-${process.platform}-${process.arch}`))
    assert.match(err, new RegExp(`${pkg.name}-wasm32-wasi`))
    // What to do.
    assert.match(err, /npm install/)
    assert.match(err, /optional dependencies/)
    assert.match(err, /NAPI_RS_FORCE_WASI=1/)
    // The loader's own reasons follow, for whoever needs them.
    assert.match(err, /Cannot find module/)
    if (args[0].endsWith('wave-rules.js')) {
      // The CLI: the message alone, the exit code for trouble.
      assert.equal(r.status, 2)
      assert.match(err, /^wave-rules: /)
      assert.doesNotMatch(err, /\n\s+at /)
    } else {
      assert.match(err, /ERR_WAVE_MEMORY_RULES_LOAD/)
    }
  }
})
