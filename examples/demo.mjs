// The README's main command: `npm install && npm run demo`.
// Loads the rules of examples/project (with examples/home as the user's home)
// from the four default sources (~/.claude/rules, ~/.wave/rules,
// .claude/rules, .wave/rules; later ones override earlier ones by id) through
// the package's public API, prints them with their diagnostics, then shows
// which rules are active for a few "files in context" + prompt pairs.
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const { RuleManager, defaultSources } = createRequire(import.meta.url)('..')
const workdir = path.join(here, 'project')
const homeDir = path.join(here, 'home')
const rel = (p) => path.relative(here, p)

// The project links a shared team folder (.wave/rules/team -> ../../../team-rules),
// outside the project: it loads because the demo allows that directory.
const allowDirs = [path.join(here, 'team-rules')]
const manager = new RuleManager({ workdir, homeDir, allowDirs })
await manager.discoverRules()

const triggers = (m) =>
  [m.paths && `paths: ${m.paths.join(', ')}`, m.topics && `topics: ${m.topics.join(', ')}`].filter(Boolean).join('; ') ||
  'always'

console.log('Sources, in override order (later wins by id):\n')
for (const s of defaultSources(workdir, homeDir)) console.log(`  ${s.scope.padEnd(8)} ${rel(s.dir).padEnd(22)} depth ${s.depth}`)
console.log('\nRules:\n')
for (const rule of manager.getRules()) {
  const first = rule.content.split('\n')[0]
  console.log(`  ${rule.id.padEnd(22)} ${rule.source.padEnd(8)} priority ${String(rule.metadata.priority ?? 0).padStart(2)}  ${triggers(rule.metadata)}`)
  console.log(`  ${''.padEnd(22)} ${first.length > 70 ? first.slice(0, 67) + '...' : first}`)
}

console.log('\nDiagnostics:\n')
for (const d of manager.getDiagnostics()) {
  const where = [rel(d.filePath), d.line, d.column].filter((x) => x !== undefined && x !== null).join(':')
  console.log(`  ${where}: ${d.severity}[${d.code}]: ${d.message}`)
}

const scenarios = [
  { files: [], prompt: 'What does this project do?' },
  { files: ['src/components/Button.tsx'], prompt: 'Make the button blue' },
  { files: [path.join(workdir, 'src/api/customers.ts'), './src/api/customers.test.ts'], prompt: 'Add paging to the customer list' },
  { files: ['db\\migrations\\001_init.sql'], prompt: 'Add an index' },
  { files: ['src/api/customers.test.ts'], prompt: 'Store the API token in the config' },
  { files: ['../other-repo/src/x.ts'], prompt: 'Compare with MySQL' },
]
console.log('\nActive rules:')
for (const { files, prompt } of scenarios) {
  const { unconditional, conditional } = manager.getActiveRulesSplit(files, prompt)
  console.log(`\n  files:  ${files.length ? files.map((f) => (path.isAbsolute(f) ? rel(f) : f)).join(', ') : '(none)'}`)
  console.log(`  prompt: ${JSON.stringify(prompt)}`)
  console.log(`  always:    ${unconditional.map((r) => r.id).join(', ') || '-'}`)
  console.log(`  triggered: ${conditional.map((r) => r.id).join(', ') || '-'}`)
}
