import { concurrencyProbe, jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, it, vi } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { ConfigurationError } from '../errors.js'
import { CONVERSATION_RELEVANCY_PROMPT } from '../prompts/conversation-relevancy.js'
import { DATA_OPEN } from '../prompts/shared.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import {
  ConversationRelevancyMetric,
  type ConversationRelevancyMetricOptions,
  TurnRelevancyMetric,
} from './conversation-relevancy.js'

const conversation: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'Hi!' },
    { role: 'assistant', content: 'Hello! How can I help?' },
    { role: 'user', content: 'What is your refund policy?' },
    { role: 'assistant', content: 'Refunds are possible within 30 days.' },
    { role: 'user', content: 'Does that include sale items?' },
    { role: 'assistant', content: 'Our new sneakers come in blue.' },
    { role: 'user', content: 'That is not what I asked.' },
    { role: 'assistant', content: 'Sorry: sale items can be refunded within 14 days.' },
    { role: 'user', content: 'Thanks.' },
  ],
}

type Reply = { 'Reply to judge': { index: number; content: string } }
const replyIndex = (request: Parameters<typeof dataOf>[0]) => (dataOf(request) as Reply)['Reply to judge'].index

const server = useOpenAIServer((request) =>
  replyIndex(request) === 5
    ? jsonReply({ reason: 'It talks about sneakers, not sale-item refunds.', relevant: false })
    : jsonReply({ reason: 'It answers the user.', relevant: true }),
)

function metric(options: ConversationRelevancyMetricOptions = {}) {
  return new ConversationRelevancyMetric({ model: serverJudge(server.baseURL), ...options })
}

