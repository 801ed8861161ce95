import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from '../dag/nodes/non-binary-judgement-node.js'
import { TaskNode } from '../dag/nodes/task-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import type { JudgeModel, JudgeQuestion, JudgeRequest, JudgeResponse } from '../judge/types.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { renderResult } from '../trace/render.js'
import { ConversationRelevancyMetric } from './conversation-relevancy.js'
import { DAGMetric } from './dag-metric.js'
import { GEval } from './geval.js'
import { TurnContextualRelevancyMetric } from './turn-contextual-relevancy.js'

const output = [LLMTestCaseParams.ACTUAL_OUTPUT]
const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }

/**
 * A decision judge written here: it answers each question with the probabilities `answer` gives, records every
 * call it gets (one per batch), and refuses the questions `refuse` names.
 */
function decisionJudge(
  answer: (question: JudgeQuestion) => Record<string, number>,
  refuse: (question: JudgeQuestion) => boolean = () => false,
) {
  const batches: (readonly JudgeQuestion[])[] = []
  const respond = (request: JudgeRequest<unknown>, first: boolean): JudgeResponse<unknown> | Error => {
    const question = request.question as JudgeQuestion
    if (refuse(question)) return new Error('The decision model refused this question.')
    const distribution = answer(question)
    const [best] = Object.entries(distribution).sort(([, a], [, b]) => b - a)[0] as [string, number]
    const value =
      question.kind === 'predicate' ? best === 'true' : question.kind === 'score' ? Number(best) : (best as string)
    return {
      value: { [question.field]: value },
      distribution,
      usage: { promptTokens: first ? 40 : 0, completionTokens: 0, costUsd: first ? 0.000004 : 0 },
      cached: false,
      ...(first ? {} : { extraSample: true }),
    }
  }
  const judge: JudgeModel & { readonly batches: typeof batches } = {
    name: 'test-decider',
    decides: true,
    cacheIdentity: { test: 'decider' },
    batches,
    async generate(request) {
      batches.push([request.question as JudgeQuestion])
      const answered = respond(request as JudgeRequest<unknown>, true)
      if (answered instanceof Error) throw answered
      return answered as JudgeResponse<never>
    },
    async generateMany(requests) {
      batches.push(requests.map((request) => request.question as JudgeQuestion))
      return requests.map((request, index) => respond(request, index === 0))
    },
  }
  return judge
}

const binary = (criteria: string, onTrue = 10, onFalse = 0) =>
  new BinaryJudgementNode({
    criteria,
    evaluationParams: output,
    children: [new VerdictNode({ verdict: true, score: onTrue }), new VerdictNode({ verdict: false, score: onFalse })],
  })

const conversation = ['hi', 'hello!', 'weather?', 'I like cheese.', 'umbrella?', 'no need today'].map(
  (content, index) => ({ role: index % 2 === 0 ? ('user' as const) : ('assistant' as const), content }),
)

