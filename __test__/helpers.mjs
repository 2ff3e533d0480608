// Real files in temp dirs for the Node tests.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export function tempTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-'))
  const workdir = path.join(root, 'work')
  const homeDir = path.join(root, 'home')
  fs.mkdirSync(workdir, { recursive: true })
  fs.mkdirSync(homeDir, { recursive: true })
  const write = (file, text) => {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
    return file
  }
  return {
    root,
    workdir,
    homeDir,
    project: (id, text) => write(path.join(workdir, '.wave/rules', id), text),
    user: (id, text) => write(path.join(homeDir, '.wave/rules', id), text),
    write,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  }
}