describe('ConversationRelevancyMetric', () => {
  it('scores one irrelevant reply of four as 0.75, with one judge call per reply, naming the turn', async () => {
    const result = await metric().measure(conversation)

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.75)
    expect(server.requests).toHaveLength(4)
    expect(server.requests.map(replyIndex).sort()).toEqual([1, 3, 5, 7])
    expect(result.usage.judgeCalls).toBe(4)
    expect(result.reason).toBe(
      '3 of 4 replies were relevant; irrelevant: turn 5 (It talks about sneakers, not sale-item refunds.).',
    )
    expect(result.trace.nodes.map((node) => [node.label, node.verdict, node.turnWindow])).toEqual([
      ['turn 1', 'relevant', [0, 1]],
      ['turn 3', 'relevant', [0, 3]],
      ['turn 5', 'irrelevant', [0, 5]],
      ['turn 7', 'relevant', [2, 7]],
    ])
  })

  it('shows the judge the window before the reply, then the reply', async () => {
    await metric({ windowSize: 1 }).measure(conversation)

    const request = server.requests.find((candidate) => replyIndex(candidate) === 7)
    expect(dataOf(request as never)).toEqual({
      'Turns before the reply': [{ index: 6, role: 'user', content: 'That is not what I asked.' }],
      'Reply to judge': { index: 7, role: 'assistant', content: 'Sorry: sale items can be refunded within 14 days.' },
    })
  })

  it('asks whether the reply addresses the user: extra material in a reply that answers is not irrelevance', async () => {
    await metric({ windowSize: 1 }).measure(conversation)

    const prompt = server.requests[0]?.body.messages.find((message) => message.role === 'user')?.content ?? ''
    expect(prompt.split(`\n\n${DATA_OPEN}`)[0]).toMatchInlineSnapshot(`
      "The data holds the recent turns of a conversation between a user and an AI assistant (each with its 0-based
      index and role), then the assistant reply to judge.

      Decide whether the reply is relevant: whether it addresses the user's latest message, read with the earlier
      turns as context. A reply that responds to that message is relevant even when it is brief, partial or
      imperfect, asks a clarifying question, or is a light answer to small talk or a greeting. Material added to a
      reply that does address the user (a greeting, an offer or upsell, a related suggestion) does not make it
      irrelevant. It is irrelevant only when it does not address the user's message at all: it ignores it, or talks
      about something else instead. If no user turn precedes the reply, judge whether it is a sensible way for the
      assistant to open.

      Answer with a short "reason" first, then "relevant": true or false."
    `)
    // The wording is part of the cache key: answers recorded for the old meaning are not reused.
    expect(CONVERSATION_RELEVANCY_PROMPT).toBe('conversation-relevancy@2')
  })

  it('re-asks on an invalid verdict and still counts the reply', async () => {
    server.respondWith((request) =>
      request.index === 0
        ? jsonReply({ reason: 'Unsure.', relevant: 'maybe' })
        : jsonReply({ reason: 'It answers the user.', relevant: true }),
    )

    const result = await metric({ asyncMode: false }).measure(conversation)

    expect(server.requests).toHaveLength(5)
    expect(result.score).toBe(1)
    expect(result.reason).toBe('All 4 replies were relevant.')
    expect(result.trace.nodes[0]?.usage?.judgeCalls).toBe(1)
  })

  it('fails the measurement when a verdict stays invalid, rather than dropping the reply', async () => {
    server.respondWith(() => jsonReply({ reason: 'Unsure.', relevant: 'maybe' }))

    const result = await metric({ asyncMode: false }).measure(conversation)

    expect(result).toMatchObject({ score: 0, success: false })
    expect(result.error?.code).toBe('JUDGE_OUTPUT_INVALID')
    expect(result.error?.message).toMatchInlineSnapshot(`
      "Judging the reply at turn 1 failed: The judge model "gpt-4.1" did not answer with valid "reply_relevancy" JSON, even after being asked again: it does not match the schema:
      ✖ Invalid input: expected boolean, received string
        → at relevant
      Raw answer: "{\\"reason\\":\\"Unsure.\\",\\"relevant\\":\\"maybe\\"}""
    `)
    expect(server.requests).toHaveLength(2)
    expect(result.trace.nodes.map((node) => node.status)).toEqual(['failed', 'skipped', 'skipped', 'skipped'])
  })

  it('judges the replies concurrently in asyncMode and one at a time otherwise', async () => {
    for (const asyncMode of [true, false]) {
      const probe = concurrencyProbe(30)
      server.respondWith(async () => {
        await probe.hold()
        return jsonReply({ reason: 'Fine.', relevant: true })
      })
      await metric({ asyncMode }).measure(conversation)
      expect(probe.max).toBe(asyncMode ? 4 : 1)
    }
  })

  it('is a clear error, with no judge call, when there is no assistant reply', async () => {
    const result = await metric().measure({ turns: [{ role: 'user', content: 'Hello?' }] })

    expect(result.error?.code).toBe('TEST_CASE_INVALID')
    expect(result.error?.message).toContain('the conversation has none')
    expect(server.requests).toHaveLength(0)
  })

  it('in strict mode turns 0.75 into 0 against a threshold of 1', async () => {
    const result = await metric({ strictMode: true }).measure(conversation)

    expect(result).toMatchObject({ score: 0, threshold: 1, success: false })
  })

  it('leaves the reason out when includeReason is false, and renders a readable trace', async () => {
    const result = await metric({ includeReason: false, name: 'Relevancy' }).measure(conversation)

    expect(result.reason).toBeUndefined()
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Step "turn 1": Hello! How can I help? · turns 0–1 → relevant · 1 judge call
           reason: It answers the user.
      [2] Step "turn 3": Refunds are possible within 30 days. · turns 0–3 → relevant · 1 judge call
           reason: It answers the user.
      [3] Step "turn 5": Our new sneakers come in blue. · turns 0–5 → irrelevant · 1 judge call
           reason: It talks about sneakers, not sale-item refunds.
      [4] Step "turn 7": Sorry: sale items can be refunded within 14 days. · turns 2–7 → relevant · 1 judge call
           reason: It answers the user.
      note: 3 of 4 replies were relevant: 0.75
      note: each reply was judged on a window of up to 3 exchanges ending at it"
    `)
  })

  it('prints the summary, reason and trace once when built with verboseMode', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    try {
      const result = await metric({ verboseMode: true }).measure(conversation)

      expect(log).toHaveBeenCalledTimes(1)
      const printed = String(log.mock.calls[0]?.[0])
      expect(printed).toContain('PASS Conversation Relevancy: score 0.75 (threshold 0.5)')
      expect(printed).toContain(result.verboseLogs)
    } finally {
      log.mockRestore()
    }
  })

  it('is also exported as TurnRelevancyMetric, with the reference window of 10, and checks its options', () => {
    const turnRelevancy = new TurnRelevancyMetric({ model: serverJudge(server.baseURL) })
    expect(turnRelevancy).toBeInstanceOf(ConversationRelevancyMetric)
    expect(turnRelevancy).toMatchObject({ name: 'Conversation Relevancy', windowSize: 10, kind: 'conversational' })
    expect(new TurnRelevancyMetric({ model: serverJudge(server.baseURL), windowSize: 2 }).windowSize).toBe(2)
    expect(new ConversationRelevancyMetric({ model: serverJudge(server.baseURL) }).windowSize).toBe(3)
    expect(() => new TurnRelevancyMetric({ windowSize: null } as never)).toThrow(ConfigurationError)
    expect(() => metric({ windowSize: 0, threshold: 2 })).toThrow(ConfigurationError)
    expect(() => metric({ windowSize: 0 })).toThrow('Expected `windowSize` to be a whole number from 1 and up')
    expect(() => metric({ window_size: 2 } as never)).toThrow('did you mean `windowSize`?')
  })
})
