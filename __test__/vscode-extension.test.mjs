// The VS Code extension (vscode-extension/): which program it starts (the
// order, Restricted Mode, what it says when none runs), and that it packages
// with @vscode/vsce (scripts/package-vscode.mjs, as `npm run package:vscode`
// runs it) into a .vsix holding the manifest, README, CHANGELOG, icon,
// LICENSE, one bundled extension.js with the language client inside and, in
// a platform package, the wave-rules binary (nothing else, no node_modules).
// The extension inside a real VS Code: __test__/vscode/ (bundled.test.mjs, no-server.test.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const { INSTALL_COMMAND, serverCandidates, chooseServer, describeTried, onPath } = createRequire(import.meta.url)('../vscode-extension/server-command.js')

/** The entries of a zip file: name -> contents (stored or deflated). */
function unzip(file) {
  const buf = fs.readFileSync(file)
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  assert.ok(end >= 0, 'a zip file')
  const count = buf.readUInt16LE(end + 10)
  let at = buf.readUInt32LE(end + 16)
  const entries = new Map()
  entries.modes = new Map()
  for (let i = 0; i < count; i++) {
    const method = buf.readUInt16LE(at + 10)
    const size = buf.readUInt32LE(at + 20)
    const nameLength = buf.readUInt16LE(at + 28)
    const extra = buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32)
    const local = buf.readUInt32LE(at + 42)
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength)
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28)
    const data = buf.subarray(start, start + size)
    entries.set(name, method === 8 ? zlib.inflateRawSync(data) : data)
    entries.modes.set(name, buf.readUInt32LE(at + 38) >>> 16)
    at += 46 + nameLength + extra
  }
  return entries
}

/** A program answering `--version` as wave-rules does; it leaves `ran` behind when run. */
function fakeServer(file, version) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `#!/bin/sh\ntouch "${file}.ran"\necho "wave-rules ${version}"\n`, { mode: 0o755 })
  return file
}

