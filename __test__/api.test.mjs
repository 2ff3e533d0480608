// The package's API and its tarball as a user meets them: the raw binding's
// named exports from ESM, a manager pointed at a directory that does not
// exist, engines that Node 24 satisfies, and a tarball with its LICENSE and
// no file that imports a package it does not declare.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { builtinModules, createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const require = createRequire(import.meta.url)

/** The runtime names index.d.ts declares (classes, functions, consts). */
function declaredRuntimeNames() {
  const dts = fs.readFileSync(path.join(root, 'index.d.ts'), 'utf8')
  return [...dts.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort()
}

test("ESM: import { RuleEngine } from 'wave-memory-rules/native' works, for every name index.d.ts declares", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-esm-'))
  try {
    const names = declaredRuntimeNames()
    assert.ok(names.includes('RuleEngine') && names.includes('runCli'), names.join(', '))
    // A module file inside the package resolves 'wave-memory-rules/native'
    // through the package's own exports, as a dependent's import does.
    const file = path.join(root, 'target', `esm-native-${process.pid}.mjs`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(
      file,
      `import { ${names.join(', ')} } from 'wave-memory-rules/native'\n` +
        `import * as all from 'wave-memory-rules/native'\n` +
        `console.log(JSON.stringify({ engine: typeof RuleEngine, cli: typeof runCli, names: Object.keys(all).filter((k) => k !== 'default' && k !== 'module.exports').sort() }))\n`,
    )
    try {
      const r = spawnSync(process.execPath, [file], { encoding: 'utf8', cwd: dir })
      assert.equal(r.status, 0, r.stderr)
      const out = JSON.parse(r.stdout)
      assert.equal(out.engine, 'function')
      assert.equal(out.cli, 'function')
      for (const n of names) assert.ok(out.names.includes(n), `named export ${n}`)
    } finally {
      fs.rmSync(file, { force: true })
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a manager whose workdir does not exist reports it as a diagnostic', async () => {
  const { RuleManager } = require('wave-memory-rules')
  const missing = path.join(os.tmpdir(), `wave-missing-${process.pid}`, 'nope')
  // The workdir as given (findRoot: false): a walk up from a missing folder
  // would end at whatever marks a project above the temp folder.
  const rules = new RuleManager({ workdir: missing, homeDir: path.join(os.tmpdir(), `wave-missing-home-${process.pid}`), findRoot: false })
  await rules.discoverRules()
  assert.equal(rules.getRules().length, 0)
  const d = rules.getDiagnostics().find((x) => x.severity === 'error')
  assert.ok(d, JSON.stringify(rules.getDiagnostics()))
  assert.match(d.message, /workdir does not exist/)
  assert.equal(d.filePath, missing)
})

test('engines admits Node 24 and the tests\' Node versions, and every platform package says the same', () => {
  const { node } = pkg.engines
  // Without a semver package: the ranges this package states.
  const ranges = node.split('||').map((r) => r.trim())
  const admits = (v) =>
    ranges.some((r) => {
      const [maj, min] = v.split('.').map(Number)
      const m = r.match(/^([\^>=]+)(\d+)\.(\d+)\.(\d+)$/)
      if (!m) return false
      const [, op, rmaj, rmin] = m
      if (op === '^') return maj === Number(rmaj) && min >= Number(rmin)
      if (op === '>=') return maj > Number(rmaj) || (maj === Number(rmaj) && min >= Number(rmin))
      return false
    })
  for (const v of ['20.19.0', '22.13.0', '24.0.0', '24.11.1', '25.2.0']) assert.ok(admits(v), `${v} is admitted by ${node}`)
  for (const v of ['18.20.0', '20.18.0', '22.12.0', '23.5.0']) assert.ok(!admits(v), `${v} is not admitted by ${node}`)
  for (const dir of fs.readdirSync(path.join(root, 'npm'))) {
    const sub = JSON.parse(fs.readFileSync(path.join(root, 'npm', dir, 'package.json'), 'utf8'))
    assert.equal(sub.engines.node, node, `npm/${dir}`)
  }
})

test('the tarball holds the LICENSE, and no shipped file imports a package the package does not declare', () => {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }))
  const files = info.files.map((f) => f.path)
  assert.ok(files.includes('LICENSE'), files.join(', '))
  assert.match(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'), new RegExp(`^${pkg.license} License`))
  const declared = new Set([
    pkg.name,
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
  ])
  const builtins = new Set(builtinModules)
  const undeclared = []
  for (const f of files.filter((f) => /\.(c|m)?js$/.test(f))) {
    const text = fs.readFileSync(path.join(root, f), 'utf8')
    const specs = [
      ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
      ...text.matchAll(/^\s*import\s[^'"]*?from\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1])
    for (const spec of specs) {
      if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtins.has(spec)) continue
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]
      // The generated loader tries every napi-rs platform package name in a try/catch.
      if (f === 'index.js' && name.startsWith(`${pkg.name}-`)) continue
      if (!declared.has(name) && !declared.has(spec)) undeclared.push(`${f}: ${spec}`)
    }
  }
  // The WASI loaders import the napi-rs runtime the wasm32 package declares.
  const wasi = JSON.parse(fs.readFileSync(path.join(root, 'npm/wasm32-wasi/package.json'), 'utf8'))
  const wasiDeps = new Set(Object.keys(wasi.dependencies ?? {}))
  const left = undeclared.filter((u) => {
    const [f, spec] = u.split(': ')
    return !(/wasi/.test(f) && [...wasiDeps].some((d) => spec === d || spec.startsWith(`${d}/`)))
  })
  assert.deepEqual(left, [])
  assert.ok(!files.some((f) => f.startsWith('dist/examples/')), 'no examples in the tarball')
})
