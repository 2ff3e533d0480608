/**
 * The opencode plugin: `wave-memory-rules/opencode`.
 *
 * - `session.created`: the always-on rules and the memory, rendered as
 *   `renderRules` does, are sent silently into the session
 *   (`client.session.prompt` with `noReply: true`) and the session id is
 *   tracked; a second `session.created` for a tracked id sends nothing.
 * - `session.compacted`: the id is untracked, the rules are sent again
 *   (with the path rules the session had been given, which the summary no
 *   longer holds) and the id is tracked again; a compaction of a session
 *   never seen sends and tracks it.
 * - `tool.execute.after` of the tools that read or change a file (`read`,
 *   `edit`, `write`, `multiedit`, `patch`): the path rules that file
 *   activates and the session has not been given are appended to the tool's
 *   result, so the model reads them with the file; once per session (again
 *   after a compaction).
 *
 * A session this process has not seen (`opencode run --continue`, a
 * restarted server) is read back once: the rules its transcript holds since
 * the last compaction count as given, and the files its tools touched are
 * remembered for the next compaction.
 *
 * A failed send is logged with its context; the id is not tracked, so the
 * next event tries again, and the plugin keeps working. Nothing is sent when
 * there are no rules and no memory. No hook ever throws into opencode.
 *
 * opencode calls every export of a plugin module, so the module it loads
 * (`opencode.mjs`) exports only `WaveMemoryRules`.
 */
import { MemoryRuleManager } from './manager'
import { MemoryStore } from './memory'
import { planRules } from './render'
import type { MemoryRule } from '../index'

/** The part of opencode's SDK client the plugin uses. */
export interface OpencodeClientLike {
  session: {
    prompt(options: {
      path: { id: string }
      body: { noReply?: boolean; parts: Array<{ type: 'text'; text: string }> }
    }): Promise<unknown>
    /** The session's messages (`{ data: [{ info, parts }] }`). */
    messages?(options: { path: { id: string } }): Promise<unknown>
  }
  app?: {
    log?(options: { body: { service: string; level: 'debug' | 'info' | 'warn' | 'error'; message: string; extra?: Record<string, unknown> } }): Promise<unknown>
  }
}

/** The part of opencode's `PluginInput` the plugin uses. */
export interface OpencodePluginInput {
  client: OpencodeClientLike
  directory: string
  worktree?: string
}

export interface OpencodeEvent {
  type: string
  properties?: any
}

/** The hooks the plugin returns (opencode's `Hooks`, the parts we use). */
export interface OpencodeHooks {
  event(input: { event: OpencodeEvent }): Promise<void>
  'tool.execute.after'(
    input: { tool: string; sessionID: string; callID: string; args?: any },
    output: { title?: string; output: string; metadata?: any },
  ): Promise<void>
}

/** opencode's tools that read or change one file, and where they name it. */
export const FILE_TOOLS = new Set(['read', 'edit', 'write', 'multiedit', 'patch'])
const FILE_ARGS = ['filePath', 'file_path', 'path']
/** The rules section's budget, as the Claude Code hooks use. */
export const MAX_BYTES = 9_000
const SERVICE = 'wave-memory-rules'

interface SessionRecord {
  /** Path rules given since creation or the last compaction. */
  delivered: Set<string>
  /** Files the session's tools touched (for a compaction). */
  files: Set<string>
  /** The transcript was read for rules given by an earlier process. */
  restored: boolean
}

/** Every string inside a value (bounded depth). */
function strings(value: unknown, out: string[], depth = 0): void {
  if (depth > 8) return
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out, depth + 1))
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach((v) => strings(v, out, depth + 1))
}

/** The messages after the latest compaction summary. */
function sinceCompaction(messages: any[]): any[] {
  let start = 0
  messages.forEach((m, i) => {
    const summary = m?.info?.summary === true || (Array.isArray(m?.parts) && m.parts.some((p: any) => p?.type === 'compaction'))
    if (summary) start = i
  })
  return messages.slice(start)
}

/**
 * The plugin's hooks for a project directory. `homeDir` (default: the
 * user's home) is where user rules and memory live.
 */