function tempDir(t, prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('the extension tries the setting, the folder node_modules/.bin, the bundled binary, then PATH', (t) => {
  const dir = tempDir(t, 'wave-rules-vscode-')
  const env = { PATH: `.:relative/bin:${path.join(dir, 'path-bin')}` }
  fakeServer(path.join(dir, 'path-bin/wave-rules'), '0.0.1')
  const trusted = serverCandidates({ root: path.join(dir, 'project'), configured: '/opt/wave-rules', trusted: true, extensionPath: path.join(dir, 'ext'), platform: 'linux', env })
  assert.deepEqual(trusted.map((c) => [c.source, c.command]), [
    ['the setting waveRules.serverPath', '/opt/wave-rules'],
    ["the folder's node_modules/.bin", path.join(dir, 'project/node_modules/.bin/wave-rules')],
    ['the binary bundled with the extension', path.join(dir, 'ext/server/wave-rules')],
    ['PATH', path.join(dir, 'path-bin/wave-rules')],
  ])
  const win = serverCandidates({ root: 'C:\\p', configured: '', trusted: true, extensionPath: 'C:\\ext', platform: 'win32', env: {} })
  assert.match(win[1].command, /wave-rules\.cmd$/, 'Windows runs the npm .cmd shim')
  assert.match(win[2].command, /wave-rules\.exe$/)
  assert.equal(onPath({ PATH: '.:relative/bin' }, 'linux'), null, 'relative PATH entries (the folder itself) are never searched')
})

test('in Restricted Mode only the setting (the user value) and the bundled binary are candidates', () => {
  const untrusted = serverCandidates({ root: '/repo', configured: '', trusted: false, extensionPath: '/ext', platform: 'linux', env: { PATH: '/usr/bin' } })
  assert.deepEqual(untrusted.map((c) => c.source), ['the setting waveRules.serverPath', 'the binary bundled with the extension'])
})

test('the first candidate that answers --version is used, and each one tried says what happened', async (t) => {
  const dir = tempDir(t, 'wave-rules-choose-')
  const root = path.join(dir, 'project')
  const ext = path.join(dir, 'ext')
  fs.mkdirSync(root)
  const broken = path.join(dir, 'broken')
  fs.writeFileSync(broken, '#!/bin/sh\nexit 3\n', { mode: 0o755 })
  fakeServer(path.join(ext, 'server/wave-rules'), '0.1.0')
  const env = { PATH: '' }
  let r = await chooseServer(serverCandidates({ root, configured: broken, trusted: true, extensionPath: ext, platform: 'linux', env }), root)
  assert.equal(r.chosen.source, 'the binary bundled with the extension')
  assert.equal(r.chosen.version, 'wave-rules 0.1.0')
  assert.deepEqual(describeTried(r.tried).map((l) => l.replace(/\(.*\)/, '(…)').replace(/failed: .*/, 'failed')), [
    'the setting waveRules.serverPath: failed',
    "the folder's node_modules/.bin: not found (…)",
    'the binary bundled with the extension: used: wave-rules 0.1.0',
  ])
  fakeServer(path.join(root, 'node_modules/.bin/wave-rules'), '0.0.9')
  r = await chooseServer(serverCandidates({ root, configured: '', trusted: true, extensionPath: ext, platform: 'linux', env }), root)
  assert.equal(r.chosen.version, 'wave-rules 0.0.9', "the project's pinned version before the bundled one")
  fs.rmSync(path.join(root, 'node_modules/.bin/wave-rules.ran'))
  r = await chooseServer(serverCandidates({ root, configured: '', trusted: false, extensionPath: ext, platform: 'linux', env }), root)
  assert.equal(r.chosen.version, 'wave-rules 0.1.0')
  assert.ok(!fs.existsSync(path.join(root, 'node_modules/.bin/wave-rules.ran')), "an untrusted folder's program never runs")
})

test('with no server anywhere nothing is chosen and every place tried is named', async (t) => {
  const dir = tempDir(t, 'wave-rules-none-')
  const r = await chooseServer(serverCandidates({ root: dir, configured: '', trusted: true, extensionPath: path.join(dir, 'ext'), platform: 'linux', env: { PATH: '/nonexistent' } }), dir)
  assert.equal(r.chosen, null)
  assert.deepEqual(describeTried(r.tried).map((l) => l.replace(/ \(.*\)$/, '')), [
    'the setting waveRules.serverPath: not set',
    "the folder's node_modules/.bin: not found",
    'the binary bundled with the extension: none in this package',
    'PATH: not found',
  ])
  assert.match(INSTALL_COMMAND, /^npm install --save-dev wave-memory-rules$/)
})

/** Packages with scripts/package-vscode.mjs; returns the .vsix's entries and modes. */
function pack(dir, args) {
  const out = path.join(dir, 'out.vsix')
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/package-vscode.mjs'), ...args, '--out', out], { cwd: root, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  return unzip(out)
}

const WASI = process.env.NAPI_RS_FORCE_WASI === '1' && 'packaged once, on the native run'
const SHIPPED = ['extension/LICENSE.txt', 'extension/changelog.md', 'extension/dist/extension.js', 'extension/icon.png', 'extension/package.json', 'extension/readme.md']

test('the universal extension packages with vsce into a vsix with one bundled extension.js and no binary', { skip: WASI }, (t) => {
  const entries = pack(tempDir(t, 'wave-rules-vsix-'), ['--universal'])
  assert.deepEqual([...entries.keys()].filter((n) => n.startsWith('extension/')).sort(), SHIPPED)
  const manifest = JSON.parse(entries.get('extension/package.json'))
  assert.equal(manifest.main, './dist/extension.js')
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, ['waveRules.serverPath'])
  assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited')
  const js = entries.get('extension/dist/extension.js').toString('utf8')
  assert.match(js, /require\("vscode"\)/, 'vscode is the editor\'s')
  assert.doesNotMatch(js, /require\("vscode-languageclient/, 'the client is bundled')
  assert.match(js, /node_modules", ?"\.bin"/, 'the project\'s own wave-rules first')
  const vsixManifest = entries.get('extension.vsixmanifest').toString('utf8')
  assert.match(vsixManifest, /Id="wave-rules"/)
  assert.doesNotMatch(vsixManifest, /TargetPlatform=/)
  assert.equal(entries.get('extension/icon.png').subarray(1, 4).toString(), 'PNG')
})

test('a platform extension carries its wave-rules binary, executable, and names its target', { skip: WASI }, (t) => {
  const dir = tempDir(t, 'wave-rules-vsix-')
  const binary = fakeServer(path.join(dir, 'bin/wave-rules'), '0.1.0')
  const entries = pack(dir, ['--target', 'alpine-arm64', '--binary', binary])
  assert.deepEqual([...entries.keys()].filter((n) => n.startsWith('extension/')).sort(), [...SHIPPED, 'extension/server/wave-rules'].sort())
  assert.equal(entries.get('extension/server/wave-rules').toString(), fs.readFileSync(binary, 'utf8'))
  assert.equal(entries.modes.get('extension/server/wave-rules') & 0o111, 0o111, 'the binary is executable in the zip')
  assert.match(entries.get('extension.vsixmanifest').toString('utf8'), /TargetPlatform="alpine-arm64"/)
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/package-vscode.mjs'), '--target', 'beos-x64'], { cwd: root, encoding: 'utf8' })
  assert.notEqual(r.status, 0)
  assert.match(r.stderr, /unknown target beos-x64; one of linux-x64, /)
})
