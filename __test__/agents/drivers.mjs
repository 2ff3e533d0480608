// One driver per agent, so a test can run the same scenario in every agent:
// `project(name, files, options)` makes a project (a temp workdir and HOME
// under the harness root, the files, the package installed as a user
// installs it, the agent's hooks or plugin), and `p.run(prompt)` runs one
// headless turn against the fake model and returns the requests the model
// received during it. `conversation(requests, mark)` keeps the requests of
// one conversation: those whose user messages hold `mark` (a main prompt
// and each subagent's task start with their own mark; a subagent's task
// travels in base64 inside the parent's prompt, so it never marks the
// parent's requests).
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { userTexts } from './fake-model.mjs'
import {
  repo, run, isolatedEnv, claudeEnv, geminiEnv, writeTree, installBin,
  claudeBinary, codexBinary, geminiScript, copilotBinary, opencodeBinary, copilotProject, gitProject,
} from './agents.mjs'

const TIMEOUT = 150_000

/** The requests (of a run) that hold `mark` in a user message. */
export function conversation(requests, mark) {
  return requests.filter((q) => userTexts(q.body).some((t) => t.includes(mark)))
}

/** Whether any of `requests` holds `text` anywhere (tool results included). */
export function reached(requests, text) {
  return requests.some((q) => JSON.stringify(q.body).includes(JSON.stringify(text).slice(1, -1)))
}

function hookInstall(bin, work, env, agent, extra) {
  // `install: false`: no hooks at all (what the agent loads by itself).
  if (extra === false) return ''
  const args = ['hook', 'install', ...(agent ? ['--agent', agent] : []), ...extra]
  return execFileSync(bin, args, { cwd: work, env, encoding: 'utf8' })
}

/**
 * The agents, each `{ name, skip, model, project(h, bin, name, files, options) }`.
 * `options.install`: more arguments for `hook install` (or none for opencode),
 * or `false` for no hooks at all (no plugin for opencode);
 * `options.model`: the model the agent is told to use (Codex offers
 * `apply_patch` to `gpt-5.5` and `spawn_agent` to `fake-model`);
 * `options.env` (Codex): more variables for the agent and its hooks.
 */
