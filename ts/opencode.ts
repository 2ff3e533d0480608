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
import { RuleManager } from './manager'
import { MemoryStore } from './memory'
import { collectStrings } from './session'
import { DeliverySession, toolInputFiles } from '../index'
import type { Due } from '../index'

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

/** opencode's tools that read or change one file. */
export const FILE_TOOLS = new Set(['read', 'edit', 'write', 'multiedit', 'patch'])
/** The rules section's budget, as the Claude Code hooks use. */
export const MAX_BYTES = 9_000
const SERVICE = 'wave-memory-rules'

/** The messages after the latest compaction summary. */
function sinceCompaction(messages: any[]): any[] {
  let start = 0
  messages.forEach((m, i) => {
    const summary = m?.info?.summary === true || (Array.isArray(m?.parts) && m.parts.some((p: any) => p?.type === 'compaction'))
    if (summary) start = i
  })
  return messages.slice(start)
}

/** The files a tool call names (the core's keys), when it is a file tool. */
const filesOf = (tool: unknown, args: unknown): string[] =>
  FILE_TOOLS.has(String(tool).toLowerCase()) && typeof args === 'object' && args !== null ? toolInputFiles(args) : []

/**
 * The plugin's hooks for a project directory. `homeDir` (default: the
 * user's home) is where user rules and memory live.
 */
export async function createOpencodeHooks(input: OpencodePluginInput, options: { homeDir?: string } = {}): Promise<OpencodeHooks> {
  const workdir = input.directory || input.worktree || process.cwd()
  const manager = new RuleManager({ workdir, homeDir: options.homeDir })
  const memory = new MemoryStore({ workdir, homeDir: options.homeDir })
  /** Per session: what it was given (the core's session), and whether its transcript was read back. */
  const sessions = new Map<string, { delivery: DeliverySession; restored: boolean }>()
  const record = (id: string) => {
    let r = sessions.get(id)
    if (!r) sessions.set(id, (r = { delivery: new DeliverySession(), restored: false }))
    return r
  }
  const budget = { maxBytes: MAX_BYTES }

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

  const memoryText = async () => {
    try {
      return await memory.loadForPrompt({ maxLines: 120 })
    } catch {
      return ''
    }
  }

  /**
   * A session this process has not seen (`opencode run --continue`): the
   * rules an earlier process gave it are in its transcript since the last
   * compaction; count those as given, and remember the files its tools
   * touched (for a compaction).
   */
  const restore = async (id: string, r: { delivery: DeliverySession; restored: boolean }) => {
    if (r.restored || !input.client.session.messages) return
    r.restored = true
    try {
      const result: any = await input.client.session.messages({ path: { id } })
      const messages = Array.isArray(result) ? result : Array.isArray(result?.data) ? result.data : []
      const files: string[] = []
      for (const m of messages) {
        for (const part of Array.isArray(m?.parts) ? m.parts : []) {
          if (part?.type === 'tool') files.push(...filesOf(part.tool, part.state?.input))
        }
      }
      // Seen, not delivered: the due text is dropped.
      r.delivery.filesTouched(manager.engine, files, budget)
      r.delivery.restore(manager.engine, collectStrings(sinceCompaction(messages), [], 0, 8).join('\n'))
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

  /** Sends what a session start makes due; delivered only when the send went through. */
  const deliverStart = async (id: string, how: 'startup' | 'compact', event: string) => {
    await reload()
    const r = record(id)
    const due: Due = r.delivery.start(manager.engine, how, await memoryText(), budget)
    if (due.text === '') return
    if (await send(id, due.text, event)) r.delivery.commit(manager.engine, due)
  }

  await reload()

  return {
    async event({ event }) {
      try {
        if (event?.type === 'session.created') {
          const id = event.properties?.info?.id
          if (typeof id !== 'string' || sessions.get(id)?.delivery.started) return
          record(id).restored = true // a new session has no earlier transcript
          await deliverStart(id, 'startup', event.type)
        } else if (event?.type === 'session.compacted') {
          const id = event.properties?.sessionID
          if (typeof id !== 'string') return
          await restore(id, record(id))
          await deliverStart(id, 'compact', event.type)
        }
      } catch (error) {
        await log('error', `event ${event?.type}: ${String(error)}`, { event: event?.type })
      }
    },

    async 'tool.execute.after'(call, output) {
      try {
        if (!output || typeof output.output !== 'string' || typeof call?.sessionID !== 'string') return
        const files = filesOf(call.tool, call.args)
        if (files.length === 0) return
        await reload()
        const r = record(call.sessionID)
        await restore(call.sessionID, r)
        const due = r.delivery.filesTouched(manager.engine, files, budget)
        if (due.text === '') return
        output.output = `${output.output}\n\n${due.text}`
        r.delivery.commit(manager.engine, due)
      } catch (error) {
        await log('error', `tool.execute.after ${call?.tool}: ${String(error)}`, { tool: call?.tool, sessionID: call?.sessionID })
      }
    },
  }
}

/** The opencode plugin function. */
export const WaveMemoryRules = async (input: OpencodePluginInput): Promise<OpencodeHooks> => createOpencodeHooks(input)
