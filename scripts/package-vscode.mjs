// npm run package:vscode [-- --out FILE.vsix]: the VS Code extension
// (vscode-extension/) bundled with esbuild (vscode-languageclient inside,
// `vscode` left to the editor) and packaged with @vscode/vsce, in a temp
// copy so the checkout stays clean. Default output: dist/wave-rules.vsix.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'

const root = path.resolve(import.meta.dirname, '..')
const at = process.argv.indexOf('--out')
const out = path.resolve(at > 0 ? process.argv[at + 1] : path.join(root, 'dist/wave-rules.vsix'))
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-vscode-'))
try {
  for (const f of ['package.json', 'README.md', '.vscodeignore']) {
    fs.copyFileSync(path.join(root, 'vscode-extension', f), path.join(work, f))
  }
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(work, 'LICENSE'))
  await build({
    entryPoints: [path.join(root, 'vscode-extension/extension.js')],
    outfile: path.join(work, 'dist/extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'error',
  })
  fs.mkdirSync(path.dirname(out), { recursive: true })
  const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce')
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out], {
    cwd: work,
    encoding: 'utf8',
  })
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr)
    process.exit(r.status ?? 1)
  }
  console.log(`packaged ${path.relative(process.cwd(), out) || out}`)
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}
