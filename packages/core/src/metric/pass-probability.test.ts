import { describe, expect, test } from 'vitest'
import { distributionJudge } from '../../test/support/distribution-judge.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { ConversationRelevancyMetric } from '../metrics/conversation-relevancy.js'
import { ConversationalGEval } from '../metrics/conversational-geval.js'
import { GEval } from '../metrics/geval.js'
import { TurnContextualRelevancyMetric } from '../metrics/turn-contextual-relevancy.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import type { LLMTestCase } from '../test-case/schemas.js'
import { BaseMetric } from './base-metric.js'
import { countDistribution, meanDistribution, passOf, shareDistribution, wilsonInterval } from './pass-probability.js'
import type { PassProbability } from './types.js'

const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }

describe('the arithmetic', () => {
  test('the Poisson-binomial count of independent verdicts', () => {
    const counts = countDistribution([0.5, 0.2, 0.9])
    // P(0) = .5·.8·.1, P(3) = .5·.2·.9; the rest by hand: P(1) = .5·.8·.1 + .5·.2·.1 + .5·.8·.9 = .04 + .01 + .36.
    expect(counts.map((mass) => Math.round(mass * 1e9) / 1e9)).toEqual([0.04, 0.41, 0.46, 0.09])
  })

  test('the mean of per-group shares, convolved exactly', () => {
    // One group of 1 (certain yes), one of 2 (each 0.5): shares {1} and {0: .25, .5: .5, 1: .25}.
    const mean = meanDistribution([shareDistribution([1]), shareDistribution([0.5, 0.5])])
    expect([...mean].sort(([a], [b]) => a - b)).toEqual([
      [0.5, 0.25],
      [0.75, 0.5],
      [1, 0.25],
    ])
    expect(passOf(mean, 0.75, false)).toEqual({ p: 0.75, expectedScore: 0.75 })
    expect(passOf(mean, 0.75, true)).toEqual({ p: 0.25, expectedScore: 0.25 })
  })

  test('the 95% Wilson interval', () => {
    const { low, high } = wilsonInterval(7, 10)
    expect(low).toBeCloseTo(0.3968, 4)
    expect(high).toBeCloseTo(0.8922, 4)
    // Four passes of four is the fewest that lie wholly above 0.5.
    expect(wilsonInterval(3, 3).low).toBeLessThan(0.5)
    expect(wilsonInterval(4, 4).low).toBeGreaterThan(0.5)
    expect(wilsonInterval(0, 4).high).toBeLessThan(0.5)
  })
})

