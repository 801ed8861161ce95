// A chat judge asked with `topLogprobs` gives each decision its probabilities from the answer token's logprobs, through
// the real OpenAI SDK against the local server: the same pass probability as the Decisions API gives for the same
// distributions. Where it cannot, the decision is a point and the result says why and how to get one.
import {
  type DecisionQuestionBody,
  decideEach,
  decisionReply,
  jsonReply,
  lastUserMessage,
  ln,
  logprobsIfAsked,
  type RecordedRequest,
  type ScriptedReply,
  schemaOf,
  useOpenAIServer,
} from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { serverJudge } from '../../test/support/server-judge.js'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from '../dag/nodes/non-binary-judgement-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { jury } from '../judge/jury.js'
import { OpenAIDecisionJudge } from '../judge/openai-decision-judge.js'
import type { MetricResult } from '../metric/types.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { ConversationRelevancyMetric } from './conversation-relevancy.js'
import { DAGMetric, type DAGMetricOptions } from './dag-metric.js'
import { TurnContextualRelevancyMetric } from './turn-contextual-relevancy.js'

const POLITE = { true: 0.8, false: 0.2 }
const WARMTH = { cold: 0.1, mild: 0.3, warm: 0.6 }

/** The chat judge's answers: the most probable verdict, with the distributions as its answer token's logprobs. */
function chatAnswers(request: RecordedRequest): ScriptedReply {
  if (schemaOf(request) === 'binary_verdict') return decisionReply('verdict', true, ln(POLITE))
  if (schemaOf(request) === 'non_binary_verdict') return decisionReply('verdict', 'warm', ln(WARMTH))
  const offTopic = lastUserMessage(request).includes('sneakers')
  return decisionReply('relevant', !offTopic, ln(offTopic ? { true: 0.3, false: 0.7 } : POLITE))
}

/** The Decisions API's answers for the same questions. */
const decided = decideEach((question: DecisionQuestionBody) =>
  question.type === 'choice' ? { probabilities: WARMTH } : { probabilities: { true: POLITE.true } },
)

const server = useOpenAIServer(logprobsIfAsked(chatAnswers), { decisions: decided })
const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }
const output = [LLMTestCaseParams.ACTUAL_OUTPUT]
const leaf = (verdict: boolean | string, score: number) => new VerdictNode({ verdict, score })

/** The example: root p(true) = 0.8 → a choice {0.1 → 0, 0.3 → 5, 0.6 → 10}; false → 0. */
function greeting(options: Partial<DAGMetricOptions> = {}, warmth = ['cold', 'mild', 'warm']) {
  const choice = new NonBinaryJudgementNode({
    criteria: 'How warm?',
    children: [leaf(warmth[0] as string, 0), leaf(warmth[1] as string, 5), leaf(warmth[2] as string, 10)],
  })
  const dag = new DeepAcyclicGraph({
    rootNodes: [
      new BinaryJudgementNode({
        criteria: 'Polite?',
        evaluationParams: output,
        children: [new VerdictNode({ verdict: true, child: choice }), leaf(false, 0)],
      }),
    ],
  })
  return new DAGMetric({ name: 'Greeting', dag, model: serverJudge(server.baseURL), ...options })
}

const decisionJudge = () => new OpenAIDecisionJudge({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 })

/** The pass probability rounded to 9 decimals (logprobs go through exp and a renormalisation). */
const rounded = (result: MetricResult) =>
  JSON.parse(JSON.stringify(result.passProbability, (_, n) => (typeof n === 'number' ? Math.round(n * 1e9) / 1e9 : n)))

