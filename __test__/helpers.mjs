// Real files in temp dirs for the Node tests.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * A temp tree: `root/work` (the project) and `root/home`. The workdir is a
 * project root of its own (a `.git` with its `HEAD`), so nothing that finds
 * the project root from it (`new RuleManager({ workdir })`, `projectRoot`,
 * the CLI without `--workdir`) takes a folder above the temp folder for
 * the project: another tool's `.wave`, `.claude` or `.git` there.
 * `{ root: false }` leaves it without one, for a test of the walk that
 * fences its own tree (`gitRoot(tree.root)`).
 */
export function tempTree({ root: ownRoot = true } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-rules-'))
  const workdir = path.join(root, 'work')
  const homeDir = path.join(root, 'home')
  fs.mkdirSync(workdir, { recursive: true })
  fs.mkdirSync(homeDir, { recursive: true })
  if (ownRoot) gitRoot(workdir)
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

/** Makes `dir` a git repository's root as git takes it: a `.git` with its `HEAD` (an empty `.git` folder is none). */
export function gitRoot(dir) {
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n')
}

/** A temp tree with the project rules `rules` (`{ id: text }`), removed after the test `t`. */
export function projectTree(t, rules = {}) {
  const tree = tempTree()
  t.after(tree.cleanup)
  for (const [id, text] of Object.entries(rules)) tree.project(id, text)
  return tree
}

/**
 * The corpus of real rule files: `$WAVE_CORPUS`, else `../shared/corpus`
 * beside the repository. `skip` is false when it is there, else the one line
 * a test that needs it is skipped with (a clone with nothing beside it still
 * passes); with `WAVE_CORPUS_REQUIRED=1` (CI) an absent corpus throws.
 */
export function corpus() {
  const dir = process.env.WAVE_CORPUS || path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../../shared/corpus')
  if (fs.existsSync(path.join(dir, 'rules'))) return { dir, skip: false }
  const why = `the corpus of real rule files is not at ${dir} (set WAVE_CORPUS)`
  if (process.env.WAVE_CORPUS_REQUIRED === '1') throw new Error(`${why}, and WAVE_CORPUS_REQUIRED=1`)
  return { dir, skip: why }
}

const { RuleManager } = createRequire(import.meta.url)('..')

/** A manager over `tree`, with rules discovered. */
export async function discovered(tree) {
  const m = new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir })
  await m.discoverRules()
  return m
}

/**
 * The project both SDK adapters' tests run on (AI SDK, OpenAI Agents): an
 * always-on rule, two path rules with files to read, a topic rule; and a
 * manager over it (rules not yet discovered). Removed after the test `t`.
 */
export function sdkProject(t) {
  const tree = projectTree(t, {
    'always.md': 'Be brief.',
    'api.md': '---\npaths: src/api/**\n---\nValidate input.',
    'ui.md': '---\npaths: "src/ui/**/*.tsx"\n---\nHooks only.',
    'db.md': '---\ntopics: [customer]\n---\nThe customer table is read-only.',
  })
  tree.write(path.join(tree.workdir, 'src/api/users.ts'), 'export {}')
  tree.write(path.join(tree.workdir, 'src/ui/App.tsx'), 'export {}')
  return { tree, manager: new RuleManager({ workdir: tree.workdir, homeDir: tree.homeDir }) }
}

/**
 * Set when this run uses the WebAssembly fallback (`NAPI_RS_FORCE_WASI=1`,
 * `npm run test:wasm`): the reason a test gives for what WASI cannot do.
 */
export const onWasi = createRequire(import.meta.url)('..').bindingTarget !== 'native'

/**
 * The delivery log's entries (`wave-rules log`) for `workdir`, oldest first:
 * the log of `homeDir`'s state directory (`$WAVE_RULES_STATE_DIR`, else
 * `$XDG_STATE_HOME/wave-rules`, else `<home>/.local/state/wave-rules`, as
 * the core finds it), rotated files included.
 */
export function deliveryLog(homeDir, workdir) {
  const state = process.env.WAVE_RULES_STATE_DIR || (process.env.XDG_STATE_HOME ? path.join(process.env.XDG_STATE_HOME, 'wave-rules') : path.join(homeDir, '.local/state/wave-rules'))
  const out = []
  for (const name of ['deliveries.3.jsonl', 'deliveries.2.jsonl', 'deliveries.1.jsonl', 'deliveries.jsonl']) {
    const file = path.join(state, 'log', name)
    if (!fs.existsSync(file)) continue
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line.trim()) out.push(JSON.parse(line))
  }
  const real = (p) => { try { return fs.realpathSync(p) } catch { return p } }
  return out.filter((d) => workdir === undefined || real(d.project) === real(workdir)).sort((a, b) => a.time - b.time)
}
