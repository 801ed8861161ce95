// A decision run through OpenAIDecisionJudge and the real OpenAI SDK, recorded and replayed with no request, and the
// faults of /v1/decisions as a measurement reports them: each names the node, and the key never shows.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decideEach, mostProbable, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConversationalDAGMetric, OpenAIDecisionJudge, OpenAIJudge } from '../src/index.js'
import { createJudgeRuntime } from '../src/runtime.js'
import { PLAYFUL_SUMMARY } from './support/walkthrough-suite.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation, routeByPrompt } from './support/walkthroughs.js'

const KEY = 'sk-test-decision-faults-0123456789'
let server: OpenAIServer
const tmp = mkdtempSync(join(tmpdir(), 'judgetree-decision-faults-'))

beforeAll(async () => {
  server = await startOpenAIServer(routeByPrompt([[PLAYFUL.summary, PLAYFUL_SUMMARY]]))
})
afterAll(async () => {
  await server.close()
  rmSync(tmp, { recursive: true, force: true })
})

function metric(cache: 'off' | 'read-write' | 'replay', cacheDir = join(tmp, 'off')) {
  const runtime = createJudgeRuntime({ cache, cacheDir })
  const connection = { baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 }
  return new ConversationalDAGMetric({
    name: 'Playful Chatbot',
    dag: playfulChatbotDag(),
    model: runtime.wrap(new OpenAIJudge({ model: 'gpt-4.1', ...connection })),
    decisionModel: runtime.wrap(new OpenAIDecisionJudge(connection)),
  })
}

const SATISFIED_NODE = `ConversationalBinaryJudgementNode (criteria: "Do the assistant's replies`

describe('decision runs through OpenAIDecisionJudge', () => {
  test('a recorded decision run replays with no request, to the same result', async () => {
    server.decideWith(
      decideEach((question) =>
        mostProbable(question.instructions === PLAYFUL.satisfied ? true : 'Neutral', question.choices ? 0.7 : 0.8),
      ),
    )
    const cacheDir = join(tmp, 'recorded')
    server.requests.length = 0
    server.decisionRequests.length = 0
    const recorded = await metric('read-write', cacheDir).measure(playfulConversation)
    expect(recorded.error).toBeUndefined()
    expect([server.requests.length, server.decisionRequests.length]).toEqual([1, 2])

    server.requests.length = 0
    server.decisionRequests.length = 0
    const replayed = await metric('replay', cacheDir).measure(playfulConversation)
    expect([server.requests.length, server.decisionRequests.length]).toEqual([0, 0])
    expect(replayed.error).toBeUndefined()
    expect(replayed.score).toBe(recorded.score)
    expect(replayed.score).toBe(0.5)
    expect(replayed.passProbability).toEqual(recorded.passProbability)
    expect(replayed.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 3 })
    const probabilities = (result: typeof recorded) => result.trace.nodes.map((node) => node.probabilities)
    expect(probabilities(replayed)).toEqual(probabilities(recorded))
  })

  test.each([
    [
      'a missing answer',
      () => ({
        rawBody: JSON.stringify({
          model: 'gpt-6-luna',
          answers: [],
          usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, total_tokens: 20 },
        }),
      }),
      /returned 0 answers for 1 question; the Decisions API answers every question/,
    ],
    [
      'probabilities that do not sum to 1',
      () => ({ answers: [{ probabilities: { Rude: 0.2, Neutral: 0.2, Playful: 0.2 } }] }),
      /sum/i,
    ],
    [
      'a 400',
      () => ({ status: 400, error: { message: `Invalid input for key ${KEY}`, type: 'invalid_request_error' } }),
      /400/,
    ],
  ])('%s fails the measurement naming the node, without the key', async (_, reply, wording) => {
    server.decideWith((request) => {
      // The satisfaction judgement answers; the behaviour judgement meets the fault.
      if (request.body.questions[0]?.instructions === PLAYFUL.satisfied) {
        return { answers: [mostProbable(true)] }
      }
      return reply() as never
    })
    const result = await metric('off').measure(playfulConversation)
    expect(result.error).toBeDefined()
    expect(result.error?.message).toMatch(/^ConversationalNonBinaryJudgementNode \(criteria: "How was the assistant/)
    expect(result.error?.message).toMatch(wording)
    expect(JSON.stringify(result)).not.toContain(KEY)
    expect(result.verboseLogs).not.toContain(KEY)
  })

  test('the satisfaction judgement refused: the node named, the path stops there', async () => {
    server.decideWith(decideEach(() => ({ refusal: true })))
    const result = await metric('off').measure(playfulConversation)
    expect(result.error?.message.startsWith(SATISFIED_NODE)).toBe(true)
    expect(result.trace.nodes.find((node) => node.text === PLAYFUL.behaviour)?.status).toBe('skipped')
  })
})
