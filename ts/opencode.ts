/**
 * The opencode plugin: `wave-memory-rules/opencode`.
 *
 * A road like the others: opencode's events become the core's agent events
 * (`Conversations.respond`), and the answers go back in opencode's forms.
 * What a tool touched (every file key, a shell command's files, a patch's),
 * what is due, the budget and the memory are the core's.
 *
 * - `session.created`: a start. Its answer (the always-on rules and the
 *   memory) is sent silently into the session (`client.session.prompt`
 *   with `noReply: true`); a second `session.created` for a session that
 *   started sends nothing.
 * - `session.compacted`: a start after a compaction: every rule the session
 *   had been given is sent again (the summary no longer holds them); a
 *   compaction of a session never seen sends them too.
 * - `tool.execute.after`, any tool: the rules the files it touched activate
 *   and the session has not been given are appended to the tool's result,
 *   so the model reads them with the file; once per session (again after a
 *   compaction). `bash` reads count (`cat src/x.ts`), as every agent's do.
 *   A write to a file whose path rule was given long ago brings it again in
 *   short form (`editDistance` tool calls; the core's default 20; 0: never),
 *   and an `enforce: warn` rule's warning comes with the call's result.
 * - `tool.execute.before`: a write or a command an `enforce: block` rule
 *   forbids is refused: the hook throws an error whose message is the rule's
 *   text, which opencode gives the model as the tool's result (the tool does
 *   not run). The only error the plugin ever throws on purpose.
 * - A subagent (the `task` tool) is a child session (`session.created` with
 *   `info.parentID`), a conversation of its own: its first message
 *   (`chat.message`) gets the always-on rules and its task's topic rules as
 *   a part of its own; its tools bring its own path rules; `session.idle` of
 *   the child drops it.
 *
 * A session this process has not seen (`opencode run --continue`, a
 * restarted server) is read back once: the rules its transcript holds since
 * the last compaction count as given, and the files its tools touched are
 * remembered for the next compaction.
 *
 * A failed send is logged with its context and not committed, so the next
 * event tries again, and the plugin keeps working. Nothing is sent when
 * there are no rules and no memory. No hook ever throws into opencode.
 *
 * opencode calls every export of a plugin module, so the module it loads
 * (`opencode.mjs`) exports only `WaveMemoryRules`.
 */
import { RuleManager } from './manager'
import { MemoryStore } from './memory'
import { collectStrings } from './session'
import { Conversations, eventMayMatter } from '../index'
import type { AgentEvent, AgentToolCall, Answer } from '../index'

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

/** A part of a message, as opencode's `chat.message` hook holds them. */
export interface OpencodePart {
  id?: string
  type: string
  text?: string
  synthetic?: boolean
  [key: string]: unknown
}

/** The hooks the plugin returns (opencode's `Hooks`, the parts we use). */
export interface OpencodeHooks {
  event(input: { event: OpencodeEvent }): Promise<void>
  'chat.message'(
    input: { sessionID: string; agent?: string; messageID?: string },
    output: { message?: any; parts: OpencodePart[] },
  ): Promise<void>
  'tool.execute.before'(
    input: { tool: string; sessionID: string; callID: string },
    output: { args?: any },
  ): Promise<void>
  'tool.execute.after'(
    input: { tool: string; sessionID: string; callID: string; args?: any },
    output: { title?: string; output: string; metadata?: any },
  ): Promise<void>
}

/** The plugin's options (`createOpencodeHooks(input, options)`). */
export interface OpencodeHooksOptions {
  /** Where user rules and memory live (default: the user's home). */
  homeDir?: string
  /** Tool calls after which a path rule comes back at a write it governs (default: the core's 20; 0: never). */
  editDistance?: number
}

/** At most this many child sessions (subagents) are remembered with their parent. */
export const MAX_CHILD_SESSIONS = 1000

/** What opencode's own tools are (the core reads any tool's file keys and command). */
const TOOL_KINDS: Record<string, AgentToolCall['kind']> = {
  read: 'read',
  edit: 'write',
  write: 'write',
  multiedit: 'write',
  patch: 'write',
  bash: 'shell',
  skill: 'skill',
}
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

/** A tool call as opencode reports it. */
const toolCall = (tool: unknown, args: unknown): AgentToolCall => {
  const name = String(tool)
  return { name, kind: TOOL_KINDS[name.toLowerCase()] ?? 'other', input: typeof args === 'object' && args !== null ? args : {} }
}

/**
 * The plugin's hooks for a project directory. `homeDir` (default: the
 * user's home) is where user rules and memory live.
 */
