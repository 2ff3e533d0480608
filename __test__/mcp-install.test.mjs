// `wave-rules mcp install --client NAME` / `mcp uninstall` on real temp
// files, for every client: our entry merged beside existing settings (with
// comments where the client's format allows them, and a Codex TOML with
// comments), idempotent, and an uninstall that leaves everything else byte
// for byte as it was.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempTree } from './helpers.mjs'
import { rustBin } from './rust-bin.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const jsBin = path.join(root, 'bin/wave-rules.js')
let bin

function cli(tree, args, { npx = false } = {}) {
  const all = ['--workdir', tree.workdir, '--home', tree.homeDir, ...args]
  const r = npx
    ? spawnSync(process.execPath, [jsBin, ...all], { encoding: 'utf8', cwd: tree.workdir })
    : spawnSync(rustBin(), all, { encoding: 'utf8', cwd: tree.workdir })
  assert.equal(r.status, 0, `wave-rules ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

// What each client's file holds before we come, as a user would have it.
const CASES = {
  claude: {
    file: '.mcp.json',
    before: '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-github"]\n    }\n  }\n}\n',
    entry: (j) => j.mcpServers['wave-rules'],
    others: (j) => j.mcpServers.github,
  },
  cursor: {
    file: '.cursor/mcp.json',
    before: '{\n  // my servers\n  "mcpServers": {\n    "docs": { "url": "http://127.0.0.1:9/mcp" }\n  },\n  "other": [1, 2, 3]\n}\n',
    entry: (j) => j.mcpServers['wave-rules'],
    others: (j) => j.mcpServers.docs,
  },
  vscode: {
    file: '.vscode/mcp.json',
    before: '{\n\t"inputs": [],\n\t"servers": {\n\t\t"fs": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "mcp-fs"\n\t\t}\n\t}\n}\n',
    entry: (j) => j.servers['wave-rules'],
    others: (j) => j.servers.fs,
  },
  opencode: {
    file: 'opencode.json',
    before: '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "fake/fake-model",\n  "provider": {}\n}\n',
    entry: (j) => j.mcp['wave-rules'],
    others: (j) => j.model,
  },
  gemini: {
    file: '.gemini/settings.json',
    before: '{\n  "theme": "Default",\n  "mcpServers": {\n    "py": { "command": "uvx", "args": ["mcp-py"], "timeout": 30000 }\n  }\n}\n',
    entry: (j) => j.mcpServers['wave-rules'],
    others: (j) => [j.theme, j.mcpServers.py],
  },
}

/** JSON with comments, as these clients read it. */
const parse = (text) => JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''))

for (const [client, c] of Object.entries(CASES)) {
  test(`mcp install --client ${client}: merged, idempotent, uninstall leaves the rest byte-identical`, () => {
    const tree = tempTree()
    try {
      const file = path.join(tree.workdir, c.file)
      tree.write(file, c.before)
      const out = cli(tree, ['mcp', 'install', '--client', client])
      assert.match(out, new RegExp(`installed the wave-rules MCP server for ${client}`))
      const installed = fs.readFileSync(file, 'utf8')
      const json = parse(installed)
      const entry = c.entry(json)
      assert.ok(entry, installed)
      assert.deepEqual(c.others(json), c.others(parse(c.before)), 'the other settings are kept')
      if (client === 'cursor') assert.ok(installed.includes('// my servers'), 'comments are kept')
      if (client === 'opencode') {
        assert.equal(entry.type, 'local')
        assert.ok(path.isAbsolute(entry.command[0]))
        assert.deepEqual(entry.command.slice(1), ['mcp'])
        assert.equal(entry.enabled, true)
      } else {
        assert.ok(path.isAbsolute(entry.command), `absolute command: ${entry.command}`)
        assert.equal(entry.args[0], 'mcp')
        if (client === 'vscode' || client === 'cursor') assert.deepEqual(entry.args.slice(1), ['--workdir', '${workspaceFolder}'])
        if (client === 'vscode' || client === 'claude') assert.equal(entry.type, 'stdio')
      }
      // Idempotent: the second install changes nothing.
      assert.match(cli(tree, ['mcp', 'install', '--client', client]), /already installed/)
      assert.equal(fs.readFileSync(file, 'utf8'), installed)
      // Uninstall: byte for byte what the user had.
      assert.match(cli(tree, ['mcp', 'uninstall', '--client', client]), /removed the wave-rules MCP server/)
      assert.equal(fs.readFileSync(file, 'utf8'), c.before)
      assert.match(cli(tree, ['mcp', 'uninstall', '--client', client]), /nothing to remove/)
      assert.equal(fs.readFileSync(file, 'utf8'), c.before)
    } finally {
      tree.cleanup()
    }
  })
}

test('mcp install --client codex: ~/.codex/config.toml with comments, [mcp_servers.wave-rules], uninstall byte-identical', () => {
  const tree = tempTree()
  try {
    const file = path.join(tree.homeDir, '.codex/config.toml')
    const before = [
      '# Codex settings',
      'model = "o4-mini"  # the default model',
      '',
      '[mcp_servers.github]',
      '# the GitHub server',
      'command = "npx"',
      'args = ["-y", "@modelcontextprotocol/server-github"]',
      '',
      '[profiles.fast]',
      'model = "gpt-5-mini"',
      '',
    ].join('\n')
    tree.write(file, before)
    cli(tree, ['mcp', 'install', '--client', 'codex', '--scope', 'user'])
    const installed = fs.readFileSync(file, 'utf8')
    assert.ok(installed.startsWith(before.trimEnd().split('\n[profiles.fast]')[0]), installed)
    assert.ok(installed.includes('# the GitHub server') && installed.includes('# the default model'))
    const m = installed.match(/\[mcp_servers\.wave-rules\]\ncommand = "([^"]+)"\nargs = \["mcp"\]\n/)
    assert.ok(m, installed)
    assert.ok(path.isAbsolute(m[1]))
    cli(tree, ['mcp', 'install', '--client', 'codex', '--scope', 'user'])
    assert.equal(fs.readFileSync(file, 'utf8'), installed, 'idempotent')
    cli(tree, ['mcp', 'uninstall', '--client', 'codex', '--scope', 'user'])
    assert.equal(fs.readFileSync(file, 'utf8'), before)
  } finally {
    tree.cleanup()
  }
})

test('mcp install into files that do not exist yet, user scope, and uninstall that removes what install created', () => {
  const tree = tempTree()
  try {
    const where = {
      claude: [path.join(tree.workdir, '.mcp.json'), 'project'],
      gemini: [path.join(tree.homeDir, '.gemini/settings.json'), 'user'],
      codex: [path.join(tree.homeDir, '.codex/config.toml'), 'user'],
      opencode: [path.join(tree.homeDir, '.config/opencode/opencode.json'), 'user'],
      cursor: [path.join(tree.homeDir, '.cursor/mcp.json'), 'user'],
    }
    for (const [client, [file, scope]] of Object.entries(where)) {
      cli(tree, ['mcp', 'install', '--client', client, '--scope', scope])
      assert.ok(fs.existsSync(file), `${client}: ${file}`)
      assert.match(fs.readFileSync(file, 'utf8'), /wave-rules/)
      cli(tree, ['mcp', 'uninstall', '--client', client, '--scope', scope])
      assert.ok(!fs.existsSync(file), `${client}: the file install created is gone`)
    }
  } finally {
    tree.cleanup()
  }
})

test('the npm bin without the package in the project writes node and the package script by absolute path, and says not to commit it; extra server args after --', () => {
  const tree = tempTree()
  try {
    const out = cli(tree, ['mcp', 'install', '--client', 'claude', '--', '--sources', 'all'], { npx: true })
    assert.match(out, /NOT safe to commit/)
    const entry = JSON.parse(fs.readFileSync(path.join(tree.workdir, '.mcp.json'), 'utf8')).mcpServers['wave-rules']
    assert.equal(entry.command, process.execPath)
    assert.deepEqual(entry.args, [fs.realpathSync(jsBin), 'mcp', '--sources', 'all'])
  } finally {
    tree.cleanup()
  }
})

test('mcp install refuses a settings file that is not JSON, and leaves it alone', () => {
  const tree = tempTree()
  try {
    const file = tree.write(path.join(tree.workdir, '.mcp.json'), '{ "mcpServers": ')
    const r = spawnSync(rustBin(), ['--workdir', tree.workdir, '--home', tree.homeDir, 'mcp', 'install', '--client', 'claude'], { encoding: 'utf8' })
    assert.equal(r.status, 1)
    assert.match(r.stderr, /:\d+:\d+: not valid JSON/)
    assert.equal(fs.readFileSync(file, 'utf8'), '{ "mcpServers": ')
  } finally {
    tree.cleanup()
  }
})