describe('DAG decisions with chat logprobs', () => {
  test('topLogprobs: the same passProbability as the decision judge gives for the same distributions', async () => {
    const chat = await greeting({ topLogprobs: 5 }).measure(testCase)
    expect(chat.error).toBeUndefined()
    expect(server.requests.map((request) => request.body)).toMatchObject([
      { logprobs: true, top_logprobs: 5 },
      { logprobs: true, top_logprobs: 5 },
    ])
    expect(rounded(chat)).toEqual({
      p: 0.72,
      low: 0.72,
      high: 0.72,
      expectedScore: 0.6,
      source: 'judge',
      pivot: { node: 'n3', label: 'How warm?', verdict: 'warm', probability: 0.6 },
    })
    expect(chat.verboseLogs).toContain('Judgement: Polite? → true (0.80)')

    server.requests.length = 0
    const viaDecisions = await greeting({ topLogprobs: 5, decisionModel: decisionJudge() }).measure(testCase)
    // Decisions go to the decision judge, untouched by topLogprobs: the chat judge is not asked at all.
    expect(server.requests).toHaveLength(0)
    expect(server.decisionRequests).toHaveLength(2)
    expect(rounded(viaDecisions)).toEqual(rounded(chat))
    expect(viaDecisions.score).toBe(chat.score)
  })

  test('a jury led by a decision judge still asks its chat juror for logprobs, and the decision judge for none', async () => {
    const metric = greeting({ topLogprobs: 5, model: jury([decisionJudge(), serverJudge(server.baseURL)]) })
    const result = await metric.measure(testCase)
    expect(result.error).toBeUndefined()
    expect(server.requests.map((request) => request.body)).toMatchObject([
      { logprobs: true, top_logprobs: 5 },
      { logprobs: true, top_logprobs: 5 },
    ])
    expect(server.decisionRequests).toHaveLength(2)
    // Both jurors give the same distributions, so their mean is that distribution: P(pass) as from either alone.
    expect(result.passProbability?.p).toBeCloseTo(0.72, 9)
    expect(result.passProbabilityUnavailable).toBeUndefined()
  })

  test('off by default: no logprobs asked, no probability, and the result says why and how to get one', async () => {
    const result = await greeting().measure(testCase)
    expect(result.score).toBe(1)
    expect(server.requests[0]?.body.logprobs).toBeUndefined()
    expect(result.passProbability).toBeUndefined()
    expect(result.passProbabilityUnavailable).toBe(
      '[n1] “Polite?” was answered without probabilities (logprobs were not requested); for P(pass), set ' +
        'topLogprobs with a chat judge that returns logprobs, give a decisionModel, or run trials',
    )
    expect(result.verboseLogs).not.toContain('P(pass)')
  })

  test('options that share a first token give no distribution, and the trace and the result say so', async () => {
    server.respondWith((request) => {
      if (schemaOf(request) === 'binary_verdict') return decisionReply('verdict', true, ln(POLITE))
      // "very warm" and "very cold" begin with the same token: its alternatives cannot tell them apart.
      const reply = decisionReply('verdict', 'very warm', {})
      return {
        ...reply,
        logprobs: [
          { token: '{"reason":"Kind.","verdict":"', logprob: 0, top: {} },
          { token: 'very', logprob: Math.log(0.9), top: ln({ very: 0.9, cold: 0.1 }) },
          { token: ' warm', logprob: Math.log(0.7), top: ln({ ' warm': 0.7, ' cold': 0.3 }) },
          { token: '"}', logprob: 0, top: {} },
        ],
      }
    })
    const result = await greeting({ topLogprobs: 5 }, ['cold', 'very cold', 'very warm']).measure(testCase)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    const choice = result.trace.nodes.find((node) => node.text === 'How warm?')
    expect(choice?.probabilities).toBeUndefined()
    expect(choice?.probabilitiesUnavailable).toMatch(/do not tell the options apart/)
    expect(result.passProbability).toBeUndefined()
    expect(result.passProbabilityUnavailable).toMatch(
      /^\[n3\] “How warm\?” was answered without probabilities \(its logprobs do not tell the options apart/,
    )
  })
})

describe('a model that refuses logprobs', () => {
  const reasoning = useOpenAIServer(logprobsIfAsked(chatAnswers), { reasoningModel: { refuses: ['logprobs'] } })

  test('answers each decision as a point, and the result says the model refused them', async () => {
    const result = await greeting({ topLogprobs: 5, model: serverJudge(reasoning.baseURL) }).measure(testCase)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(result.passProbability).toBeUndefined()
    expect(result.trace.nodes[0]?.probabilitiesUnavailable).toMatch(/logprobs/)
    expect(result.passProbabilityUnavailable).toMatch(
      /^\[n1\] “Polite\?” was answered without probabilities \(the model "gpt-4.1" does not accept logprobs/,
    )
  })
})

describe('conversation relevancy with chat logprobs', () => {
  const turns = [
    { role: 'user' as const, content: 'Hi' },
    { role: 'assistant' as const, content: 'Hello! How can I help?' },
    { role: 'user' as const, content: 'Can I get a refund?' },
    { role: 'assistant' as const, content: 'Our sneakers come in blue.' },
  ]

  test('the same passProbability from chat logprobs as from the decision judge', async () => {
    const model = serverJudge(server.baseURL)
    const chat = await new ConversationRelevancyMetric({ model, topLogprobs: 3, asyncMode: false }).measure({ turns })
    expect(chat.error).toBeUndefined()
    expect(server.requests.every((request) => request.body.top_logprobs === 3)).toBe(true)
    server.decideWith(
      decideEach((_, index) => ({ probabilities: { true: [0.8, 0.3][index] as number } }), {
        usage: { inputTokens: 9 },
      }),
    )
    const viaDecisions = await new ConversationRelevancyMetric({ model, decisionModel: decisionJudge() }).measure({
      turns,
    })
    // Two replies, relevant with 0.8 and 0.3: P(both) = 0.24 passes the 0.5 threshold (one of two is 0.5 too: 0.8 + 0.3 − 0.24).
    expect(chat.passProbability?.p).toBeCloseTo(0.86, 9)
    expect(rounded(viaDecisions)).toEqual(rounded(chat))
  })

  test('off by default, it says why there is no probability', async () => {
    const result = await new ConversationRelevancyMetric({ model: serverJudge(server.baseURL) }).measure({ turns })
    expect(result.passProbability).toBeUndefined()
    expect(result.passProbabilityUnavailable).toMatch(/^\[n1\] turn 1 was answered without probabilities/)
  })
})

describe('turn contextual relevancy with chat logprobs', () => {
  const turns = [
    { role: 'user' as const, content: 'Can I get a refund?' },
    { role: 'assistant' as const, content: 'Yes, within 30 days.', retrievalContext: ['Refunds: 30 days. CEO hikes.'] },
  ]
  const statement = (text: string) => `{"statement":"${text}","reason":"r","relevant":`
  /** One answer judging two statements, each verdict token with its own alternatives. */
  const judgedStatements: ScriptedReply = {
    json: {
      chunks: [
        {
          chunk: 1,
          statements: [
            { statement: 'Refunds: 30 days.', reason: 'r', relevant: true },
            { statement: 'CEO hikes.', reason: 'r', relevant: false },
          ],
        },
      ],
    },
    logprobs: [
      { token: `{"chunks":[{"chunk":1,"statements":[${statement('Refunds: 30 days.')}`, logprob: 0, top: {} },
      { token: 'true', logprob: Math.log(0.8), top: ln({ true: 0.8, false: 0.2 }) },
      { token: `},${statement('CEO hikes.')}`, logprob: 0, top: {} },
      { token: 'false', logprob: Math.log(0.7), top: ln({ false: 0.7, true: 0.3 }) },
      { token: '}]}]}', logprob: 0, top: {} },
    ],
  }

  test('each statement’s probability is read from its own verdict token: the decision judge’s passProbability', async () => {
    server.respondWith(logprobsIfAsked(() => judgedStatements))
    const model = serverJudge(server.baseURL)
    const chat = await new TurnContextualRelevancyMetric({ model, topLogprobs: 5, threshold: 0.4 }).measure({ turns })
    expect(chat.error).toBeUndefined()
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true, top_logprobs: 5 })
    server.respondWith(() => jsonReply({ chunks: [{ chunk: 1, statements: ['Refunds: 30 days.', 'CEO hikes.'] }] }))
    server.decideWith(decideEach((_, index) => ({ probabilities: { true: [0.8, 0.3][index] as number } })))
    const viaDecisions = await new TurnContextualRelevancyMetric({
      model,
      decisionModel: decisionJudge(),
      threshold: 0.4,
    }).measure({ turns })
    // Shares 0, 1/2, 1 with 0.14, 0.62, 0.24: at least one of two relevant passes 0.4.
    expect(chat.passProbability?.p).toBeCloseTo(0.86, 9)
    expect(rounded(viaDecisions)).toEqual(rounded(chat))
  })

  test('without topLogprobs, no probability, and the result names the first statement', async () => {
    server.respondWith(logprobsIfAsked(() => judgedStatements))
    const result = await new TurnContextualRelevancyMetric({ model: serverJudge(server.baseURL) }).measure({ turns })
    expect(result.passProbability).toBeUndefined()
    expect(result.passProbabilityUnavailable).toMatch(/^\[n1\] turn 1 chunk 1 “Refunds: 30 days.” was answered/)
  })
})

describe('the topLogprobs option', () => {
  test('a value out of range is rejected with the usual message', () => {
    expect(() => greeting({ topLogprobs: 21 })).toThrow(
      'Expected `topLogprobs` to be a whole number from 0 to 20 (OpenAI returns at most 20 alternatives per token; 0 asks for none, so each decision is a point), got `21` (number).',
    )
    expect(() => new ConversationRelevancyMetric({ topLogprobs: -1 })).toThrow(/Expected `topLogprobs` to be a whole/)
  })
})
