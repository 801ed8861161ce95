import {
  decisionReply,
  jsonReply,
  lastUserMessage,
  ln,
  schemaOf,
  scoreReply,
  scoreSevenWithRawLogprobs,
  useOpenAIServer,
} from '@judgetree/test-support'
import { describe, expect, it, vi } from 'vitest'
import { dataOf, serverJudge } from '../../test/support/server-judge.js'
import { JudgeCallError, MissingTestCaseParamError } from '../errors.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import { LLMTestCaseParams, SingleTurnParams } from '../test-case/params.js'
import { GEval, type GEvalOptions } from './geval.js'

// A test case as a JavaScript caller might pass it, past the type checker.
const bad = <T = never>(value: unknown) => value as T
const STEPS = ['Compare the facts in Actual Output with Expected Output.', 'Penalise omitted details.']
const testCase = { input: 'Who ran up the tree?', actualOutput: 'The cat.', expectedOutput: 'The cat.' }

const server = useOpenAIServer((request) =>
  schemaOf(request) === 'geval_steps'
    ? jsonReply({ steps: STEPS })
    : scoreReply(7, ln({ '7': 0.6, '8': 0.3, '6': 0.1, ' the': 0.05 }), { decoy: ln({ '7': 0.5, '2': 0.5 }) }),
)

function geval(options: Partial<GEvalOptions> = {}): GEval {
  return new GEval({
    name: 'Correctness',
    criteria: 'Is the actual output factually correct given the expected output?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
    model: serverJudge(server.baseURL),
    ...options,
  } as GEvalOptions)
}