describe('metrics with a distribution-giving judge', () => {
  test('G-Eval: P(pass) is the mass of the levels at or above the threshold, the expected score the weighted one', async () => {
    const decider = distributionJudge(() => ({ 2: 0.1, 5: 0.3, 6: 0.2, 9: 0.4 }))
    const metric = new GEval({
      name: 'Warmth',
      evaluationSteps: ['Check the reply is warm'],
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      threshold: 0.55,
      model: scriptedJudge({ rules: [] }),
      decisionModel: decider,
    })
    const result = await metric.measure(testCase)
    expect(result.error).toBeUndefined()
    // Levels 6 and 9 reach 0.55 on 0..10; expected (0.2 + 1.5 + 1.2 + 3.6) / 10.
    expect(result.passProbability).toMatchObject({ low: 0.6, high: 0.6, source: 'judge' })
    expect(result.passProbability?.p).toBeCloseTo(0.6, 9)
    expect(result.passProbability?.expectedScore).toBeCloseTo(0.65, 9)
    expect(result.score).toBeCloseTo(0.65, 9)
    expect(result.passProbability?.pivot).toEqual({ node: 'n2', label: 'Score', verdict: '9', probability: 0.4 })
  })

  test('G-Eval in strict mode: the probability of the top score', async () => {
    const metric = new GEval({
      name: 'Warmth',
      evaluationSteps: ['Check the reply is warm'],
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      strictMode: true,
      model: scriptedJudge({ rules: [] }),
      decisionModel: distributionJudge(() => ({ true: 0.7, false: 0.3 })),
    })
    const result = await metric.measure(testCase)
    expect(result.passProbability).toMatchObject({ p: 0.7, expectedScore: 0.7, pivot: { verdict: '10' } })
  })

  test('ConversationalGEval: the same levels give the same chance over a conversation', async () => {
    const metric = new ConversationalGEval({
      name: 'Empathy',
      evaluationSteps: ['Check the assistant acknowledges the problem'],
      threshold: 0.55,
      model: scriptedJudge({ rules: [] }),
      decisionModel: distributionJudge(() => ({ 2: 0.1, 5: 0.3, 6: 0.2, 9: 0.4 })),
    })
    const result = await metric.measure({
      turns: [
        { role: 'user', content: 'My order is late.' },
        { role: 'assistant', content: 'Sorry to hear that, let me check.' },
      ],
    })
    expect(result.error).toBeUndefined()
    expect(result.passProbability?.p).toBeCloseTo(0.6, 9)
    expect(result.passProbability?.expectedScore).toBeCloseTo(0.65, 9)
  })

  test('G-Eval with a point answer (no logprobs) has none', async () => {
    const metric = new GEval({
      name: 'Warmth',
      evaluationSteps: ['Check the reply is warm'],
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      topLogprobs: 0,
      model: scriptedJudge({ rules: [{ match: /.*/, answer: { reason: 'warm', score: 8 } }] }),
    })
    const result = await metric.measure(testCase)
    expect(result.score).toBe(0.8)
    expect(result.passProbability).toBeUndefined()
  })

  test('conversation relevancy: the count of relevant replies is Poisson-binomial', async () => {
    const turns = ['hi', 'hello!', 'weather?', 'I like cheese.', 'umbrella?', 'no need today'].map(
      (content, index) => ({
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content,
      }),
    )
    const p = { 1: 0.9, 3: 0.2, 5: 0.8 } as Record<number, number>
    const decider = distributionJudge((question) => {
      const turn = Number(/turn (\d+)/.exec(question.instructions)?.[1])
      return { true: p[turn] ?? 0, false: 1 - (p[turn] ?? 0) }
    })
    const metric = new ConversationRelevancyMetric({
      threshold: 0.6,
      model: scriptedJudge({ rules: [] }),
      decisionModel: decider,
    })
    const result = await metric.measure({ turns })
    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(2 / 3, 9)
    // Passing needs 2 of 3: [.9, .2, .8] → P(2) + P(3) = (.9·.2·.2 + .9·.8·.8 + .1·.2·.8) + .9·.2·.8 = 0.772.
    expect(result.passProbability?.p).toBeCloseTo(0.772, 9)
    expect(result.passProbability?.expectedScore).toBeCloseTo(1.9 / 3, 9)
    // Turn 3's "irrelevant" (0.8) and turn 5's "relevant" (0.8) are the least sure: the first of equals.
    expect(result.passProbability?.pivot).toMatchObject({ label: 'turn 3', verdict: 'irrelevant', probability: 0.8 })
  })

  test('turn contextual relevancy: the mean of per-turn shares, exactly; an empty chunk is certainly irrelevant', async () => {
    const chat = scriptedJudge({
      rules: [
        {
          match: /split it into the distinct statements/,
          answer: (request: { messages: readonly { content: string }[] }) =>
            request.messages.some((message) => message.content.includes('Paris'))
              ? { chunks: [{ chunk: 1, statements: ['Paris is the capital of France.', 'Cats purr.'] }] }
              : { chunks: [{ chunk: 1, statements: ['Rome is in Italy.'] }] },
        },
      ],
    })
    const decider = distributionJudge((question) => {
      const p = question.instructions.includes('Paris') ? 0.9 : question.instructions.includes('Cats') ? 0.5 : 0.6
      return { true: p, false: 1 - p }
    })
    const metric = new TurnContextualRelevancyMetric({ threshold: 0.5, model: chat, decisionModel: decider })
    const result = await metric.measure({
      turns: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: 'Paris.', retrievalContext: ['Paris is the capital of France. Cats purr.'] },
        { role: 'user', content: 'And Italy?' },
        { role: 'assistant', content: 'Rome.', retrievalContext: ['Rome is in Italy.', ' '] },
      ],
    })
    expect(result.error).toBeUndefined()
    // Turn 1: shares {0: .05, .5: .5, 1: .45}; turn 3 (Rome 0.6, the empty chunk 0): {0: .4, .5: .6}.
    // Mean ≥ 0.5 needs turn-1 + turn-3 ≥ 1: 1+0 (.45·.4) + 1+.5 (.45·.6) + .5+.5 (.5·.6) = 0.18 + 0.27 + 0.30.
    expect(result.passProbability?.p).toBeCloseTo(0.75, 9)
    // Expected: (0.7 + 0.3) / 2.
    expect(result.passProbability?.expectedScore).toBeCloseTo(0.5, 9)
    expect(result.passProbability?.pivot).toMatchObject({ verdict: 'relevant', probability: 0.5 })
  })
})

describe('a metric of your own', () => {
  class Coin extends BaseMetric<LLMTestCase> {
    readonly kind = 'single-turn'
    constructor(readonly chance: unknown) {
      super({ model: scriptedJudge({ rules: [] }) }, { name: 'Coin' })
    }
    protected score() {
      return { score: 1, passProbability: this.chance as PassProbability }
    }
  }

  test('may return a passProbability, which the result carries; one out of shape fails the metric', async () => {
    const chance = { p: 0.5, low: 0.5, high: 0.5, expectedScore: 0.5, source: 'judge', pivot: undefined } as const
    expect((await new Coin(chance).measure(testCase)).passProbability).toEqual(chance)
    const wrong = await new Coin({ ...chance, low: 0.7 }).measure(testCase)
    expect(wrong.error?.code).toBe('METRIC_FAILED')
    expect(wrong.error?.message).toContain('0 <= low <= p <= high <= 1')
  })
})
