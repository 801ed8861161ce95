import { createOpenAI } from '@ai-sdk/openai'
import { JudgeCallError } from '@judgetree/core'
import { jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { DAGMetric } from '../../core/src/index.js'
import { MEETING, meetingSummary, meetingSummaryDag } from '../../core/test/support/walkthroughs.js'
import { type AiSdkJudgeOptions, aiSdkJudge } from '../src/index.js'

// What aiSdkJudge retries, and what its messages say when a call fails: worded from what happened, not from the
// options. The AI SDK's first retry waits 2 s, so some of these tests take that long.

const server = useOpenAIServer()
const API_KEY = 'sk-test-retries-0123456789abcdef'

function judge(options: AiSdkJudgeOptions = {}) {
  return aiSdkJudge(createOpenAI({ baseURL: server.baseURL, apiKey: API_KEY }).chat('gpt-4.1'), options)
}

const answer = (prompt: string) =>
  prompt.includes(MEETING.extract)
    ? jsonReply({ output: 'Intro, Body, Conclusion' })
    : prompt.includes(MEETING.present)
      ? jsonReply({ reason: 'All three.', verdict: true })
      : jsonReply({ reason: 'In order.', verdict: 'Yes' })
const promptOf = (request: { body: { messages: readonly { role: string; content: string }[] } }) =>
  request.body.messages.find((message) => message.role === 'user')?.content ?? ''

describe('aiSdkJudge retries', () => {
  test('a 200 answer whose body was cut short is retried, as OpenAIJudge does, and the measurement passes', async () => {
    let truncated = 0
    server.respondWith((request) => {
      const reply = answer(promptOf(request))
      // The first call's body is cut in half: invalid JSON after a 200.
      if (truncated === 0) {
        truncated += 1
        return { ...reply, truncateBody: true }
      }
      return reply
    })
    const result = await new DAGMetric({
      name: 'Format Correctness',
      dag: meetingSummaryDag(),
      model: judge({ maxRetries: 1 }),
    }).measure(meetingSummary)
    expect(result.error?.message).toBeUndefined()
    expect(result.score).toBe(1)
    // Three judge calls, one of them twice.
    expect(server.requests).toHaveLength(4)
  })

  test('a body cut short every time fails after the retries, saying so', async () => {
    server.respondWith((request) => ({ ...answer(promptOf(request)), truncateBody: true }))
    const error = await judge({ maxRetries: 0 })
      .generate({
        messages: [{ role: 'user', content: MEETING.present }],
        schema: z.object({ reason: z.string(), verdict: z.boolean() }),
        schemaName: 'binary_verdict',
        promptVersion: 'test@1',
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "gpt-4.1" (AI SDK provider openai.chat) answered HTTP 200 with a truncated body (not valid JSON), after 0 retries. A proxy, a load balancer or the server cut the answer short. Raise maxRetries if it keeps happening."`,
    )
  })

  test('with timeoutMs below the first retry’s wait: one warning up front, and a fast 500 says it was not retried and why', async () => {
    const warnings: string[] = []
    const slowRetries = judge({ timeoutMs: 1500, warn: (text) => warnings.push(text) })
    expect(warnings).toEqual([
      'judgetree: The judge model "gpt-4.1" (AI SDK provider openai.chat) has timeoutMs 1500, no longer than the ' +
        "first retry's wait (2000 ms, the AI SDK's backoff): a failed call is never retried, since the retry would " +
        'start after the call was abandoned. Raise timeoutMs above 2000 ms, or pass maxRetries: 0.',
    ])
    server.respondWith(() => ({ status: 500, error: { message: 'boom' } }))
    const started = Date.now()
    const result = await new DAGMetric({ name: 'Format', dag: meetingSummaryDag(), model: slowRetries }).measure(
      meetingSummary,
    )
    // The failure is told at once: waiting for a retry that could never start would only hold the test up.
    expect(Date.now() - started).toBeLessThan(1500)
    expect(server.requests).toHaveLength(1)
    expect(result.error?.message).toMatchInlineSnapshot(`
      "TaskNode (instructions: "Extract all headings in \`actual_output\`") failed: The judge model "gpt-4.1" (AI SDK provider openai.chat) answered HTTP 500: boom
      It was not retried: the next retry was due in 2000 ms, after timeoutMs (1500 ms) would have ended the call. Raise timeoutMs above the wait, or pass maxRetries: 0."
    `)
    expect(result.error?.message).not.toContain('did not answer within')
    expect(result.error?.message).not.toContain('after 2 retries')
    // Said once, when the judge is made, not at each call; and not at all when no retries are wanted.
    judge({ timeoutMs: 1500, maxRetries: 0, warn: (text) => warnings.push(text) })
    expect(warnings).toHaveLength(1)
  })

  test('a connection reset with a short timeoutMs is named as such, with the retries actually made', async () => {
    server.respondWith(() => ({ resetConnection: true }))
    const result = await new DAGMetric({
      name: 'Format',
      dag: meetingSummaryDag(),
      model: judge({ timeoutMs: 1500, warn: () => {} }),
    }).measure(meetingSummary)
    expect(result.error?.message).toMatch(
      /could not be reached at 127\.0\.0\.1:\d+, after 0 retries: .+\. It was not retried: the next retry was due in 2000 ms, after timeoutMs \(1500 ms\) would have ended the call\./,
    )
  })

  test('a timeout after a failed attempt says how many retries were made and what the attempt before met', async () => {
    let calls = 0
    server.respondWith(() => {
      calls += 1
      return calls === 1 ? { status: 503, error: { message: 'overloaded' } } : { ...jsonReply({}), delayMs: 5_000 }
    })
    const result = await new DAGMetric({
      name: 'Format',
      dag: meetingSummaryDag(),
      model: judge({ timeoutMs: 2_600, maxRetries: 2 }),
    }).measure(meetingSummary)
    expect(server.requests).toHaveLength(2)
    expect(result.error?.message).toContain(
      'did not answer within 2600 ms (timeoutMs), after 1 retry (the attempt before failed: overloaded). Raise timeoutMs',
    )
  })
})
