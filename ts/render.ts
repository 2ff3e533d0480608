/**
 * The exact prompt text for a set of active rules.
 *
 * Layout: rules a prompt topic activated come first, as constraints, then the
 * other active rules; each rule is `[id] content`; project memory (if given)
 * comes after the rules section.
 *
 * ```
 * === MANDATORY RULES ===
 * [database.md] The customer table is read-only.
 * ===========================
 *
 * ## Rules
 * [general.md] Keep functions small.
 *
 * (left out to fit the budget: big.md)
 * ```
 *
 * Deterministic: the same input gives the same bytes. With `previousOrder`
 * (the `order` of the previous render), rules already present keep their
 * places and a newly active rule is appended after them, so a prompt cache
 * keeps its prefix.
 *
 * Budget: `maxLines` and/or `maxBytes` (UTF-8) bound the whole rules section.
 * User rules never take more than half of what the entries can use (the
 * budget less the section headings), even when the rest is unused; project
 * rules get everything the user rules leave. Rules are kept whole and chosen highest priority first
 * (priority, then project before user, then id); when any are left out, one
 * closing line names their ids.
 */
import type { MemoryRule } from '../index'

export const MANDATORY_HEADER = '=== MANDATORY RULES ==='
export const MANDATORY_FOOTER = '==========================='
export const RULES_HEADING = '## Rules'

export interface RenderOptions {
  /** Ids of the rules a prompt topic activated: rendered first, as constraints. */
  topicRuleIds?: Iterable<string>
  /** The `order` of the previous render: those rules keep their places. */
  previousOrder?: readonly string[]
  /** At most this many lines for the rules section. */
  maxLines?: number
  /** At most this many UTF-8 bytes for the rules section. */
  maxBytes?: number
  /** Project memory text, placed after the rules section. */
  memory?: string
}

export interface RenderPlan {
  /** The full text: rules section, then memory. */
  text: string
  /** Ids in the order rendered; pass as `previousOrder` next time. */
  order: string[]
  /** Ids left out to fit the budget. */
  omitted: string[]
}

/** The prompt text for `rules`; see the module comment for the layout. */
export function renderRules(rules: readonly MemoryRule[], options: RenderOptions = {}): string {
  return planRules(rules, options).text
}

/** `renderRules`, with the order used and the ids left out. */
export function planRules(rules: readonly MemoryRule[], options: RenderOptions = {}): RenderPlan {
  const topic = new Set(options.topicRuleIds ?? [])
  const unique = dedupe(rules)
  const included = selectWithinBudget(unique, topic, options)
  const omitted = unique.filter((r) => !included.has(r.id)).map((r) => r.id)
  const ordered = stableOrder(unique.filter((r) => included.has(r.id)), options.previousOrder)
  const section = layout(ordered, topic, omitted)
  const memory = options.memory?.trim() ?? ''
  const text = [section, memory].filter((t) => t !== '').join('\n\n')
  return { text, order: ordered.map((r) => r.id), omitted }
}

/**
 * Rules in `previousOrder` keep their relative order, first; the others
 * follow in the order given.
 */
export function stableOrder<T extends { id: string }>(rules: readonly T[], previousOrder: readonly string[] = []): T[] {
  const rank = new Map(previousOrder.map((id, i) => [id, i]))
  const known = rules.filter((r) => rank.has(r.id)).sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)
  return [...known, ...rules.filter((r) => !rank.has(r.id))]
}

function dedupe(rules: readonly MemoryRule[]): MemoryRule[] {
  const seen = new Set<string>()
  return rules.filter((r) => !seen.has(r.id) && (seen.add(r.id), true))
}

const entry = (r: MemoryRule) => `[${r.id}] ${r.content}`

function layout(ordered: readonly MemoryRule[], topic: ReadonlySet<string>, omitted: readonly string[]): string {
  const mandatory = ordered.filter((r) => topic.has(r.id))
  const others = ordered.filter((r) => !topic.has(r.id))
  const blocks: string[] = []
  if (mandatory.length) blocks.push([MANDATORY_HEADER, ...mandatory.map(entry), MANDATORY_FOOTER].join('\n'))
  if (others.length) blocks.push([RULES_HEADING, ...others.map(entry)].join('\n'))
  if (omitted.length) blocks.push(`(left out to fit the budget: ${omitted.join(', ')})`)
  return blocks.join('\n\n')
}

interface Cost {
  lines: number
  bytes: number
}

const measure = (text: string): Cost => ({
  lines: text === '' ? 0 : text.split('\n').length,
  bytes: Buffer.byteLength(text, 'utf8'),
})

/** Priority descending, then project before user, then id. */
function byPriority(a: MemoryRule, b: MemoryRule): number {
  const pa = a.metadata.priority ?? 0
  const pb = b.metadata.priority ?? 0
  if (pa !== pb) return pb - pa
  if (a.source !== b.source) return a.source === 'project' ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** The cost of one entry inside a section (its lines, its bytes and a newline). */
const entryCost = (r: MemoryRule): Cost => ({ lines: measure(entry(r)).lines, bytes: Buffer.byteLength(entry(r), 'utf8') + 1 })

function selectWithinBudget(rules: readonly MemoryRule[], topic: ReadonlySet<string>, o: RenderOptions): Set<string> {
  const limit: Cost = { lines: o.maxLines ?? Infinity, bytes: o.maxBytes ?? Infinity }
  const fits = (c: Cost) => c.lines <= limit.lines && c.bytes <= limit.bytes
  if (limit.lines === Infinity && limit.bytes === Infinity) return new Set(rules.map((r) => r.id))
  const candidates = [...rules].sort(byPriority)
  // User rules may use at most half of what the entries can use: the budget
  // less the headers of the sections that have candidates.
  const frame: string[] = []
  if (candidates.some((r) => topic.has(r.id))) frame.push(`${MANDATORY_HEADER}\n${MANDATORY_FOOTER}`)
  if (candidates.some((r) => !topic.has(r.id))) frame.push(RULES_HEADING)
  const framing = measure(frame.join('\n\n'))
  const userCap: Cost = { lines: Math.floor((limit.lines - framing.lines) / 2), bytes: Math.floor((limit.bytes - framing.bytes) / 2) }
  const omittedBy = (chosen: readonly MemoryRule[]) => candidates.filter((r) => !chosen.includes(r)).map((r) => r.id)
  // The closing line names what is left out, so it depends on the choice:
  // choose with last round's closing line until the choice is stable.
  let guess: string[] = []
  let chosen: MemoryRule[] = []
  for (let round = 0; round < 5; round++) {
    chosen = []
    const user: Cost = { lines: 0, bytes: 0 }
    for (const r of candidates) {
      const cost = entryCost(r)
      const isUser = r.source === 'user'
      if (isUser && (user.lines + cost.lines > userCap.lines || user.bytes + cost.bytes > userCap.bytes)) continue
      const trial = [...chosen, r]
      if (!fits(measure(layout(trial, topic, guess.filter((id) => id !== r.id))))) continue
      chosen = trial
      if (isUser) {
        user.lines += cost.lines
        user.bytes += cost.bytes
      }
    }
    const omitted = omittedBy(chosen)
    if (omitted.join('\0') === guess.join('\0')) break
    guess = omitted
  }
  // Last guard: drop the lowest-priority rules until the text fits.
  while (chosen.length && !fits(measure(layout(chosen, topic, omittedBy(chosen))))) chosen = chosen.slice(0, -1)
  return new Set(chosen.map((r) => r.id))
}
