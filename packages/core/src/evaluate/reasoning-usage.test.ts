// A reasoning judge's usage end to end: the local server reports cached prompt and reasoning tokens the way OpenAI
// does (`prompt_tokens_details`, `completion_tokens_details`), the real openai SDK reads them, and the result, the
// JSON report, the HTML summary, the terminal footer, the cache and calibrate() all count and price them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonReply, lastUserMessage, useOpenAIServer } from '@judgetree/test-support'
import { afterAll, describe, expect, it } from 'vitest'
import { PLAYFUL, playfulChatbotDag } from '../../test/support/walkthroughs.js'
import { calibrate } from '../calibrate/calibrate.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime, type JudgeRuntime } from '../runtime/judge-runtime.js'
import { evaluate } from './evaluate.js'

// Every call: 1,000 prompt tokens of which 800 cached, 50 completion tokens of which 40 reasoning.
const usage = { promptTokens: 1_000, cachedTokens: 800, completionTokens: 50, reasoningTokens: 40 }
const server = useOpenAIServer((request) => {
  const prompt = lastUserMessage(request)
  const answer = prompt.includes(PLAYFUL.summary)
    ? { output: 'kind' }
    : prompt.includes(PLAYFUL.satisfied)
      ? { reason: 'Answered.', verdict: true }
      : { reason: 'Tone.', verdict: 'Playful' }
  return jsonReply(answer, { usage })
})
const scratch = mkdtempSync(join(tmpdir(), 'judgetree-reasoning-usage-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

// gpt-6-luna per 1M tokens: $0.10 input, $0.01 cached input, $0.50 output. One call:
// 200 × 0.10 + 800 × 0.01 + 50 × 0.50 = 20 + 8 + 25 = 53 micro-USD. The Playful DAG makes 3 calls per conversation.
const CALL_COST = 53e-6
const conversation = (name: string) => ({
  name,
  turns: [
    { role: 'user' as const, content: `hello from ${name}` },
    { role: 'assistant' as const, content: 'hi!' },
  ],
})
const playful = (runtime: JudgeRuntime) =>
  new ConversationalDAGMetric({
    name: 'Playful',
    dag: playfulChatbotDag(),
    model: runtime.wrap(
      new OpenAIJudge({ model: 'gpt-6-luna', baseURL: server.baseURL, apiKey: 'sk-l', maxRetries: 0 }),
    ),
  })
function sink() {
  const chunks: string[] = []
  return { write: (text: string) => void chunks.push(text), text: () => chunks.join('') }
}

describe('a reasoning judge that reports cached prompt and reasoning tokens', () => {
  it('counts and prices them in the result, the JSON report, the HTML summary and the terminal footer', async () => {
    const runtime = createJudgeRuntime({ cache: 'off', concurrency: 2 })
    const outputFile = join(scratch, 'evaluation.json')
    const stdout = sink()

    const { results, summary } = await evaluate([conversation('ann'), conversation('bob')], [playful(runtime)], {
      outputFile,
      stdout,
    })

    expect(server.requests).toHaveLength(6)
    const [first] = results
    expect(first?.result.usage).toEqual({
      judgeCalls: 3,
      cachedCalls: 0,
      promptTokens: 3_000,
      completionTokens: 150,
      cachedPromptTokens: 2_400,
      reasoningTokens: 120,
      costUsd: expect.closeTo(3 * CALL_COST, 12),
    })
    expect(summary).toMatchObject({ promptTokens: 6_000, cachedPromptTokens: 4_800, reasoningTokens: 240 })
    expect(summary.costUsd).toBeCloseTo(6 * CALL_COST, 12)

    const json = JSON.parse(readFileSync(outputFile, 'utf8'))
    expect(json.summary).toMatchObject({ completionTokens: 300, cachedPromptTokens: 4_800, reasoningTokens: 240 })
    expect(json.results[1].result.usage).toMatchObject({ cachedPromptTokens: 2_400, reasoningTokens: 120 })
    expect(json.results[1].result.usage.costUsd).toBeCloseTo(3 * CALL_COST, 12)

    const html = readFileSync(join(scratch, 'evaluation.html'), 'utf8')
    expect(html).toContain('<div>6,300 (4,800 cached input, 240 reasoning)<span>tokens</span></div>')

    const printed = stdout.text()
    // The table's tokens column, then the footer: 6 × 1,050 tokens, 6 × 53 micro-USD = $0.000318.
    expect(printed).toMatch(/^Playful .* 6,300 \(4,800 cached input, 240 reasoning\) {2}\$0\.0003$/m)
    expect(printed).toContain('· 6 judge calls (0 cached) · 6300 tokens (4,800 cached input, 240 reasoning) · $0.0003')
  })

  it('keeps them in cache entries, and an answer from the cache bills none', async () => {
    const cacheDir = join(scratch, 'cache')
    const run = () =>
      evaluate([conversation('cy')], [playful(createJudgeRuntime({ cache: 'read-write', cacheDir }))], {
        summary: false,
      })

    const recorded = await run()
    const replayed = await run()

    expect(recorded.summary).toMatchObject({ cachedCalls: 0, cachedPromptTokens: 2_400, reasoningTokens: 120 })
    expect(replayed.summary).toMatchObject({ judgeCalls: 3, cachedCalls: 3, promptTokens: 0, costUsd: 0 })
    expect(replayed.summary).not.toHaveProperty('cachedPromptTokens')
    const entries = readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).filter((name) =>
      name.endsWith('.json'),
    )
    expect(entries).toHaveLength(3)
    for (const entry of entries) {
      const stored = JSON.parse(readFileSync(join(cacheDir, entry), 'utf8'))
      expect(stored.response.usage).toMatchObject({ cachedPromptTokens: 800, reasoningTokens: 40 })
    }
  })

  it("shows them in calibrate()'s summary", async () => {
    const stdout = sink()

    await calibrate(
      playful(createJudgeRuntime({ cache: 'off' })),
      [{ testCase: conversation('dee'), label: { pass: true } }],
      { stdout, progress: false },
    )

    expect(stdout.text()).toContain(
      '· 3 judge calls (0 cached) · 3,150 tokens (2,400 cached input, 120 reasoning) · $0.0002',
    )
  })
})
