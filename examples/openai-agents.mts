/**
 * A small coding agent on the OpenAI Agents SDK, with memory rules from this
 * package's input filter. It talks to any OpenAI-compatible chat-completions
 * endpoint and has one tool, `read_file`; the rules active for the files it
 * reads (and the prompt's topics) reach the model at every turn.
 *
 *   npm run build
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=sk-... \
 *     node dist/examples/openai-agents.mjs "Add paging to the customer list"
 *
 * `--mode reminders` delivers conditional rules as reminder items instead.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'
import { memoryRulesInputFilter } from 'wave-memory-rules/openai-agents'

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const modeAt = argv.indexOf('--mode')
  const mode = modeAt >= 0 && argv[modeAt + 1] === 'reminders' ? 'reminders' : 'system-prompt'
  const prompt = (modeAt >= 0 ? [...argv.slice(0, modeAt), ...argv.slice(modeAt + 2)] : argv).join(' ')
  const workdir = process.cwd()
  setTracingDisabled(true)
  const client = new OpenAI({ baseURL: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:8000/v1', apiKey: env.OPENAI_API_KEY ?? 'none' })
  const readFileTool = tool({
    name: 'read_file',
    description: 'Read a file of the project',
    parameters: z.object({ path: z.string().describe('path relative to the project root') }),
    execute: async ({ path: file }) => {
      const full = path.resolve(workdir, file)
      if (!full.startsWith(workdir + path.sep)) return 'refused: outside the project'
      return readFile(full, 'utf8').catch((e: Error) => `cannot read: ${e.message}`)
    },
  })
  const agent = new Agent({
    name: 'coder',
    instructions: 'You are a careful coding agent.',
    model: new OpenAIChatCompletionsModel(client, env.OPENAI_MODEL ?? 'gpt-4o-mini'),
    tools: [readFileTool],
  })
  const rules = memoryRulesInputFilter({ workdir, mode, onError: (e) => console.error('memory rules:', e) })
  const result = await run(agent, prompt, { callModelInputFilter: rules, maxTurns: 8 })
  return String(result.finalOutput ?? '')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (reply) => console.log(reply),
    (error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exitCode = 1
    },
  )
}