describe('GEval scoring', () => {
  it('weights the score by logprobs: {7: 0.6, 8: 0.3, 6: 0.1} gives 0.72, from the last score token', async () => {
    const result = await geval().measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.72, 10)
    expect(result.success).toBe(true)
    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', 'geval_score'])
    expect(server.requests[1]?.body).toMatchObject({ logprobs: true, top_logprobs: 20 })
    expect(result.usage.judgeCalls).toBe(2)
    expect(result.trace.notes).toContain(
      'weighted by logprobs over 3 alternatives (6: 10%, 7: 60%, 8: 30%): 7.2; the judge answered 7',
    )
    expect(result.reason).toMatch(/^The judge scored 7 on 0–10, 7\.2 weighted by its logprobs, which is 0\.72\. Mostly/)
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Step "Evaluation steps": Is the actual output factually correct given the expected output? · 1 judge call
           steps: 1. Compare the facts in Actual Output with Expected Output.
                  2. Penalise omitted details.
      [2] Step "Score": an integer from 0 to 10 → 7 (weighted 7.2) · 1 judge call
           reason: Mostly right, 7 points of detail.
      note: evaluation steps: generated from the criteria once for this metric and shared by its measurements (1 judge call, billed to the first to ask, cached for the others)
      note: weighted by logprobs over 3 alternatives (6: 10%, 7: 60%, 8: 30%): 7.2; the judge answered 7"
    `)
  })

  it('when the server refuses the steps schema, notes that the steps were checked locally and keeps the score strict', async () => {
    const refusal = {
      status: 400,
      error: { message: "Invalid schema for response_format 'geval_steps': 'minLength' is not permitted." },
    }
    server.respondWith((request) => {
      const format = request.body.response_format
      if (format?.type === 'json_schema' && format.json_schema.name === 'geval_steps') return refusal
      return schemaOf(request) === 'geval_steps' || format?.type === 'json_object'
        ? jsonReply({ steps: STEPS })
        : scoreReply(7, ln({ '7': 0.6, '8': 0.3, '6': 0.1 }))
    })
    const warn = vi.fn()
    const model = new OpenAIJudge({
      model: 'gpt-4.1',
      baseURL: server.baseURL,
      apiKey: 'test-key',
      maxRetries: 0,
      warn,
    })

    const result = await geval({ model }).measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo(0.72, 10)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(server.requests.map((request) => request.body.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_schema',
    ])
    expect(result.trace.notes).toContain(
      'answer checked locally only: the judge model "gpt-4.1" refused the strict JSON schema "geval_steps" ' +
        "(Invalid schema for response_format 'geval_steps': 'minLength' is not permitted.), so it answered in JSON " +
        'mode and the answer was checked only against the local validation',
    )
    expect(result.trace.notes.filter((note) => note.startsWith('answer checked locally only'))).toHaveLength(1)
  })

  it('on a tokenizer that splits numbers, a judge torn between 9 and 10 scores 0.9 with the note, or its raw 10', async () => {
    const reply = (score: number, scoreTokens: { token: string; logprob: number; top: Record<string, number> }[]) => ({
      json: { reason: 'Right on every fact.', score },
      logprobs: [
        { token: '{"reason":"Right on every fact.","score":', logprob: 0, top: {} },
        ...scoreTokens,
        { token: '}', logprob: 0, top: {} },
      ],
    })
    server.respondWith(() => reply(9, [{ token: '9', logprob: Math.log(0.5), top: ln({ '9': 0.5, '1': 0.5 }) }]))
    const nine = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)
    expect(nine.score).toBe(0.9)
    expect(nine.trace.notes).toContain(
      'weighted by logprobs over 1 alternative (9: 100%): 9; the judge answered 9; not counted: "1" (it may also begin 10, and no alternative is a multi-digit score)',
    )

    server.respondWith(() =>
      reply(10, [
        { token: '1', logprob: Math.log(0.5), top: ln({ '1': 0.5, '9': 0.5 }) },
        { token: '0', logprob: Math.log(0.99), top: ln({ '0': 0.99 }) },
      ]),
    )
    const ten = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)
    expect(ten.score).toBe(1)
    expect(ten.trace.notes).toContain(
      'raw score: the judge wrote 10 as 2 tokens ("1" then "0"), so the probabilities at its first token mix several scores',
    )
  })

  it('on OpenAI, whose "10" is one token among the alternatives, a "1" alternative counts as the score 1', async () => {
    // Raw 2, torn with 1: the earlier rule left "1" out and scored this 0.22 instead of 0.17.
    const top = ln({ '2': 0.5, '1': 0.4, '3': 0.09, '0': 0.005, '10': 0.005 })
    server.respondWith(() => scoreReply(2, top))
    const result = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)
    expect(result.error).toBeUndefined()
    expect(result.score).toBeCloseTo((2 * 0.5 + 1 * 0.4 + 3 * 0.09 + 10 * 0.005) / 10, 10)
    expect(result.trace.notes).toContain(
      'weighted by logprobs over 5 alternatives (0: 0.5%, 1: 40%, 2: 50%, 3: 9%, 10: 0.5%): 1.72; the judge answered 2',
    )
  })

  it('shows the judge the steps and only the evaluationParams, as data', async () => {
    await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)

    expect(server.requests).toHaveLength(1)
    expect(lastUserMessage(server.requests[0] as never)).toContain(`1. ${STEPS[0]}\n2. ${STEPS[1]}`)
    expect(dataOf(server.requests[0] as never)).toEqual({ 'Actual Output': 'The cat.', 'Expected Output': 'The cat.' })
  })

  it('on [INPUT, ACTUAL_OUTPUT, METADATA] shows the judge the metadata as data, in the prompt the server receives', async () => {
    const metadata = { locale: 'fr-FR', channel: 'support-chat', priority: 2 }
    const result = await geval({
      evaluationParams: [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.METADATA],
    }).measure({ ...testCase, metadata })

    expect(result.error).toBeUndefined()
    const [steps, score] = server.requests
    // The steps prompt names the fields; the scoring prompt holds their values.
    expect(dataOf(steps as never)).toMatchObject({ 'Fields of the test case': ['Input', 'Actual Output', 'Metadata'] })
    expect(dataOf(score as never)).toEqual({ Input: testCase.input, 'Actual Output': 'The cat.', Metadata: metadata })
    expect(lastUserMessage(score as never)).toContain('"channel": "support-chat"')
  })

  it('shows TAGS as data too, and a case without the metadata or tags it names fails naming the field', async () => {
    const tagged = await geval({ evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.TAGS] }).measure({
      ...testCase,
      tags: ['billing', 'escalated'],
    })
    expect(tagged.error).toBeUndefined()
    expect(dataOf(server.requests[1] as never)).toEqual({ 'Actual Output': 'The cat.', Tags: ['billing', 'escalated'] })

    server.requests.length = 0
    const untagged = await geval({
      evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.METADATA, SingleTurnParams.TAGS],
    }).measure(testCase)
    expect(untagged.error).toBeInstanceOf(MissingTestCaseParamError)
    expect(untagged.error?.message).toMatchInlineSnapshot(
      `"The test case has no 'metadata', 'tags' but the metric "Correctness" needs it (needed by its evaluationParams). Add 'metadata', 'tags' to the test case, or remove it from the metric's evaluationParams."`,
    )
    expect(server.requests).toHaveLength(0)

    const invalid = await geval({ evaluationParams: [SingleTurnParams.TAGS] }).measure(
      bad({ ...testCase, tags: 'vip' }),
    )
    expect(invalid.error?.code).toBe('TEST_CASE_INVALID')
    expect(invalid.error?.message).toContain('tags')
  })

  it('uses the raw score and says so when the judge returns no logprobs', async () => {
    server.respondWith(() => scoreReply(7, undefined))

    const result = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)

    expect(result.score).toBeCloseTo(0.7, 10)
    expect(result.trace.notes).toContain('raw score: the judge returned no logprobs')
  })

  it('uses the raw score and says so when the score token is not among the logprobs', async () => {
    server.respondWith(() => ({
      ...scoreReply(7, undefined),
      logprobs: [{ token: '{"reason":"fine","score":', logprob: 0, top: {} }],
    }))

    const result = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)

    expect(result.score).toBeCloseTo(0.7, 10)
    expect(result.trace.notes).toContain('raw score: the score token was not found in the logprobs')
  })

  it('retries without logprobs when the model rejects them, says so, and stops asking for them', async () => {
    server.respondWith(({ body }) =>
      body.logprobs
        ? { status: 400, error: { message: "Unsupported parameter: 'logprobs' is not supported with this model." } }
        : scoreReply(8, undefined),
    )
    const metric = geval({ evaluationSteps: STEPS, criteria: undefined })

    const first = await metric.measure(testCase)
    const second = await metric.measure(testCase)

    expect(first.error).toBeUndefined()
    expect(first.score).toBeCloseTo(0.8, 10)
    expect(first.trace.notes.at(-1)).toMatch(/^raw score: the model "gpt-4\.1" does not accept logprobs \(Unsupported/)
    expect(second.trace.notes.at(-1)).toContain('does not accept logprobs')
    expect(server.requests.map((request) => request.body.logprobs ?? false)).toEqual([true, false, false])
  })

  it('asks for topLogprobs alternatives, and for none when it is 0', async () => {
    await geval({ evaluationSteps: STEPS, criteria: undefined, topLogprobs: 5 }).measure(testCase)
    const off = await geval({ evaluationSteps: STEPS, criteria: undefined, topLogprobs: 0 }).measure(testCase)

    expect(server.requests[0]?.body.top_logprobs).toBe(5)
    expect(server.requests[1]?.body.logprobs).toBeUndefined()
    expect(off.score).toBeCloseTo(0.7, 10)
    expect(off.trace.notes).toContain('raw score: topLogprobs is 0, so logprobs were not requested')
  })

  it('scores on a rubric: range min start..max end, out-of-range alternatives ignored', async () => {
    server.respondWith(() => scoreReply(6, ln({ '6': 0.5, '7': 0.25, '9': 0.25 })))
    const rubric = [
      { scoreRange: [7, 8] as const, expectedOutcome: 'Correct and complete.' },
      { scoreRange: [0, 2] as const, expectedOutcome: 'Wrong.' },
      { scoreRange: [3, 6] as const, expectedOutcome: 'Partly correct.' },
    ]

    const metric = geval({ evaluationSteps: STEPS, criteria: undefined, rubric })
    const result = await metric.measure(testCase)

    expect(metric.scoreRange).toEqual([0, 8])
    expect(result.score).toBeCloseTo((6 * (2 / 3) + 7 * (1 / 3)) / 8, 10)
    const prompt = lastUserMessage(server.requests[0] as never)
    expect(prompt).toContain('- 0 to 2: Wrong.\n- 3 to 6: Partly correct.\n- 7 to 8: Correct and complete.')
    const format = server.requests[0]?.body.response_format as { json_schema: { schema: unknown } }
    expect(format.json_schema.schema).toMatchObject({ properties: { score: { minimum: 0, maximum: 8 } } })
    expect(result.reason).toContain('(rubric 3–6: "Partly correct.")')
  })

  it('in strict mode asks a yes/no question, whose probability of yes is the chance of passing', async () => {
    server.respondWith(() => decisionReply('score', false, ln({ false: 0.7, true: 0.3 }), 'One detail is missing.'))
    const strict = geval({ evaluationSteps: STEPS, criteria: undefined, strictMode: true, threshold: 0.2 })

    const no = await strict.measure(testCase)
    server.respondWith(() => decisionReply('score', true, ln({ true: 0.9, false: 0.1 })))
    const yes = await strict.measure(testCase)

    expect(server.requests.map(schemaOf)).toEqual(['geval_strict', 'geval_strict'])
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true, top_logprobs: 20 })
    expect(lastUserMessage(server.requests[0] as never)).toContain(
      'Decide whether it earns the top score, 10 on a scale from 0 to 10: does it fully meet\nevery step',
    )
    expect(no).toMatchObject({ score: 0, threshold: 1, success: false, strictMode: true })
    expect(no.reason).toBe(
      'The judge decided the data does not earn the top score, 10 on 0–10 (probability 0.70), which is 0. One detail is missing.',
    )
    expect(no.passProbability).toMatchObject({ expectedScore: 0.3, pivot: { label: 'Score', verdict: '0' } })
    expect(no.passProbability?.p).toBeCloseTo(0.3, 9)
    expect(yes).toMatchObject({ score: 1, threshold: 1, success: true })
    expect(yes.passProbability?.p).toBeCloseTo(0.9, 9)
    expect(yes.verboseLogs).toContain('Step "Score": the top score, 10? → 10')
  })

  it('in strict mode with topLogprobs 0 the answer is a point, and the result says how to get a probability', async () => {
    server.respondWith(() => jsonReply({ reason: 'Every step is met.', score: true }))
    const result = await geval({
      evaluationSteps: STEPS,
      criteria: undefined,
      strictMode: true,
      topLogprobs: 0,
    }).measure(testCase)
    expect(server.requests[0]?.body.logprobs).toBeUndefined()
    expect(result).toMatchObject({ score: 1, success: true })
    expect(result.passProbability).toBeUndefined()
    expect(result.passProbabilityUnavailable).toMatch(
      /^\[n2\] “Score” was answered without probabilities \(logprobs were not requested \(topLogprobs is 0\)\); for P\(pass\)/,
    )
  })

  it('fails the measurement, not the test run, when the score is out of range twice', async () => {
    server.respondWith(() => scoreReply(11, undefined))

    const result = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)

    expect(result).toMatchObject({ score: 0, success: false })
    expect(result.error?.code).toBe('JUDGE_OUTPUT_INVALID')
    expect(server.requests).toHaveLength(2)
    expect(result.trace.nodes.at(-1)).toMatchObject({ label: 'Score', status: 'failed' })
  })
})

describe('GEval with malformed logprobs from the server', () => {
  const withLogprobs = scoreSevenWithRawLogprobs
  const token = (text: string, logprob: unknown, top: unknown = [{ token: text, logprob }]) => ({
    token: text,
    logprob,
    bytes: [],
    top_logprobs: top,
  })
  const around = (score: unknown) => ({
    content: [token('{"reason":"Close.","score":', 0), score, token('}', 0)],
    refusal: null,
  })
  const eight = { token: '8', logprob: Math.log(0.5), bytes: [] }

  it.each([
    [
      'a null logprob',
      around(token('7', null, [{ token: '7', logprob: null }, eight])),
      'logprobs.content[1].logprob is null, not a number',
    ],
    [
      'a string logprob',
      around(token('7', '-0.5', [{ token: '7', logprob: '-0.5' }, eight])),
      'logprobs.content[1].logprob is "-0.5", not a number',
    ],
    [
      'a null alternative logprob',
      around(
        token('7', Math.log(0.6), [
          { token: '7', logprob: Math.log(0.6) },
          { token: '2', logprob: null },
        ]),
      ),
      'logprobs.content[1].top_logprobs[1].logprob is null, not a number',
    ],
    [
      'top_logprobs that are not a list',
      around(token('7', Math.log(0.6), 'nope')),
      'logprobs.content[1].top_logprobs is "nope", not a list',
    ],
    ['content that is not a list', { content: 'x', refusal: null }, 'logprobs.content is "x", not a list'],
  ])('%s: the raw score, with a note naming what was wrong', async (_case, logprobs, problem) => {
    server.respondWith(() => withLogprobs(logprobs))
    const result = await geval({ evaluationSteps: STEPS, criteria: undefined }).measure(testCase)
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.7)
    const host = new URL(server.baseURL).host
    expect(result.trace.notes).toContain(
      `raw score: the judge model "gpt-4.1" at ${host} sent malformed logprobs (${problem}), so they were not read`,
    )
  })

  it('a malformed sample under trials falls back alone; the well-formed one is weighted', async () => {
    const good = around(token('7', Math.log(0.5), [{ token: '7', logprob: Math.log(0.5) }, eight]))
    const body = JSON.parse(withLogprobs(good).rawBody)
    body.choices.push({ ...body.choices[0], index: 1, logprobs: around(token('7', Math.log(0.6), 'nope')) })
    server.respondWith(() => ({ rawBody: JSON.stringify(body) }))
    const result = await geval({ evaluationSteps: STEPS, criteria: undefined, trials: 2 }).measure(testCase)
    expect(result.error).toBeUndefined()
    expect(server.requests).toHaveLength(1)
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.75, 0.7])
  })
})

describe('GEval evaluation steps', () => {
  it('generates the steps once for 20 concurrent measurements and counts that call once', async () => {
    server.respondWith(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return schemaOf(request) === 'geval_steps' ? jsonReply({ steps: STEPS }) : scoreReply(7, undefined)
    })
    const metric = geval()

    const results = await Promise.all(Array.from({ length: 20 }, () => metric.measure(testCase)))

    expect(server.requests).toHaveLength(21)
    expect(server.requests.filter((request) => schemaOf(request) === 'geval_steps')).toHaveLength(1)
    expect(results.every((result) => result.error === undefined && result.score === 0.7)).toBe(true)
    // The first to ask is billed; for the others the shared answer is a cached call, so every measurement's
    // result reads the same whichever one asked first.
    expect(results.map((result) => result.usage.judgeCalls)).toEqual(Array(20).fill(2))
    expect(results.map((result) => result.usage.cachedCalls).sort()).toEqual([0, ...Array(19).fill(1)])
    const billed = results.filter((result) => result.usage.cachedCalls === 0)
    expect(billed[0]?.trace.nodes[0]?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0, promptTokens: 10 })
    expect(new Set(results.map((result) => result.trace.notes[0]))).toEqual(
      new Set([
        'evaluation steps: generated from the criteria once for this metric and shared by its measurements (1 judge call, billed to the first to ask, cached for the others)',
      ]),
    )
    expect(new Set(results.map((result) => result.trace.nodes[0]?.output)).size).toBe(1)
  })

  it('reports a failed steps call on that measurement and tries again on the next', async () => {
    server.respondWith((request) =>
      request.index === 0 ? { status: 500, error: { message: 'overloaded' } } : jsonReply({ steps: STEPS }),
    )
    const metric = geval()

    const failed = await metric.measure(testCase)
    server.respondWith((request) =>
      schemaOf(request) === 'geval_steps' ? jsonReply({ steps: STEPS }) : scoreReply(7, undefined),
    )
    const retried = await metric.measure(testCase)

    expect(failed.error).toBeInstanceOf(JudgeCallError)
    expect(failed.trace.nodes).toEqual([expect.objectContaining({ label: 'Evaluation steps', status: 'failed' })])
    expect(retried.score).toBeCloseTo(0.7, 10)
    expect(server.requests.map(schemaOf)).toEqual(['geval_steps', 'geval_steps', 'geval_score'])
  })

  it('makes no judge call for a measurement that lacks a parameter', async () => {
    const result = await geval().measure({ input: 'Who ran up the tree?', actualOutput: 'The cat.' })

    expect(result.error).toBeInstanceOf(MissingTestCaseParamError)
    expect(result.error?.message).toContain("'expectedOutput'")
    expect(result.error?.message).toContain('"Correctness"')
    expect(server.requests).toHaveLength(0)
  })

  it('explains that a conversation needs ConversationalGEval', async () => {
    const result = await geval().measure({ turns: [{ role: 'user', content: 'hi' }] } as never)

    expect(result.error?.code).toBe('TEST_CASE_INVALID')
    expect(result.error?.message).toContain('ConversationalGEval')
  })

  it('returns an aborted result, never a rejection, when the signal is already aborted', async () => {
    const result = await geval().measure(testCase, { signal: AbortSignal.abort('stop') })

    expect(result.error?.code).toBe('MEASUREMENT_ABORTED')
    expect(server.requests).toHaveLength(0)
  })
})
