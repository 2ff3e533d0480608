// `node bench/hook-compare.mjs OLD NEW`: whether two builds of `wave-rules`
// answer the hooks alike, byte for byte. A recorded set of event sequences
// (every Claude Code event, resumes and compactions, refusals and warnings,
// subagents, skills, mentions, and the other agents' dialects) runs through
// OLD, then through NEW, each time in a fresh copy of the same projects and
// state directory at the same paths; stdout, stderr and the exit code of
// every event must be equal. Prints how many events were compared and every
// difference; exits 1 on any. `--show` also prints each event's output.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hookEvents, writeRuleProject } from './hook-project.mjs'

const show = process.argv.includes('--show')
const [oldBin, newBin] = process.argv.slice(2).filter((a) => a !== '--show').map((p) => path.resolve(p))
if (!oldBin || !newBin) {
  console.error('usage: node bench/hook-compare.mjs OLD NEW')
  process.exit(2)
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-hook-compare-'))

/** A small project with the rarer triggers: skills, `regex` content, mentions, sticky rules. */
function writeFeatureProject(work) {
  const rules = {
    'always.md': 'priority: 1\ndescription: always',
    'sticky.md': 'remind: every-turn\ndescription: sticky',
    'db.md': 'skills: [db-work]\ndescription: db',
    'content.md': 'paths: "src/**/*.ts"\nregex: "export const"\ndescription: content',
    'manual.md': 'activation: manual\ndescription: manual',
    'ts.md': 'paths: ["src/**/*.ts", "!**/*.test.ts"]\ndescription: ts',
    'warn.md': 'paths: "vendor/**"\nenforce: warn\ndescription: warn',
    'block.md': 'paths: "gen/**"\ncommands: ["rm -rf *", "git push --force*"]\nenforce: block\ndescription: block',
    'deploy.md': 'topics: [deploy, "release train"]\ndescription: deploy',
  }
  fs.mkdirSync(path.join(work, '.wave/rules'), { recursive: true })
  for (const [name, fm] of Object.entries(rules)) {
    fs.writeFileSync(path.join(work, '.wave/rules', name), `---\n${fm}\n---\nThe ${name} rule.\nIts second line.\n`)
  }
  const skill = path.join(work, '.claude/skills/db-work')
  fs.mkdirSync(skill, { recursive: true })
  fs.writeFileSync(path.join(skill, 'SKILL.md'), '---\nname: db-work\ndescription: database work\n---\nUse memory_search first.\n')
  fs.mkdirSync(path.join(work, 'src/mod4'), { recursive: true })
  fs.writeFileSync(path.join(work, 'src/mod4/a.ts'), 'export const a = 1\n')
  fs.mkdirSync(path.join(work, 'vendor'), { recursive: true })
  fs.writeFileSync(path.join(work, 'vendor/lib.js'), 'x\n')
}

/** The sequences: `[agent, event, payload]` in order, per project. */
function sequences(work, rules) {
  const file = path.join(work, 'src/mod4/a.ts')
  const claude = (session, list) => list.map(([event, extra]) => ['claude', event, { session_id: session, cwd: work, hook_event_name: event, ...extra }])
  const base = hookEvents(work).map(([, event, extra]) => [event, extra])
  const seqs = [
    // The bench's events, twice (the second round finds everything given), and without a session.
    claude(`a-${rules}`, [...base, ...base]),
    base.map(([event, extra]) => ['claude', event, { cwd: work, hook_event_name: event, ...extra }]),
    claude(`b-${rules}`, [
      ['SessionStart', { source: 'startup' }],
      ['UserPromptSubmit', { prompt: 'deploy the release train; also topic3 and phrase 6, @manual.md please' }],
      ['PostToolUse', { tool_name: 'Edit', tool_input: { file_path: file, old_string: 'a', new_string: 'b' } }],
      ['PreToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(work, 'gen/x.ts'), content: 'x' } }],
      ['PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git push --force origin main' } }],
      ['PreToolUse', { tool_name: 'Bash', tool_input: { command: 'echo hi > gen/mod103/y.txt && rm -rf build' } }],
      ['PostToolUse', { tool_name: 'Write', tool_input: { file_path: path.join(work, 'vendor/lib.js'), content: 'x' } }],
      ['PostToolUse', { tool_name: 'Bash', tool_input: { command: 'cat src/mod4/a.ts docs/part60/x.md > out.py; python3 tool.py' } }],
      ['PostToolUse', { tool_name: 'Skill', tool_input: { skill: 'db-work' } }],
      ['PostToolUse', { tool_name: 'Read', tool_input: { file_path: path.join(work, '.claude/skills/db-work/SKILL.md') } }],
      ['PostToolUse', { tool_name: 'TodoWrite', tool_input: { todos: [] } }],
      ['PreToolUse', { tool_name: 'Task', tool_input: { description: 'deploy', prompt: 'deploy the release train', subagent_type: 'general-purpose' } }],
      ['SubagentStart', { agent_id: 'sub-9', agent_type: 'general-purpose' }],
      ['PostToolUse', { agent_id: 'sub-9', tool_name: 'Read', tool_input: { file_path: file } }],
      ['SubagentStop', { agent_id: 'sub-9' }],
      ['Stop', { stop_hook_active: false }],
      ['Stop', { stop_hook_active: true }],
      ['PreCompact', { trigger: 'auto' }],
      ['SessionStart', { source: 'compact' }],
      ['UserPromptSubmit', { prompt: 'after the compaction, kw20' }],
      ['PostToolUse', { tool_name: 'Edit', tool_input: { file_path: file, old_string: 'b', new_string: 'c' } }],
      ['SessionStart', { source: 'resume' }],
      ['SessionStart', { source: 'clear' }],
      ['Stop', { stop_hook_active: false }],
      ['UserPromptSubmit', { prompt: '/db-work then something' }],
    ]),
  ]
  const command = 'cd src && sed -n 1,80p mod4/a.ts | grep -n export'
  seqs.push([
    ['codex', 'SessionStart', { session_id: `c-${rules}`, cwd: work, hook_event_name: 'SessionStart', source: 'startup' }],
    ['codex', 'PostToolUse', { session_id: `c-${rules}`, cwd: work, tool_name: 'Bash', tool_input: { command } }],
    ['codex', 'PostToolUse', { session_id: `c-${rules}`, cwd: work, tool_name: 'apply_patch', tool_input: { input: '*** Begin Patch\n*** Update File: src/mod4/a.ts\n@@\n-a\n+b\n*** End Patch\n' } }],
    ['gemini', 'UserPromptSubmit', { session_id: `g-${rules}`, cwd: work, hook_event_name: 'BeforeAgent', prompt: 'deploy topic9' }],
    ['gemini', 'PostToolUse', { session_id: `g-${rules}`, cwd: work, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command } }],
    ['gemini', 'Stop', { session_id: `g-${rules}`, cwd: work, hook_event_name: 'AfterAgent' }],
    ['copilot', 'PostToolUse', { sessionId: `p-${rules}`, cwd: work, toolName: 'bash', toolArgs: { command } }],
    ['copilot', 'SubagentStart', { sessionId: `p-${rules}`, cwd: work, agentId: 'x1', agentType: 'explore' }],
    ['cursor', 'PostToolUse', { conversation_id: `u-${rules}`, workspace_roots: [work], hook_event_name: 'afterShellExecution', command }],
    ['cursor', 'PreToolUse', { conversation_id: `u-${rules}`, workspace_roots: [work], hook_event_name: 'beforeShellExecution', command: 'git push --force' }],
    ['cursor', 'UserPromptSubmit', { conversation_id: `u-${rules}`, workspace_roots: [work], hook_event_name: 'beforeSubmitPrompt', prompt: 'deploy' }],
  ])
  // Bad input: not JSON, not an object.
  seqs.push([['claude', 'PostToolUse', 'not json'], ['claude', 'UserPromptSubmit', '[1]']])
  return seqs
}

