#!/usr/bin/env node
// node scripts/check-glibc.mjs [FILE.node ...]
//
// The Linux gnu binaries must load on glibc 2.17 (RHEL 7, Amazon Linux 2,
// Debian 8 and later): no symbol they import may need a newer GLIBC_x.y.
// Reads the dynamic symbol table with `objdump -T` (binutils; for an arm64
// binary too, the version tags are in the ELF whatever the machine) and
// exits 1 naming the symbols above the floor. Without arguments, checks every
// npm/linux-*-gnu/*.node there is, and fails when there is none.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const GLIBC_FLOOR = [2, 17]

const cmp = (a, b) => a[0] - b[0] || a[1] - b[1]

/** Every `GLIBC_x.y[.z]` a binary's dynamic symbols need, with the symbols. */
export function glibcNeeds(file) {
  const text = execFileSync('objdump', ['-T', file], { encoding: 'utf8', maxBuffer: 64 << 20 })
  const needs = new Map()
  for (const line of text.split('\n')) {
    const m = /\bGLIBC_(\d+)\.(\d+)(?:\.\d+)?\)?\s+(\S+)\s*$/.exec(line)
    if (!m) continue
    const key = `${m[1]}.${m[2]}`
    if (!needs.has(key)) needs.set(key, [])
    needs.get(key).push(m[3])
  }
  return needs
}

/** The highest GLIBC version needed and the symbols above `floor`. */
export function checkGlibc(file, floor = GLIBC_FLOOR) {
  const needs = glibcNeeds(file)
  const versions = [...needs.keys()].map((v) => v.split('.').map(Number)).sort(cmp)
  const max = versions.at(-1)
  const over = versions.filter((v) => cmp(v, floor) > 0).flatMap((v) => needs.get(v.join('.')).map((s) => `${s}@GLIBC_${v.join('.')}`))
  return { file, max: max ? max.join('.') : 'none', over }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
  let files = process.argv.slice(2)
  if (files.length === 0) {
    const npm = path.join(root, 'npm')
    for (const dir of fs.readdirSync(npm).filter((d) => /^linux-.*-gnu$/.test(d)).sort()) {
      for (const f of fs.readdirSync(path.join(npm, dir))) if (f.endsWith('.node')) files.push(path.join(npm, dir, f))
    }
    if (files.length === 0) {
      console.error('check-glibc: no npm/linux-*-gnu/*.node to check (run `npm run build:targets` first)')
      process.exit(1)
    }
  }
  let failed = false
  for (const file of files) {
    const r = checkGlibc(file)
    const floor = GLIBC_FLOOR.join('.')
    if (r.over.length) {
      failed = true
      console.log(`FAIL ${path.relative(root, file)}: needs GLIBC ${r.max} > ${floor}: ${r.over.join(', ')}`)
    } else {
      console.log(`ok   ${path.relative(root, file)}: max GLIBC ${r.max} <= ${floor}`)
    }
  }
  process.exit(failed ? 1 : 0)
}
