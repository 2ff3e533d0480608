/**
 * A small coding agent on the Vercel AI SDK, with memory rules from this
 * package's middleware. It talks to any OpenAI-compatible endpoint and has
 * one tool, `read_file`; the rules active for the files it reads (and the
 * prompt's topics) reach the model at every step.
 *
 *   npm run build
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=sk-... \
 *     node dist/examples/ai-sdk.mjs "Add paging to the customer list"
 *
 * Run it in a project with `.wave/rules/` (or `.claude/rules/`).
 * `--mode reminders` delivers conditional rules as reminder messages instead.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { z } from 'zod'
import { memoryRulesMiddleware } from 'wave-memory-rules/ai-sdk'

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const modeAt = argv.indexOf('--mode')
  const mode = modeAt >= 0 && argv[modeAt + 1] === 'reminders' ? 'reminders' : 'system-prompt'
  const prompt = (modeAt >= 0 ? [...argv.slice(0, modeAt), ...argv.slice(modeAt + 2)] : argv).join(' ')
  const workdir = process.cwd()
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:8000/v1',
    apiKey: env.OPENAI_API_KEY,
  })
  const model = wrapLanguageModel({
    model: provider.chatModel(env.OPENAI_MODEL ?? 'gpt-4o-mini'),
    middleware: memoryRulesMiddleware({ workdir, mode, onError: (e) => console.error('memory rules:', e) }),
  })
  const result = await generateText({
    model,
    system: 'You are a careful coding agent.',
    prompt,
    tools: {
      read_file: tool({
        description: 'Read a file of the project',
        inputSchema: z.object({ path: z.string().describe('path relative to the project root') }),
        execute: async ({ path: file }) => {
          const full = path.resolve(workdir, file)
          if (!full.startsWith(workdir + path.sep)) return 'refused: outside the project'
          return readFile(full, 'utf8').catch((e: Error) => `cannot read: ${e.message}`)
        },
      }),
    },
    stopWhen: stepCountIs(8),
  })
  return result.text
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
