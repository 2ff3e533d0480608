// The Node tests that run again on the WebAssembly fallback (`npm run
// test:wasm`, NAPI_RS_FORCE_WASI=1) and under Node 22 (`npm run test:node22`):
// only those that test something the native run on Node 20 (`npm test`) does
// not. Every __test__/*.test.mjs file is decided here, with why; a new file
// that is not fails this script, so each new test makes the choice knowingly.
//
//   node scripts/test-subset.mjs wasi|node22 [--node PATH] [--list]
//
// runs `node --test` on the files of that run (with PATH's node when given:
// scripts/test-node22.sh passes Node 22), or only prints them with --list.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// What the WASI run adds: the package's API through the wasm32-wasip1-threads
// build (emnapi's copies of strings and arrays, src/wasi.rs's typed arrays,
// files through WASI's preopens, one thread where native has a pool) and the
// JS bin's `runCli` on it. What it cannot add: anything that runs the native
// `wave-rules` executable, packs tarballs or reads only text.
// What the Node 22 run adds: the JS layer (index.js's loader, dist/, the bins)
// and the SDKs on the Node the agent SDK runs on (module loading, the
// built-in test runner's and fetch's differences). The Rust behind them is
// the same bytes as on Node 20, so a test of the CLI's output or of the
// native executable is not repeated there.
const FILES = {
  'ai-sdk.test.mjs': { wasi: true, node22: true, why: 'the AI SDK middleware over the binding; the `ai` package on Node 22' },
  'api.test.mjs': { wasi: true, node22: true, why: "the binding's named exports from ESM and engines: loader- and Node-specific" },
  'cli.test.mjs': { wasi: true, node22: true, why: 'the JS bin (runCli over the addon) against the Rust binary, every subcommand: on WASI the wasm CLI, on Node 22 the bin' },
  'concurrency.test.mjs': { wasi: true, node22: true, why: "overlapping discoveries: WASI's single thread, Node 22's event loop" },
  'delivery.test.mjs': { wasi: true, node22: true, why: "the core's event through the binding (conversions on each loader)" },
  'distribution.test.mjs': { wasi: false, node22: true, why: 'the packed package installed and bundled: on Node 22 too (its resolution); never WASI-forced (it installs the native platform package)' },
  'docs-paths.test.mjs': { wasi: false, node22: false, why: 'reads Markdown only' },
  'docs-snippets.test.mjs': { wasi: false, node22: false, why: "tsc and the docs' shell snippets: the TypeScript check is the same on every loader and Node; the bins' output is covered by cli.test.mjs there" },
  'example.test.mjs': { wasi: true, node22: true, why: 'the examples as processes over the package: the AI SDK and OpenAI Agents examples on each loader and Node' },
  'export.test.mjs': { wasi: true, node22: false, why: "export through the JS bin writes files: on WASI through its preopens and one thread; Node 22 runs the same Rust as Node 20" },
  'formats.test.mjs': { wasi: true, node22: true, why: "other agents' files through the package's API" },
  'glue.test.mjs': { wasi: true, node22: true, why: 'the TypeScript glue over the binding' },
  'hook.test.mjs': { wasi: true, node22: false, why: 'the JS bin answers hooks with the bytes of the Rust binary: on WASI the wasm CLI; Node 22 adds nothing to the same Rust' },
  'install.test.mjs': { wasi: false, node22: false, why: 'tarballs installed and the native executable run as each client runs it: neither the loader nor the Node of the test is involved' },
  'load-error.test.mjs': { wasi: true, node22: true, why: "the loader's error when nothing loads, and which artifact loaded: loader- and Node-specific" },
  'manager.test.mjs': { wasi: true, node22: true, why: "RuleManager, the package's main export" },
  'mcp-install.test.mjs': { wasi: true, node22: false, why: "settings files edited through the JS bin: on WASI through its file system; Node 22 runs the same Rust" },
  'mcp.test.mjs': { wasi: false, node22: true, why: 'the MCP server through the official TS client: on Node 22 the SDK and `npx wave-rules mcp`; the WASI build has no MCP server (the rest is the native binary)' },
  'memory-heldout.test.mjs': { wasi: false, node22: false, why: 'reads the held-out sets as JSON only' },
  'memory.test.mjs': { wasi: true, node22: true, why: "memory through the package's API (files and locks on each loader)" },
  'minimatch.test.mjs': { wasi: true, node22: false, why: "the addon's globs against minimatch on the corpus: the wasm build's matcher (another target's code); Node 22 runs the same native code" },
  'openai-agents.test.mjs': { wasi: true, node22: true, why: 'the OpenAI Agents SDK filter over the binding; the SDK on Node 22' },
  'opencode-plugin.test.mjs': { wasi: true, node22: true, why: 'the opencode plugin over the binding' },
  'package-managers.test.mjs': { wasi: false, node22: false, why: 'installs the native packages once with every manager (it skips itself in the other runs)' },
  'packaging.test.mjs': { wasi: false, node22: false, why: 'reads package.json, npm/ and the workflow: static' },
  'packs.test.mjs': { wasi: true, node22: true, why: "packs and the policy through the package's roads" },
  'project-root.test.mjs': { wasi: true, node22: true, why: "the project root as the manager finds it: WASI's paths" },
  'report.test.mjs': { wasi: false, node22: false, why: 'the page in Chromium: the page is the same bytes whichever loader made it (cli.test.mjs compares `report` on WASI)' },
  'sarif.test.mjs': { wasi: false, node22: false, why: 'the Rust debug binary against the SARIF schema: no loader, no Node' },
  'telemetry.test.mjs': { wasi: false, node22: false, why: "the addon's telemetry thread posting to a receiver: the WASI build has no HTTP client (it spools only); Node 22 runs the same Rust" },
  'vscode-extension.test.mjs': { wasi: false, node22: false, why: 'packages the extension once with vsce' },
  'wave-agent.test.mjs': { wasi: true, node22: true, why: "the agent SDK drop-in, on Node 22 the SDK's own Node" },
}

