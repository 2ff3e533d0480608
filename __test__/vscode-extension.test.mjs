// The VS Code extension (vscode-extension/): which program it starts, and
// that it packages with @vscode/vsce (scripts/package-vscode.mjs, as
// `npm run package:vscode` runs it) into a .vsix holding the manifest, the
// README, the LICENSE and one bundled extension.js with the language client
// inside (nothing else, no node_modules).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const { serverCommand } = createRequire(import.meta.url)('../vscode-extension/server-command.js')

/** The entries of a zip file: name -> contents (stored or deflated). */
function unzip(file) {
  const buf = fs.readFileSync(file)
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  assert.ok(end >= 0, 'a zip file')
  const count = buf.readUInt16LE(end + 10)
  let at = buf.readUInt32LE(end + 16)
  const entries = new Map()
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
    at += 46 + nameLength + extra
  }
  return entries
}

test('the extension runs the setting, else the project node_modules/.bin/wave-rules, else PATH', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-vscode-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  assert.equal(serverCommand(dir, '/opt/wave-rules', 'linux'), '/opt/wave-rules')
  assert.equal(serverCommand(dir, '', 'linux'), 'wave-rules')
  const bin = path.join(dir, 'node_modules/.bin/wave-rules')
  fs.mkdirSync(path.dirname(bin), { recursive: true })
  fs.writeFileSync(bin, '#!/bin/sh\n')
  assert.equal(serverCommand(dir, '', 'linux'), bin)
  assert.equal(serverCommand(dir, '', 'win32'), 'wave-rules', 'Windows runs the .cmd shim')
})

test('the extension packages with vsce into a vsix with one bundled extension.js', { skip: process.env.NAPI_RS_FORCE_WASI === '1' && 'packaged once, on the native run' }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-vsix-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'wave-rules.vsix')
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/package-vscode.mjs'), '--out', out], { cwd: root, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const entries = unzip(out)
  assert.deepEqual([...entries.keys()].filter((n) => n.startsWith('extension/')).sort(), [
    'extension/LICENSE.txt',
    'extension/dist/extension.js',
    'extension/package.json',
    'extension/readme.md',
  ])
  const manifest = JSON.parse(entries.get('extension/package.json'))
  assert.equal(manifest.main, './dist/extension.js')
  const js = entries.get('extension/dist/extension.js').toString('utf8')
  assert.match(js, /require\("vscode"\)/, 'vscode is the editor\'s')
  assert.doesNotMatch(js, /require\("vscode-languageclient/, 'the client is bundled')
  assert.match(js, /node_modules", "\.bin"/, 'the project\'s own wave-rules first')
  assert.match(entries.get('extension.vsixmanifest').toString('utf8'), /Id="wave-rules"/)
})