function runAll(bin, work) {
  const results = []
  for (const [project, rules] of [['features', 0], ['p100', 100], ['p1000', 1000]]) {
    const dir = path.join(work, project)
    const env = { ...process.env, HOME: path.join(work, 'home'), WAVE_RULES_STATE_DIR: path.join(work, 'state'), CLAUDE_PROJECT_DIR: dir, WAVE_RULES_LOG: '' }
    for (const seq of sequences(dir, rules)) {
      for (const [agent, event, payload] of seq) {
        const input = typeof payload === 'string' ? payload : JSON.stringify(payload)
        const args = agent === 'claude' ? ['hook', event] : ['hook', '--agent', agent, event]
        const r = spawnSync(bin, args, { cwd: dir, env, input, encoding: 'utf8' })
        results.push({ what: `${project} ${agent} ${event} ${input.slice(0, 100)}`, out: [r.status, r.stdout, r.stderr] })
      }
    }
  }
  return results
}

const template = path.join(root, 'template')
writeFeatureProject(path.join(template, 'features'))
writeRuleProject(path.join(template, 'p100'), 100)
writeRuleProject(path.join(template, 'p1000'), 1000)
fs.mkdirSync(path.join(template, 'home'), { recursive: true })
const work = path.join(root, 'work')
const runs = []
for (const bin of [oldBin, newBin]) {
  fs.rmSync(work, { recursive: true, force: true })
  fs.cpSync(template, work, { recursive: true, preserveTimestamps: true })
  // The copy's directories are new: past the racy window (2 s), a hook's
  // saved rules are checked by their stamps and used as saved (the path
  // most events of a session take), not reloaded.
  spawnSync('sleep', ['2.2'])
  runs.push(runAll(bin, work))
}
let differ = 0
for (let i = 0; i < runs[0].length; i++) {
  const [a, b] = [runs[0][i], runs[1][i]]
  if (show) console.log(`${a.what}\n  ${JSON.stringify(a.out).slice(0, 300)}`)
  if (JSON.stringify(a.out) !== JSON.stringify(b.out)) {
    differ++
    console.log(`DIFFERS: ${a.what}\n  old: ${JSON.stringify(a.out).slice(0, 600)}\n  new: ${JSON.stringify(b.out).slice(0, 600)}`)
  }
}
const nonEmpty = runs[0].filter((r) => r.out[1] || r.out[2]).length
console.log(`${runs[0].length} events compared (${nonEmpty} with output), ${differ} differ`)
fs.rmSync(root, { recursive: true, force: true })
process.exit(differ ? 1 : 0)
