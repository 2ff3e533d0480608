#!/usr/bin/env node
// node scripts/sizes.mjs: packed (.tgz) and unpacked sizes of the main
// package and of every npm/<platform>/ package that holds its binary, from
// `npm pack --dry-run --json`. Printed as a Markdown table.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const pack = (cwd) => JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0]
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`
const mb = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(2)} MiB` : kb(n))

console.log('| package | files | packed | unpacked | binary |')
console.log('| --- | ---: | ---: | ---: | ---: |')
const main = pack(root)
console.log(`| ${main.name} (main) | ${main.entryCount} | ${mb(main.size)} | ${mb(main.unpackedSize)} | - |`)
for (const dir of fs.readdirSync(path.join(root, 'npm')).sort()) {
  const cwd = path.join(root, 'npm', dir)
  const bin = fs.readdirSync(cwd).find((f) => f.endsWith('.node') || f.endsWith('.wasm'))
  if (!bin) {
    console.log(`| ${dir} | - | not built here | - | - |`)
    continue
  }
  const p = pack(cwd)
  console.log(`| ${p.name} | ${p.entryCount} | ${mb(p.size)} | ${mb(p.unpackedSize)} | ${mb(fs.statSync(path.join(cwd, bin)).size)} |`)
}