export async function createOpencodeHooks(input: OpencodePluginInput, options: { homeDir?: string } = {}): Promise<OpencodeHooks> {
  const workdir = input.directory || input.worktree || process.cwd()
  const manager = new MemoryRuleManager({ workdir, homeDir: options.homeDir })
  const memory = new MemoryStore({ workdir, homeDir: options.homeDir })
  const tracked = new Set<string>()
  const sessions = new Map<string, SessionRecord>()
  const record = (id: string) => {
    let r = sessions.get(id)
    if (!r) sessions.set(id, (r = { delivered: new Set(), files: new Set(), restored: false }))
    return r
  }

  const log = async (level: 'warn' | 'error', message: string, extra: Record<string, unknown>) => {
    try {
      if (input.client.app?.log) {
        await input.client.app.log({ body: { service: SERVICE, level, message, extra } })
        return
      }
    } catch {
      // fall through to stderr
    }
    console.error(`[${SERVICE}] ${message}`, extra)
  }

  const reload = async () => {
    try {
      await manager.reload()
    } catch (error) {
      await log('error', `cannot load the rules: ${String(error)}`, { workdir })
    }
  }

  /** The text for a session: always-on rules, given path rules, memory. */
  const sessionText = async (id: string): Promise<{ text: string; pathRules: MemoryRule[] }> => {
    const files = [...(sessions.get(id)?.files ?? [])]
    const { unconditional, conditional } = manager.getActiveRulesSplit(files)
    let memoryText = ''
    try {
      memoryText = await memory.loadForPrompt({ maxLines: 120 })
    } catch {
      memoryText = ''
    }
    const plan = planRules([...unconditional, ...conditional], { maxBytes: MAX_BYTES, memory: memoryText })
    const given = new Set(plan.order)
    return { text: plan.text, pathRules: conditional.filter((r) => given.has(r.id)) }
  }

  /**
   * A session this process has not seen (`opencode run --continue`): the
   * rules an earlier process gave it are in its transcript since the last
   * compaction; count those as given.
   */
  const restore = async (id: string, r: SessionRecord) => {
    if (r.restored || !input.client.session.messages) return
    r.restored = true
    try {
      const result: any = await input.client.session.messages({ path: { id } })
      const messages = Array.isArray(result) ? result : Array.isArray(result?.data) ? result.data : []
      // Files its tools touched, over the whole session (for a compaction).
      for (const m of messages) {
        for (const part of Array.isArray(m?.parts) ? m.parts : []) {
          if (part?.type !== 'tool' || !FILE_TOOLS.has(String(part.tool).toLowerCase())) continue
          const args = part.state?.input ?? {}
          const file = FILE_ARGS.map((k) => args[k]).find((v) => typeof v === 'string' && v !== '')
          if (file) r.files.add(file)
        }
      }
      const found: string[] = []
      strings(sinceCompaction(messages), found)
      const transcript = found.join('\n')
      for (const rule of manager.getRules()) if (transcript.includes(`[${rule.id}] ${rule.content}`)) r.delivered.add(rule.id)
    } catch (error) {
      await log('warn', `could not read session ${id} to see which rules it has: ${String(error)}`, { sessionID: id })
    }
  }

  /** Sends `text` silently; true when it went through. */
  const send = async (id: string, text: string, event: string): Promise<boolean> => {
    try {
      const result: any = await input.client.session.prompt({
        path: { id },
        body: { noReply: true, parts: [{ type: 'text', text }] },
      })
      if (result && typeof result === 'object' && result.error) throw result.error
      return true
    } catch (error) {
      const reason = error instanceof Error ? error.message : typeof error === 'object' ? JSON.stringify(error) : String(error)
      await log('error', `could not send the rules to session ${id} on ${event}: ${reason}`, { sessionID: id, event, workdir })
      return false
    }
  }

  const deliverSession = async (id: string, event: string) => {
    await reload()
    const { text, pathRules } = await sessionText(id)
    if (text === '') return
    if (await send(id, text, event)) {
      tracked.add(id)
      const r = record(id)
      for (const rule of pathRules) r.delivered.add(rule.id)
    }
  }

  await reload()

  return {
    async event({ event }) {
      try {
        if (event?.type === 'session.created') {
          const id = event.properties?.info?.id
          if (typeof id !== 'string' || tracked.has(id)) return
          record(id).restored = true // a new session has no earlier transcript
          await deliverSession(id, event.type)
        } else if (event?.type === 'session.compacted') {
          const id = event.properties?.sessionID
          if (typeof id !== 'string') return
          tracked.delete(id)
          const r = record(id)
          await restore(id, r)
          r.delivered.clear()
          await deliverSession(id, event.type)
        }
      } catch (error) {
        await log('error', `event ${event?.type}: ${String(error)}`, { event: event?.type })
      }
    },

    async 'tool.execute.after'(call, output) {
      try {
        if (!FILE_TOOLS.has(String(call?.tool).toLowerCase()) || !output || typeof output.output !== 'string') return
        const args = call.args ?? {}
        const file = FILE_ARGS.map((k) => args[k]).find((v) => typeof v === 'string' && v !== '')
        if (!file || typeof call.sessionID !== 'string') return
        await reload()
        const r = record(call.sessionID)
        await restore(call.sessionID, r)
        r.files.add(file)
        const { conditional } = manager.getActiveRulesSplit([file])
        const fresh = conditional.filter((rule) => !r.delivered.has(rule.id))
        if (fresh.length === 0) return
        const plan = planRules(fresh, { maxBytes: MAX_BYTES })
        if (plan.text === '') return
        output.output = `${output.output}\n\n${plan.text}`
        for (const id of plan.order) r.delivered.add(id)
      } catch (error) {
        await log('error', `tool.execute.after ${call?.tool}: ${String(error)}`, { tool: call?.tool, sessionID: call?.sessionID })
      }
    },
  }
}

/** The opencode plugin function. */
export const WaveMemoryRules = async (input: OpencodePluginInput): Promise<OpencodeHooks> => createOpencodeHooks(input)
