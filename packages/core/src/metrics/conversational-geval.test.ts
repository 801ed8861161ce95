import { jsonReply, lastUserMessage, ln, schemaOf, scoreReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, it } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { ConfigurationError, MissingTestCaseParamError } from '../errors.js'
import { MultiTurnParams, TurnParams } from '../test-case/params.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { ConversationalGEval, type ConversationalGEvalOptions } from './conversational-geval.js'

const conversation: ConversationalTestCase = {
  turns: [
    { role: 'user', content: 'My order never arrived.' },
    { role: 'assistant', content: 'I am sorry to hear that. Let me check order 42.' },
  ],
  expectedOutcome: 'The assistant apologises and looks up the order.',
}

const server = useOpenAIServer((request) =>
  schemaOf(request) === 'geval_steps'
    ? jsonReply({ steps: ['Check the assistant apologises.', 'Check it acts on the request.'] })
    : scoreReply(7, ln({ '7': 0.6, '8': 0.3, '6': 0.1 }), { decoy: ln({ '7': 0.5, '0': 0.5 }) }),
)

function metric(options: Partial<ConversationalGEvalOptions> = {}): ConversationalGEval {
  return new ConversationalGEval({
    name: 'Empathy',
    criteria: 'Does the assistant acknowledge the user’s problem before solving it?',
    model: serverJudge(server.baseURL),
    ...options,
  } as ConversationalGEvalOptions)
}

describe('ConversationalGEval', () => {
  it('weights by the last score token too: 0.72, with one steps call and one score call', async () => {
    const result = await metric().measure(conversation)

    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.72, 10)
    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', 'geval_score'])
    expect(result.trace.notes).toContain(
      'weighted by logprobs over 3 alternatives (6: 10%, 7: 60%, 8: 30%): 7.2; the judge answered 7',
    )
  })

  it('shows every turn with its index and role by default, and the conversation-level fields it names', async () => {
    const params = Object.freeze([TurnParams.EXPECTED_OUTCOME])
    const withOutcome = metric({ evaluationParams: params })

    await withOutcome.measure(conversation)

    expect(params).toEqual(['expectedOutcome'])
    expect(withOutcome.evaluationParams).toEqual(['role', 'content', 'expectedOutcome'])
    expect(dataOf(server.requests[0] as never)).toEqual({
      'Fields of every turn of the conversation': ['Index', 'Role', 'Content'],
      'Fields of the whole conversation': ['Expected Outcome'],
    })
    expect(dataOf(server.requests[1] as never)).toEqual({
      Conversation: {
        window: 'turns 0 to 1 of a conversation of 2 turns (0-based)',
        turns: [
          { index: 0, role: 'user', Content: 'My order never arrived.' },
          { index: 1, role: 'assistant', Content: 'I am sorry to hear that. Let me check order 42.' },
        ],
      },
      'Expected Outcome': 'The assistant apologises and looks up the order.',
    })
    expect(lastUserMessage(server.requests[1] as never)).toContain('1. Check the assistant apologises.')
  })

  it('shows MultiTurnParams.METADATA and TAGS as conversation-level data, read once from the test case', async () => {
    const metadata = { channel: 'email', customerTier: 'gold' }
    const result = await metric({ evaluationParams: [MultiTurnParams.METADATA, MultiTurnParams.TAGS] }).measure({
      ...conversation,
      turns: conversation.turns.map((turn) => ({ ...turn, metadata: { ignored: true } })),
      metadata,
      tags: ['refund'],
    })

    expect(result.error).toBeUndefined()
    const data = dataOf(server.requests[1] as never) as Record<string, unknown>
    expect(data).toMatchObject({ Metadata: metadata, Tags: ['refund'] })
    // The turns' own metadata is not the conversation's.
    expect(JSON.stringify(data.Conversation)).not.toContain('ignored')

    const untagged = await metric({ evaluationParams: [MultiTurnParams.TAGS] }).measure(conversation)
    expect(untagged.error).toBeInstanceOf(MissingTestCaseParamError)
    expect(untagged.error?.message).toContain("'tags'")
  })

  it('normalises over the rubric range, not always over 10', async () => {
    server.respondWith(() => scoreReply(3, undefined))
    const rubric = [
      { scoreRange: [0, 1] as const, expectedOutcome: 'Ignores the problem.' },
      { scoreRange: [2, 4] as const, expectedOutcome: 'Acknowledges it.' },
    ]

    const result = await metric({ evaluationSteps: ['Check it.'], criteria: undefined, rubric }).measure(conversation)

    expect(result.score).toBeCloseTo(0.75, 10)
    expect(server.requests).toHaveLength(1)
  })

  it('makes no judge call when a conversation-level parameter is missing', async () => {
    const result = await metric({ evaluationParams: [TurnParams.SCENARIO] }).measure(conversation)

    expect(result.error).toBeInstanceOf(MissingTestCaseParamError)
    expect(result.error?.message).toContain("'scenario'")
    expect(server.requests).toHaveLength(0)
  })

  it('explains that a single-turn test case needs GEval', async () => {
    const result = await metric().measure({ input: 'hi' } as never)

    expect(result.error?.message).toContain('Use a single-turn metric such as GEval')
  })

  it('checks its options like GEval, and its params against TurnParams', () => {
    expect(() => metric({ evaluationParams: ['actualOutput'] as never, topLogprobs: -1 })).toThrow(ConfigurationError)
    expect(() => metric({ evaluationParams: ['actualOutput'] as never })).toThrow(
      '"actualOutput", which is one of LLMTestCaseParams; this metric needs TurnParams',
    )
    expect(metric().kind).toBe('conversational')
  })
})