export async function createOpencodeHooks(input: OpencodePluginInput, options: OpencodeHooksOptions = {}): Promise<OpencodeHooks> {
  const workdir = input.directory || input.worktree || process.cwd()
  // opencode gives its model AGENTS.md (CLAUDE.md without one) by itself: left out here.
  const manager = new RuleManager({ workdir, homeDir: options.homeDir, agent: 'opencode' })
  /**
   * Every session's delivery state (the core's, bounded), with memory
   * recalled by relevance: the index of topics and the pinned entries at a
   * start (again after a compaction, with the entries given before it), the
   * entries tied to the files a tool touched.
   */
  const store = new MemoryStore({ workdir, homeDir: options.homeDir })
  const conversations = new Conversations({
    recall: { userDir: store.userDir, projectDir: store.projectDir },
    editDistance: options.editDistance,
  })
  /** Child sessions (subagents) -> their parent session, and whether they started. */
  const children = new Map<string, { parent: string; started: boolean }>()
  const key = (id: string) => {
    const child = children.get(id)
    return child ? { session: child.parent, subagent: id } : { session: id }
  }
  const event = (id: string, fields: Omit<AgentEvent, 'conversation' | 'agent'>): AgentEvent => ({ conversation: key(id), agent: 'opencode', cwd: workdir, ...fields })
  const event_ = event

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

  /**
   * A session this process has not seen (`opencode run --continue`): the
   * rules an earlier process gave it are in its transcript since the last
   * compaction; count those as given, and remember the files its tools
   * touched (for a compaction).
   */
  const restore = async (id: string) => {
    if (conversations.has(key(id))) return
    let messages: any[] = []
    try {
      if (input.client.session.messages) {
        const result: any = await input.client.session.messages({ path: { id } })
        messages = Array.isArray(result) ? result : Array.isArray(result?.data) ? result.data : []
      }
    } catch (error) {
      await log('warn', `could not read session ${id} to see which rules it has: ${String(error)}`, { sessionID: id })
    }
    const tools: AgentToolCall[] = []
    for (const m of messages) {
      for (const part of Array.isArray(m?.parts) ? m.parts : []) {
        if (part?.type === 'tool') tools.push(toolCall(part.tool, part.state?.input))
      }
    }
    conversations.restore(manager.engine, key(id), collectStrings(sinceCompaction(messages), [], 0, 8).join('\n'), tools, workdir)
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
  const deliverStart = async (id: string, how: 'startup' | 'compact', name: string) => {
    await reload()
    const answer: Answer = conversations.respond(manager.engine, event(id, { kind: 'start', how }))
    if (answer.text === '') return
    if (await send(id, answer.text, name)) conversations.commit(manager.engine, answer)
  }

  await reload()

  return {
    async event({ event }) {
      try {
        if (event?.type === 'session.created') {
          const id = event.properties?.info?.id
          const parent = event.properties?.info?.parentID
          if (typeof id === 'string' && typeof parent === 'string') {
            // A subagent: its first message gets its rules (chat.message).
            if (children.size >= MAX_CHILD_SESSIONS) children.delete(children.keys().next().value as string)
            children.set(id, { parent, started: false })
            return
          }
          if (typeof id !== 'string' || conversations.started(key(id))) return
          await deliverStart(id, 'startup', event.type)
        } else if (event?.type === 'session.idle') {
          // A subagent that finished: its conversation is dropped.
          const id = event.properties?.sessionID
          if (typeof id !== 'string' || !children.has(id)) return
          conversations.respond(manager.engine, event_(id, { kind: 'subagent-stop' }))
          children.delete(id)
        } else if (event?.type === 'session.compacted') {
          const id = event.properties?.sessionID
          if (typeof id !== 'string') return
          await restore(id)
          await deliverStart(id, 'compact', event.type)
        }
      } catch (error) {
        await log('error', `event ${event?.type}: ${String(error)}`, { event: event?.type })
      }
    },

    async 'chat.message'(message, output) {
      try {
        const id = message?.sessionID
        const child = typeof id === 'string' ? children.get(id) : undefined
        if (!child || child.started || !Array.isArray(output?.parts)) return
        child.started = true
        // The subagent's task: the text of its first message.
        const task = output.parts
          .filter((p) => p?.type === 'text' && typeof p.text === 'string' && !p.synthetic)
          .map((p) => p.text)
          .join('\n')
        await reload()
        const answer = conversations.respond(manager.engine, event_(id, { kind: 'subagent-start', prompt: task }))
        if (answer.text === '') return
        const first = output.parts[0]
        const part: OpencodePart = { ...first, type: 'text', text: answer.text, synthetic: true }
        if (typeof first?.id === 'string') part.id = `${first.id}w`
        output.parts.push(part)
        conversations.commit(manager.engine, answer)
      } catch (error) {
        await log('error', `chat.message: ${String(error)}`, { sessionID: message?.sessionID })
      }
    },

    async 'tool.execute.before'(call, output) {
      let refusal: string | undefined
      try {
        if (typeof call?.sessionID !== 'string') return
        const before = event(call.sessionID, { kind: 'tool-before', tools: [toolCall(call.tool, output?.args)] })
        if (!eventMayMatter(before)) return
        await reload()
        refusal = conversations.respond(manager.engine, before).refusal ?? undefined
      } catch (error) {
        // A failure of ours never refuses a tool.
        await log('error', `tool.execute.before ${call?.tool}: ${String(error)}`, { tool: call?.tool, sessionID: call?.sessionID })
        return
      }
      if (refusal) throw new Error(refusal)
    },

    async 'tool.execute.after'(call, output) {
      try {
        if (!output || typeof output.output !== 'string' || typeof call?.sessionID !== 'string') return
        const toolDone = event(call.sessionID, { kind: 'tool-done', tools: [toolCall(call.tool, call.args)] })
        // A tool that touched no file and named no skill: nothing to load.
        if (!eventMayMatter(toolDone)) return
        await reload()
        await restore(call.sessionID)
        const answer = conversations.respond(manager.engine, toolDone)
        if (answer.text === '') return
        output.output = `${output.output}\n\n${answer.text}`
        conversations.commit(manager.engine, answer)
      } catch (error) {
        await log('error', `tool.execute.after ${call?.tool}: ${String(error)}`, { tool: call?.tool, sessionID: call?.sessionID })
      }
    },
  }
}

/**
 * The opencode plugin function, with the defaults. For options, a plugin
 * file of your own: `export const Rules = (input) => createOpencodeHooks(input, { editDistance: 10 })`.
 */
export const WaveMemoryRules = async (input: OpencodePluginInput): Promise<OpencodeHooks> => createOpencodeHooks(input)
