/**
 * A small AIManager-like class that sends chat requests to an
 * OpenAI-compatible HTTP endpoint, wired with `withMemoryRules`.
 *
 *   npm run build
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=sk-... \
 *     node dist/examples/agent-sdk.js "Add paging to @src/api/customers.ts"
 *
 * Run it in a project with `.wave/rules/`: the rules active for the files the
 * conversation mentions (and the prompt's topics) go into the system prompt.
 * `--mode reminders` delivers conditional rules as reminder messages instead.
 */
import { withMemoryRules } from 'wave-memory-rules'
import type { AIManagerLike } from 'wave-memory-rules'

export interface ChatMessage {
  role: string
  content: string | null
  [key: string]: unknown
}

export interface ChatOptions {
  /** e.g. `http://127.0.0.1:8000/v1`; requests go to `${baseURL}/chat/completions`. */
  baseURL: string
  model: string
  apiKey?: string
  systemPrompt?: string
}

/** Holds the conversation, as the SDK's message manager does. */
export class MessageManager {
  readonly #messages: ChatMessage[] = []
  getMessages(): ChatMessage[] {
    return this.#messages
  }
  addMessage(message: unknown): void {
    this.#messages.push(message as ChatMessage)
  }
}

/** The SDK's AIManager shape: messages, system-prompt hooks, sendAIMessage. */
export class ChatAIManager implements AIManagerLike {
  readonly messageManager = new MessageManager()
  readonly #hooks: Array<(systemPrompt: string) => string | Promise<string>> = []

  constructor(readonly options: ChatOptions) {}

  addSystemPromptHook(hook: (systemPrompt: string) => string | Promise<string>): void {
    this.#hooks.push(hook)
  }

  /** Sends the conversation; appends and returns the assistant's reply. */
  async sendAIMessage(): Promise<string> {
    let system = this.options.systemPrompt ?? 'You are a careful coding agent.'
    for (const hook of this.#hooks) system = await hook(system)
    const response = await fetch(`${this.options.baseURL.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.options.model,
        messages: [{ role: 'system', content: system }, ...this.messageManager.getMessages()],
      }),
    })
    if (!response.ok) throw new Error(`chat request failed: HTTP ${response.status}`)
    const data = (await response.json()) as { choices?: Array<{ message?: ChatMessage }> }
    const reply = data.choices?.[0]?.message ?? { role: 'assistant', content: '' }
    this.messageManager.addMessage(reply)
    return reply.content ?? ''
  }
}

/** `node agent-sdk.js [--mode reminders] "prompt"`, in the project's directory. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const modeAt = argv.indexOf('--mode')
  const mode = modeAt >= 0 && argv[modeAt + 1] === 'reminders' ? 'reminders' : 'system-prompt'
  const prompt = (modeAt >= 0 ? [...argv.slice(0, modeAt), ...argv.slice(modeAt + 2)] : argv).join(' ')
  const ai = new ChatAIManager({
    baseURL: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:8000/v1',
    model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
    apiKey: env.OPENAI_API_KEY,
  })
  const rules = withMemoryRules(ai, { workdir: process.cwd(), mode, onError: (e) => console.error('memory rules:', e) })
  ai.messageManager.addMessage({ role: 'user', content: prompt })
  const reply = await ai.sendAIMessage()
  for (const line of rules.onStop()) console.error(`reminder: ${line}`)
  return reply
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (reply) => console.log(reply),
    (error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exitCode = 1
    },
  )
}