const tmp = mkdtempSync(join(tmpdir(), 'judgetree-decisions-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('decisionModel', () => {
  test('a DAG of judgements only asks the decision judge, sibling judgements of one input in one request', async () => {
    const chat = scriptedJudge({ rules: [] })
    const decider = decisionJudge((question) =>
      question.instructions === 'Polite?' ? { true: 0.93, false: 0.07 } : { true: 0.2, false: 0.8 },
    )
    const runtime = createJudgeRuntime({ cache: 'off' })
    const metric = new DAGMetric({
      name: 'Greeting',
      dag: new DeepAcyclicGraph({ rootNodes: [binary('Polite?'), binary('Rude?', 0, 10)] }),
      model: chat,
      decisionModel: runtime.wrap(decider),
    })
    const result = await metric.measure(testCase)
    expect(result.error).toBeUndefined()
    expect(chat.requests).toHaveLength(0)
    expect(decider.batches.map((batch) => batch.map((question) => question.instructions))).toEqual([
      ['Polite?', 'Rude?'],
    ])
    expect(result.score).toBe(1)
    expect(result.decisionModel).toBe('test-decider')
    expect(result.usage).toMatchObject({ judgeCalls: 1, promptTokens: 40, completionTokens: 0 })
    // The reason names the decisive step (the first reached of equal verdicts); the trace keeps the other.
    expect(result.reason).toBe(
      'The walk scored 1 (the lowest of 2 verdicts reached). “Polite?” → true (probability 0.93).',
    )
    expect(result.trace.nodes.find((node) => node.text === 'Rude?')).toMatchObject({
      verdict: false,
      probabilities: { true: 0.2, false: 0.8 },
    })
    const polite = result.trace.nodes.find((node) => node.text === 'Polite?')
    expect(polite).toMatchObject({
      verdict: true,
      probabilities: { true: 0.93, false: 0.07 },
      decidedBy: 'test-decider',
    })
    expect(polite?.reason).toBeUndefined()
    expect(result.verboseLogs).toContain('Polite? → true (0.93)')
    expect(result.verboseLogs).toContain('Rude? → false (0.80) · asked in a shared decision request')
    expect(result.verboseLogs).toContain('decided by: test-decider')
  })

  test('a TaskNode goes to the chat model, the judgement after it to the decision judge', async () => {
    const chat = scriptedJudge({ rules: [{ match: /Extract/, answer: { output: 'a greeting' } }] })
    const decider = decisionJudge(() => ({ greeting: 0.1, question: 0.3, other: 0.6 }))
    const choice = new NonBinaryJudgementNode({
      criteria: 'What is it?',
      children: [
        new VerdictNode({ verdict: 'greeting', score: 10 }),
        new VerdictNode({ verdict: 'question', score: 5 }),
        new VerdictNode({ verdict: 'other', score: 0 }),
      ],
    })
    const task = new TaskNode({
      instructions: 'Extract what the reply does',
      outputLabel: 'kind',
      evaluationParams: output,
      children: [choice],
    })
    const metric = new DAGMetric({
      name: 'Kind',
      dag: new DeepAcyclicGraph({ rootNodes: [task] }),
      model: chat,
      decisionModel: createJudgeRuntime({ cache: 'off' }).wrap(decider),
    })
    const result = await metric.measure(testCase)
    expect(result.error).toBeUndefined()
    expect(chat.requests).toHaveLength(1)
    expect(decider.batches).toHaveLength(1)
    expect(decider.batches[0]?.[0]).toMatchObject({ kind: 'choice', options: ['greeting', 'question', 'other'] })
    expect(result.score).toBe(0)
    expect(result.verboseLogs).toContain('probabilities: greeting 0.10 · question 0.30 · other 0.60')
    expect(renderResult(result)).toContain('· judge scripted · decisions test-decider')
  })

  test('a refused question fails the measurement naming the node', async () => {
    const decider = decisionJudge(
      () => ({ true: 0.5, false: 0.5 }),
      (question) => question.instructions === 'Rude?',
    )
    const metric = new DAGMetric({
      name: 'Refusal',
      dag: new DeepAcyclicGraph({ rootNodes: [binary('Polite?'), binary('Rude?')] }),
      model: scriptedJudge({ rules: [] }),
      decisionModel: createJudgeRuntime({ cache: 'off' }).wrap(decider),
    })
    const result = await metric.measure(testCase)
    expect(result.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(result.error?.message).toMatch(/BinaryJudgementNode \(criteria: "Rude\?"\) failed: .*refused/s)
  })

  test('each decision is its own cache entry: a second run asks nothing, replay reproduces it', async () => {
    const cacheDir = join(tmp, 'cache')
    const decider = decisionJudge(() => ({ true: 0.7, false: 0.3 }))
    const measure = (mode: 'read-write' | 'replay') =>
      new DAGMetric({
        name: 'Cached',
        dag: new DeepAcyclicGraph({ rootNodes: [binary('Polite?'), binary('Warm?')] }),
        model: scriptedJudge({ rules: [] }),
        decisionModel: createJudgeRuntime({ cache: mode, cacheDir }).wrap(decider),
      }).measure(testCase)
    const first = await measure('read-write')
    const again = await measure('read-write')
    const replayed = await measure('replay')
    expect(decider.batches).toHaveLength(1)
    // Both decisions came in one call: the re-run and the replay count that call, cached.
    expect(first.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0 })
    expect(again.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
    expect(replayed.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
    for (const result of [again, replayed]) {
      expect(result.score).toBe(first.score)
      expect(result.trace.nodes.find((node) => node.text === 'Warm?')?.probabilities).toEqual({ true: 0.7, false: 0.3 })
    }
  })

  test("G-Eval's steps go to the chat model and its score to the decision judge, weighted by its probabilities", async () => {
    const chat = scriptedJudge({ rules: [] })
    const decider = decisionJudge(() => ({ 0: 0, 1: 0, 2: 0.1, 3: 0.3, 4: 0.6, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0 }))
    const metric = new GEval({
      name: 'Warmth',
      evaluationSteps: ['Check the reply is warm'],
      evaluationParams: output,
      rubric: [
        { scoreRange: [0, 3], expectedOutcome: 'cold' },
        { scoreRange: [4, 10], expectedOutcome: 'warm' },
      ],
      model: chat,
      decisionModel: createJudgeRuntime({ cache: 'off' }).wrap(decider),
    })
    const result = await metric.measure(testCase)
    expect(result.error).toBeUndefined()
    expect(chat.requests).toHaveLength(0)
    const question = decider.batches[0]?.[0]
    expect(question).toMatchObject({ kind: 'score', field: 'score' })
    expect(question?.kind === 'score' && question.descriptions?.slice(2, 6)).toEqual(['cold', 'cold', 'warm', 'warm'])
    expect(result.score).toBeCloseTo(0.35, 5)
    expect(result.reason).toContain('3.5 weighted by its probabilities')
    expect(result.verboseLogs).toContain('probabilities: 2 0.10 · 3 0.30 · 4 0.60')
  })

  test("conversation relevancy asks all of a conversation's windows in one decision request", async () => {
    const decider = decisionJudge((question) =>
      question.instructions.includes('turn 3') ? { true: 0.1, false: 0.9 } : { true: 0.8, false: 0.2 },
    )
    const metric = new ConversationRelevancyMetric({
      model: scriptedJudge({ rules: [] }),
      decisionModel: createJudgeRuntime({ cache: 'off' }).wrap(decider),
    })
    const result = await metric.measure({ turns: conversation })
    expect(result.error).toBeUndefined()
    expect(decider.batches).toHaveLength(1)
    expect(decider.batches[0]?.map((question) => question.instructions)).toEqual([
      "Does the assistant's reply at turn 1 address the user's latest message before it, read with turns 0 to 0?",
      "Does the assistant's reply at turn 3 address the user's latest message before it, read with turns 0 to 2?",
      "Does the assistant's reply at turn 5 address the user's latest message before it, read with turns 0 to 4?",
    ])
    expect(result.score).toBeCloseTo(2 / 3, 5)
    expect(result.reason).toContain('turn 3 (probability relevant 0.10)')
  })

  test("turn contextual relevancy: the chat model lists a turn's statements, the decision judge judges them in one request", async () => {
    const chat = scriptedJudge({
      rules: [
        {
          match: /split it into the distinct statements/,
          answer: { chunks: [{ chunk: 1, statements: ['Paris is the capital of France.', 'Cats purr.'] }] },
        },
      ],
    })
    const decider = decisionJudge((question) =>
      question.instructions.includes('Paris') ? { true: 0.95, false: 0.05 } : { true: 0.3, false: 0.7 },
    )
    const metric = new TurnContextualRelevancyMetric({
      model: chat,
      decisionModel: createJudgeRuntime({ cache: 'off' }).wrap(decider),
    })
    const result = await metric.measure({
      turns: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: 'Paris.', retrievalContext: ['Paris is the capital of France. Cats purr.'] },
      ],
    })
    expect(result.error).toBeUndefined()
    expect(chat.requests).toHaveLength(1)
    expect(chat.requests[0]?.question).toBeUndefined()
    expect(decider.batches.map((batch) => batch.length)).toEqual([2])
    expect(result.score).toBe(0.5)
    expect(result.usage.judgeCalls).toBe(2)
    expect(result.reason).toContain('“Cats purr.” (probability relevant 0.30)')
  })

  test('one measurement stopping does not cancel the decision request it shares with another', async () => {
    const decider = decisionJudge(() => ({ true: 0.6, false: 0.4 }))
    const many = decider.generateMany?.bind(decider)
    let calls = 0
    const slow: typeof decider = {
      ...decider,
      async generateMany(requests) {
        calls += 1
        await new Promise((resolve) => setTimeout(resolve, 50))
        return (many as NonNullable<typeof many>)(requests)
      },
    }
    const runtime = createJudgeRuntime({ cache: 'off' })
    const build = () =>
      new DAGMetric({
        name: 'Shared',
        dag: new DeepAcyclicGraph({ rootNodes: [binary('Polite?')] }),
        model: scriptedJudge({ rules: [] }),
        decisionModel: runtime.wrap(slow),
      })
    const stop = new AbortController()
    const stopped = build().measure(testCase, { signal: stop.signal })
    const kept = build().measure(testCase)
    setTimeout(() => stop.abort(new Error('stopped by the test')), 10)
    const [first, second] = await Promise.all([stopped, kept])
    expect(first.error?.code).toBe('MEASUREMENT_ABORTED')
    expect(second.error).toBeUndefined()
    expect(second.score).toBe(1)
    expect(calls).toBe(1)
  })

  test('a chat judge given as decisionModel is refused, saying where it belongs', () => {
    expect(
      () =>
        new DAGMetric({
          name: 'Wrong',
          dag: new DeepAcyclicGraph({ rootNodes: [binary('Polite?')] }),
          model: scriptedJudge({ rules: [] }),
          decisionModel: scriptedJudge({ rules: [] }),
        }),
    ).toThrow(/`decisionModel`.*not a decision judge.*a chat judge goes in `model`/s)
  })
})