/** The run's files, or exit 1 naming the test files this table does not decide. */
export function filesOf(run) {
  const onDisk = fs.readdirSync(path.join(repo, '__test__')).filter((f) => f.endsWith('.test.mjs')).sort()
  const undecided = onDisk.filter((f) => !(f in FILES))
  const gone = Object.keys(FILES).filter((f) => !onDisk.includes(f))
  if (undecided.length || gone.length) {
    const lines = [...undecided.map((f) => `  ${f}: not decided (add it to FILES with wasi, node22 and why)`), ...gone.map((f) => `  ${f}: in FILES but not in __test__/`)]
    console.error(`scripts/test-subset.mjs: the table of test files is out of date:\n${lines.join('\n')}`)
    process.exit(1)
  }
  return onDisk.filter((f) => FILES[f][run]).map((f) => `__test__/${f}`)
}

function main() {
  const args = process.argv.slice(2)
  const run = args.find((a) => a === 'wasi' || a === 'node22')
  if (!run) {
    console.error('usage: node scripts/test-subset.mjs wasi|node22 [--node PATH] [--list]')
    process.exit(2)
  }
  const files = filesOf(run)
  if (args.includes('--list')) return console.log(files.join('\n'))
  const node = args.includes('--node') ? args[args.indexOf('--node') + 1] : process.execPath
  const env = run === 'wasi' ? { ...process.env, NAPI_RS_FORCE_WASI: '1' } : process.env
  console.log(`${run}: ${files.length} of ${Object.keys(FILES).length} test files (scripts/test-subset.mjs says why)`)
  const r = spawnSync(node, ['--test', ...files], { cwd: repo, env, stdio: 'inherit' })
  process.exit(r.status ?? 1)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
