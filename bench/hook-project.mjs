// For the hook benches: a project of N rules in the mix (half topic
// rules, 40% path rules, 10% always-on; among the path rules one in ten
// enforces a folder, one in twenty also forbids commands, one in twenty warns),
// in the root and five subdirectories, each file dated an hour back (as in a
// working repository), and one Claude Code payload per hook event: the
// events every agent's turn fires.
import fs from 'node:fs'
import path from 'node:path'

/** Writes `rules` rule files under `work/.wave/rules` and the files the events touch. */
export function writeRuleProject(work, rules) {
  const old = new Date(Date.now() - 3600_000)
  const topics = Math.round(rules * 0.5)
  const paths = Math.round(rules * 0.4)
  for (let i = 0; i < rules; i++) {
    const fm = i < topics ? topicRule(i) : i < topics + paths ? pathRule(i, i - topics) : `priority: ${i % 7}`
    const dir = path.join(work, '.wave/rules', i % 2 ? `group${i % 5}` : '')
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `rule${String(i).padStart(4, '0')}.md`)
    fs.writeFileSync(file, `---\n${fm}\ndescription: rule ${i}\n---\nRule ${i}: first line.\nSecond line of rule ${i}.\n`)
    fs.utimesSync(file, old, old)
  }
  for (const dir of fs.readdirSync(path.join(work, '.wave/rules'), { recursive: true })) {
    fs.utimesSync(path.join(work, '.wave/rules', dir), old, old)
  }
  fs.mkdirSync(path.join(work, 'src/mod4'), { recursive: true })
  fs.writeFileSync(path.join(work, 'src/mod4/a.ts'), 'export const a = 1\n')
}

function topicRule(i) {
  return i % 3 === 0 ? `topics: [topic${i}, "phrase ${i}"]` : `topics: kw${i}`
}

function pathRule(i, n) {
  if (n % 10 === 3) return `paths: "gen/mod${i}/**"\nenforce: block`
  if (n % 20 === 13) return `paths: "deploy/mod${i}/**"\ncommands: ["git push --force*", "psql*prod${i}*"]\nenforce: block`
  if (n % 20 === 7) return `paths: "vendor/mod${i}/**"\nenforce: warn`
  switch (n % 4) {
    case 0: return `paths: ["src/mod${n % 8}/**/*.ts", "!**/*.test.ts"]`
    case 1: return `paths: "**/*.py"`
    case 2: return `paths: "docs/part${i}/**/*.md"`
    default: return `paths: ["crates/c${i}/src/lib.rs", "{app,web}/**/*.tsx"]`
  }
}

/**
 * The hook events, each `[label, hook event, payload fields]` (add
 * `session_id`, `cwd` and `hook_event_name`): every event of an agent's turn.
 */
export function hookEvents(work) {
  const file = path.join(work, 'src/mod4/a.ts')
  return [
    ['SessionStart', 'SessionStart', { source: 'startup' }],
    ['UserPromptSubmit', 'UserPromptSubmit', { prompt: 'please fix topic6 and the phrase 9 handler, kw10 too' }],
    // Before a write the rules allow (the usual case): the enforced rules are checked.
    ['PreToolUse', 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: file, content: 'x' } }],
    ['PostToolUse (file)', 'PostToolUse', { tool_name: 'Read', tool_input: { file_path: file } }],
    ['PostToolUse (shell)', 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'cd src && sed -n 1,80p mod4/a.ts | grep -n export' } }],
    ['Stop', 'Stop', { stop_hook_active: false }],
    ['SubagentStart', 'SubagentStart', { agent_id: 'sub-1', agent_type: 'general-purpose' }],
  ]
}