export const DRIVERS = {
  claude: {
    name: 'Claude Code',
    skip: claudeBinary() ? false : 'the @anthropic-ai/claude-code devDependency is not installed',
    project(h, bin, name, files, options = {}) {
      const { work, home } = dirs(h, name)
      writeTree(work, files)
      // Every tool allowed, as a user who runs it unattended does (`tee`
      // and scripts need approval otherwise); root needs IS_SANDBOX for that.
      const env = claudeEnv(home, h.server.url, { WAVE_RULES_STATE_DIR: path.join(h.root, name, 'state'), IS_SANDBOX: '1' })
      installBin(work, bin)
      hookInstall(bin, work, env, null, options.install ?? [])
      return turn(h, work, env, (prompt) => [claudeBinary(), ['-p', prompt, '--model', 'claude-sonnet-4-5', '--output-format', 'json', '--permission-mode', 'bypassPermissions']], (q) => q.path.includes('/messages') && Array.isArray(q.body.messages) && (q.body.tools ?? []).length > 0)
    },
  },
  codex: {
    name: 'Codex CLI',
    skip: codexBinary() ? false : 'the @openai/codex devDependency is not installed for this platform',
    project(h, bin, name, files, options = {}) {
      const { work, home } = dirs(h, name)
      fs.mkdirSync(path.join(home, '.codex'), { recursive: true })
      writeTree(work, files)
      const env = isolatedEnv(home, { WAVE_RULES_STATE_DIR: path.join(h.root, name, 'state'), CODEX_HOME: path.join(home, '.codex'), ...options.env })
      installBin(work, bin)
      hookInstall(bin, work, env, 'codex', options.install ?? [])
      const model = options.model ?? 'fake-model'
      return turn(h, work, env, (prompt) => [codexBinary(), [
        'exec', '--trust', '--dangerously-bypass-hook-trust', '--skip-git-repo-check',
        '-c', 'model_provider=fake',
        '-c', `model_providers.fake={name="fake",base_url="${h.server.url}/v1",wire_api="responses"}`,
        '-m', model, prompt,
      ]], (q) => q.path.includes('/responses'))
    },
  },
  gemini: {
    name: 'Gemini CLI',
    skip: geminiScript() ? false : 'the @google/gemini-cli devDependency is not installed',
    project(h, bin, name, files, options = {}) {
      const { work, home } = dirs(h, name)
      writeTree(work, files)
      const env = geminiEnv(home, h.server.url, { WAVE_RULES_STATE_DIR: path.join(h.root, name, 'state') })
      installBin(work, bin)
      hookInstall(bin, work, env, 'gemini', options.install ?? [])
      return turn(h, work, env, (prompt) => [process.execPath, [geminiScript(), '-m', 'gemini-2.5-pro', '--yolo', '-p', prompt]], (q) => /generateContent/i.test(q.path) && (q.body.tools ?? []).length > 0)
    },
  },
  copilot: {
    name: 'Copilot CLI',
    skip: copilotBinary() ? false : 'the @github/copilot devDependency is not installed for this platform',
    project(h, bin, name, files, options = {}) {
      const { work, home } = dirs(h, name)
      writeTree(work, files)
      copilotProject(work, home)
      const env = isolatedEnv(home, {
        COPILOT_OFFLINE: 'true',
        COPILOT_PROVIDER_BASE_URL: `${h.server.url}/v1`,
        COPILOT_MODEL: 'gpt-4.1',
        WAVE_RULES_STATE_DIR: path.join(h.root, name, 'state'),
      })
      installBin(work, bin)
      hookInstall(bin, work, env, 'copilot', options.install ?? [])
      return turn(h, work, env, (prompt) => [copilotBinary(), ['-p', prompt, '--allow-all-tools']], (q) => q.path.includes('/chat/completions') && (q.body.tools ?? []).length > 0)
    },
  },
  opencode: {
    name: 'opencode',
    skip: !opencodeBinary() ? 'the opencode-ai devDependency is not installed' : !fs.existsSync(path.join(repo, 'dist/opencode.js')) ? 'run `npm run build` first (dist/opencode.js)' : false,
    project(h, bin, name, files, options = {}) {
      const { work, home } = dirs(h, name)
      // The plugin line a user adds; with options, a plugin file of their own.
      const at = (options.install || []).indexOf('--edit-distance')
      const plugin = options.install === false
        ? 'export const WaveMemoryRules = async () => ({})\n'
        : at < 0
        ? "export { WaveMemoryRules } from 'wave-memory-rules/opencode'\n"
        : `import { createRequire } from 'node:module'\nconst { createOpencodeHooks } = createRequire(import.meta.url)('wave-memory-rules/opencode')\nexport const WaveMemoryRules = (input) => createOpencodeHooks(input, { editDistance: ${Number(options.install[at + 1])} })\n`
      writeTree(work, {
        ...files,
        '.opencode/plugin/wave-memory-rules.js': plugin,
        'opencode.json': JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${h.server.url}/v1`, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake model' } } } },
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          ...(options.opencode ?? {}),
        }),
      })
      fs.mkdirSync(path.join(work, 'node_modules'), { recursive: true })
      fs.symlinkSync(repo, path.join(work, 'node_modules/wave-memory-rules'), 'dir')
      const env = isolatedEnv(home, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' })
      return turn(h, work, env, (prompt) => [opencodeBinary(), ['run', prompt, '--model', 'fake/fake-model']], (q) => q.path.includes('/chat/completions') && Array.isArray(q.body.messages) && (q.body.tools ?? []).length > 0)
    },
  },
}

/** A project's folders under the harness root: `work`, a git repository of its own (`gitProject`), and `home`. */
function dirs(h, name) {
  const work = path.join(h.root, name, 'work')
  const home = path.join(h.root, name, 'home')
  gitProject(work)
  fs.mkdirSync(home, { recursive: true })
  return { work, home }
}

/** A project's runner: one headless turn, the model's requests of that turn (those `chat` keeps). */
function turn(h, work, env, command, chat) {
  return {
    work,
    env,
    async run(prompt) {
      h.server.setWorkdir(work)
      const first = h.server.requests.length
      const [cmd, args] = command(prompt)
      const r = await run(cmd, args, { cwd: work, env, timeout: TIMEOUT })
      if (r.timedOut) throw new Error(`${cmd} timed out\n${r.stderr.slice(-3000)}`)
      return { ...r, requests: h.server.requests.slice(first).filter(chat) }
    },
  }
}
