// The first table of bench/hook-latency.mjs: every hook event against
// `wave-rules --version` of the same binary, at 100 and 1,000 rules
// (bench/hook-project.mjs), side by side in one process, as ratios.
//
// Every cell is one spawn per round, all cells interleaved round by round
// (so a change in the shared machine's load falls on every cell alike); a
// cell's ratio is its p50 over the p50 of `--version` of the same binary.
// `WAVE_RULES_BASE=path` adds a second binary (an older build) measured in
// the same rounds, each against its own `--version`: a before/after table
// from one run. With `--instructions`, each cell is also run once under
// `valgrind --tool=callgrind` (after the timed rounds, on the same state):
// instructions executed, which a loaded machine does not change.
// In a project of 64 rules or more the first rounds start the hooks' watcher
// (crates/wave-rules/src/hook/watch.rs), so the timed rounds are hooks it
// vouches for, as in a session; `WAVE_RULES_WATCH=off` times the stats.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { hookEvents, writeRuleProject } from './hook-project.mjs'

export const RULE_COUNTS = [100, 1000]

function once(cell) {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cell.cmd, cell.args, { cwd: cell.cwd, env: cell.env, input: cell.input, encoding: 'utf8' })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${cell.cmd} ${cell.args.join(' ')}: exit ${r.status}\n${r.stderr}`)
  return ms
}

function p50(times) {
  const sorted = [...times].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Instructions of one run under callgrind, or null without valgrind. */
function instructions(cell, dir) {
  const out = path.join(dir, `callgrind.${process.hrtime.bigint()}`)
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, cell.cmd, ...cell.args], {
    cwd: cell.cwd, env: cell.env, input: cell.input, encoding: 'utf8',
  })
  if (r.error || r.status !== 0 || !fs.existsSync(out)) return null
  const totals = fs.readFileSync(out, 'utf8').match(/^(?:totals|summary): (\d+)/m)
  fs.rmSync(out, { force: true })
  return totals ? Number(totals[1]) : null
}

/** The cells of one binary (with `extra` variables): `--version`, then every event at every rule count. */
function cellsOf(label, bin, root, extra = {}) {
  const cells = [{ label, event: '--version', rules: 0, cmd: bin, args: ['--version'], input: '', env: { ...process.env, ...extra }, cwd: root, times: [] }]
  for (const rules of RULE_COUNTS) {
    const work = path.join(root, `project-${rules}`)
    if (!fs.existsSync(work)) writeRuleProject(work, rules)
    const env = { ...process.env, ...extra, HOME: path.join(root, 'home'), WAVE_RULES_STATE_DIR: path.join(root, `state-${label}`), CLAUDE_PROJECT_DIR: work }
    for (const [name, event, extra] of hookEvents(work)) {
      const input = JSON.stringify({ session_id: `bench-${rules}`, cwd: work, hook_event_name: event, ...extra })
      cells.push({ label, event: name, rules, cmd: bin, args: ['hook', event], input, env, cwd: work, times: [] })
    }
  }
  return cells
}

/**
 * Runs the table for `bins` (`[[label, path, variables?], ...]`: the same
 * binary twice with other variables is a column too) and returns its
 * Markdown lines.
 */
export function eventTable(bins, root, runs, withInstructions) {
  fs.mkdirSync(path.join(root, 'home'), { recursive: true })
  const cells = bins.flatMap(([label, bin, extra]) => cellsOf(label, bin, root, extra))
  // One round unmeasured: the rules cache and the session state are warm, as in a session.
  for (const c of cells) once(c)
  for (let round = 0; round < runs; round++) for (const c of cells) c.times.push(once(c))
  if (withInstructions) for (const c of cells) c.ir = instructions(c, root)
  const lines = []
  const header = ['event', ...RULE_COUNTS.flatMap((n) => bins.map(([label]) => `${n} rules${bins.length > 1 ? ` (${label})` : ''}`))]
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`)
  const version = (label) => cells.find((c) => c.label === label && c.event === '--version')
  const show = (c) => {
    const v = version(c.label)
    const time = `${p50(c.times).toFixed(1)} ms, ${(p50(c.times) / p50(v.times)).toFixed(2)}x`
    return c.ir && v.ir ? `${time}; ${(c.ir / 1e6).toFixed(2)} M instr, ${(c.ir / v.ir).toFixed(2)}x` : time
  }
  const versionRow = RULE_COUNTS.flatMap(() => bins.map(([label]) => {
    const v = version(label)
    return `${p50(v.times).toFixed(1)} ms${v.ir ? `; ${(v.ir / 1e6).toFixed(2)} M instr` : ''}`
  }))
  lines.push(`| \`--version\` (the floor) | ${versionRow.join(' | ')} |`)
  for (const [name] of hookEvents(root)) {
    const row = RULE_COUNTS.flatMap((n) => bins.map(([label]) => show(cells.find((c) => c.label === label && c.event === name && c.rules === n))))
    lines.push(`| ${name} | ${row.join(' | ')} |`)
  }
  return lines
}
