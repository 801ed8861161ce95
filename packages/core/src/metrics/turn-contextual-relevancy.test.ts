import { concurrencyProbe, jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, it } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { MissingTestCaseParamError } from '../errors.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import {
  TurnContextualRelevancyMetric,
  type TurnContextualRelevancyMetricOptions,
} from './turn-contextual-relevancy.js'

const conversation: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'What if these shoes do not fit?' },
    {
      role: 'assistant',
      content: 'You can return them within 30 days.',
      retrievalContext: ['All customers get a 30-day full refund.', 'Our CEO enjoys hiking.'],
    },
    { role: 'user', content: 'Thanks! Nice weather today.' },
    { role: 'assistant', content: 'It is!' },
    { role: 'user', content: 'Do you ship abroad?' },
    {
      role: 'assistant',
      content: 'Yes, to 40 countries.',
      retrievalContext: ['We ship to 40 countries.', 'International shipping takes 5 to 10 days.'],
    },
  ],
}

type Chunks = { 'Retrieved context': { chunk: number; text: string }[] }
const chunksOf = (request: Parameters<typeof dataOf>[0]) => (dataOf(request) as Chunks)['Retrieved context']

function answerFor(chunks: { chunk: number; text: string }[]) {
  return {
    chunks: chunks.map(({ chunk, text }) => ({
      chunk,
      statements: [
        {
          statement: text,
          reason: text.includes('CEO') ? 'Not about returns.' : 'On topic.',
          relevant: !text.includes('CEO'),
        },
      ],
    })),
  }
}

const server = useOpenAIServer((request) => jsonReply(answerFor(chunksOf(request))))

function metric(options: TurnContextualRelevancyMetricOptions = {}) {
  return new TurnContextualRelevancyMetric({ model: serverJudge(server.baseURL), ...options })
}

describe('TurnContextualRelevancyMetric', () => {
  it('averages 1/2 and 2/2 to 0.75, with one call per assistant turn that has context', async () => {
    const result = await metric().measure(conversation)

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.75)
    expect(server.requests).toHaveLength(2)
    expect(result.usage.judgeCalls).toBe(2)
    expect(server.requests.map((request) => chunksOf(request).length)).toEqual([2, 2])
    expect(result.trace.notes).toEqual([
      'mean over 2 turn(s) with retrieval context (turn 1 1/2, turn 5 2/2): 0.75',
      "each turn's context was judged against the user input in a window of up to 10 exchanges",
      'not counted (no retrieval context): turn 3',
    ])
    expect(result.reason).toBe(
      'Mean statement relevancy over 2 assistant turn(s) with retrieval context: turn 1 1/2, turn 5 2/2. ' +
        'Irrelevant: turn 1 chunk 2 “Our CEO enjoys hiking.” (Not about returns.).',
    )
  })

  it('shows the judge the turns before the reply, not the reply or earlier contexts', async () => {
    await metric({ windowSize: 1 }).measure(conversation)

    const last = server.requests.find((request) => chunksOf(request)[0]?.text === 'We ship to 40 countries.')
    expect(dataOf(last as never)).toEqual({
      Conversation: [{ index: 4, role: 'user', content: 'Do you ship abroad?' }],
      'Retrieved context': [
        { chunk: 1, text: 'We ship to 40 countries.' },
        { chunk: 2, text: 'International shipping takes 5 to 10 days.' },
      ],
    })
  })

  it('judges the turns concurrently', async () => {
    const probe = concurrencyProbe(30)
    server.respondWith(async (request) => {
      await probe.hold()
      return jsonReply(answerFor(chunksOf(request)))
    })

    await metric().measure(conversation)

    expect(probe.max).toBe(2)
  })

  it('re-asks when the judge skips a chunk, so every chunk is counted', async () => {
    server.respondWith((request) =>
      request.index === 0
        ? jsonReply(answerFor(chunksOf(request).slice(0, 1)))
        : jsonReply(answerFor(chunksOf(request))),
    )

    const result = await metric({ asyncMode: false }).measure(conversation)

    expect(server.requests).toHaveLength(3)
    expect(result.score).toBe(0.75)
  })

  it('counts an empty chunk as irrelevant without sending it', async () => {
    const turns = [
      { role: 'user' as const, content: 'Do you ship abroad?' },
      { role: 'assistant' as const, content: 'Yes.', retrievalContext: ['We ship to 40 countries.', '  '] },
    ]

    const result = await metric().measure({ turns })

    expect(chunksOf(server.requests[0] as never)).toEqual([{ chunk: 1, text: 'We ship to 40 countries.' }])
    expect(result.score).toBe(0.5)
    expect(result.trace.nodes[0]?.output).toBe(
      '✓ [chunk 1] We ship to 40 countries.\n✗ [chunk 2] (empty chunk) (the chunk is empty)',
    )
  })

  it('is a clear error, with no judge call, when no assistant turn has retrieval context', async () => {
    const result = await metric().measure({
      turns: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', retrievalContext: [] },
      ],
    })

    expect(result.error).toBeInstanceOf(MissingTestCaseParamError)
    expect(result.error?.message).toContain("'retrievalContext'")
    expect(result.error?.message).toContain('Give each assistant turn to judge the chunks it was answered from')
    expect(result.error?.message).not.toContain('remove it from')
    expect(result.error?.message).toContain('at least one assistant turn')
    expect(server.requests).toHaveLength(0)
  })

  it('fails the measurement when a turn cannot be judged, keeping the other turn in the trace', async () => {
    server.respondWith((request) =>
      chunksOf(request)[0]?.text.startsWith('We ship')
        ? { status: 400, error: { message: 'Bad request' } }
        : jsonReply(answerFor(chunksOf(request))),
    )

    const result = await metric({ asyncMode: false }).measure(conversation)

    expect(result.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(result.error?.message.replace(/127\.0\.0\.1:\d+/, 'HOST')).toMatchInlineSnapshot(
      `"Judging the retrieval context of turn 5 (its chunks 1 to 2) failed: The judge model "gpt-4.1" at HOST answered HTTP 400: Bad request"`,
    )
    expect(result.trace.nodes.map((node) => node.status)).toEqual(['ran', 'failed'])
    expect(result.usage.judgeCalls).toBe(1)
  })

  it('defaults to a window of 10 exchanges and a readable name', () => {
    expect(metric()).toMatchObject({ windowSize: 10, name: 'Turn Contextual Relevancy', threshold: 0.5 })
    expect(metric({ strictMode: true }).threshold).toBe(1)
  })
})
