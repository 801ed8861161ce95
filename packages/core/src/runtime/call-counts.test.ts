// What a "judge call" counts, live and replayed: one request the judge is asked (and billed for), whether it answers
// one trial or five (OpenAI's `n`), one decision or a batch; replayed from the cache, the same calls, all cached.
// Through the real openai SDK against the local server.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  decideEach,
  jsonReply,
  mostProbable,
  type OpenAIServer,
  type RecordedRequest,
  schemaOf,
  startOpenAIServer,
} from '@judgetree/test-support'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { serverJudge } from '../../test/support/server-judge.js'
import { OpenAIDecisionJudge } from '../judge/openai-decision-judge.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import type { JudgeModel, JudgeQuestion, JudgeRequest } from '../judge/types.js'
import { addUsage, NO_USAGE, usageOf } from '../metric/usage.js'
import { GEval } from '../metrics/geval.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import type { CacheMode } from './cache.js'
import { createJudgeRuntime } from './judge-runtime.js'

const testCase = { input: 'Who ran up the tree?', actualOutput: 'The cat.', expectedOutput: 'The cat.' }
const SCORES = [2, 9, 4, 8, 9]

/** Scores the samples of a request from SCORES, as many as its `n` asks for. */
function scoring(request: RecordedRequest) {
  if (schemaOf(request) === 'geval_steps') return jsonReply({ steps: ['Compare the facts.'] })
  const samples = SCORES.slice(0, request.body.n ?? 1).map((score) => ({ json: { reason: `${score}`, score } }))
  return { samples, usage: { promptTokens: 100, completionTokens: 10 } }
}

let server: OpenAIServer
let dir: string
beforeAll(async () => {
  server = await startOpenAIServer(scoring, { decisions: decideEach(() => mostProbable(true)) })
})
afterAll(() => server.close())
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'judgetree-call-counts-'))
  server.requests.length = 0
  server.decisionRequests.length = 0
  server.respondWith(scoring)
})
afterEach(() => rm(dir, { recursive: true, force: true }))

function correctness(model: JudgeModel, trials: number): GEval {
  return new GEval({
    name: 'Correctness',
    criteria: 'Is the actual output factually correct given the expected output?',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT, LLMTestCaseParams.EXPECTED_OUTPUT],
    model,
    trials,
  })
}

describe('judge calls of trials, live and replayed', () => {
  it('counts one request for five trials (n: 5) as one call, and its replay as the same one call, cached', async () => {
    const recording = createJudgeRuntime({ cache: 'read-write', cacheDir: dir })
    const recorded = await correctness(recording.wrap(serverJudge(server.baseURL)), 5).measure(testCase)
    expect(server.requests.map((request) => request.body.n)).toEqual([undefined, 5])
    expect(recorded.usage).toMatchObject({ judgeCalls: 2, cachedCalls: 0 })
    expect(recording.stats().judgeCalls).toBe(2)

    const replaying = createJudgeRuntime({ cache: 'replay', cacheDir: dir })
    const replayed = await correctness(replaying.wrap(serverJudge(server.baseURL)), 5).measure(testCase)
    expect(server.requests).toHaveLength(2)
    expect(replayed.trials?.map((trial) => trial.score)).toEqual(recorded.trials?.map((trial) => trial.score))
    expect(replayed.usage).toMatchObject({ judgeCalls: 2, cachedCalls: 2, promptTokens: 0 })
    expect(replayed.trials?.map((trial) => trial.usage.judgeCalls)).toEqual(
      recorded.trials?.map((trial) => trial.usage.judgeCalls),
    )
    expect(replaying.stats()).toMatchObject({ judgeCalls: 0, cacheHits: 6 })
  })

  it('counts a recording made in two requests (3 trials, then 5) as two calls when replayed', async () => {
    const measure = (cache: CacheMode, trials: number) =>
      correctness(createJudgeRuntime({ cache, cacheDir: dir }).wrap(serverJudge(server.baseURL)), trials).measure(
        testCase,
      )
    await measure('read-write', 3)
    const grown = await measure('read-write', 5)
    // Trials 1–3 come from the cache (their one request), trials 4 and 5 in one new request with n: 2.
    expect(server.requests.map((request) => request.body.n)).toEqual([undefined, 3, 2])
    expect(grown.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 2 })

    const replayed = await measure('replay', 5)
    expect(server.requests).toHaveLength(3)
    expect(replayed.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 3 })
  })
})

describe('judge calls when the server refuses n', () => {
  let refusing: OpenAIServer
  beforeAll(async () => {
    refusing = await startOpenAIServer(scoring, { reasoningModel: { refuses: ['n'] } })
  })
  afterAll(() => refusing.close())

  it('counts each request of the samples asked one by one, in the result and in the runtime stats alike', async () => {
    const runtime = createJudgeRuntime({ cache: 'off' })
    const luna = new OpenAIJudge({
      model: 'gpt-6-luna',
      baseURL: refusing.baseURL,
      apiKey: 'test-key',
      maxRetries: 0,
      warn: () => {},
    })
    const result = await correctness(runtime.wrap(luna), 3).measure(testCase)

    expect(result.error).toBeUndefined()
    // The steps; the score asked with n: 3 and refused; the same without n; the two samples it did not answer.
    expect(refusing.requests.map((request) => [schemaOf(request), request.body.n])).toEqual([
      ['geval_steps', undefined],
      ['geval_score', 3],
      ['geval_score', undefined],
      ['geval_score', undefined],
      ['geval_score', undefined],
    ])
    // The refused request is not billed; the four answered ones are.
    expect(result.usage.judgeCalls).toBe(4)
    expect(runtime.stats().judgeCalls).toBe(4)
  })
})

describe('judge calls of a decision batch, live and replayed', () => {
  const STATE = 'User: Where is my order?\nAssistant: It ships tomorrow, sorry for the wait!'
  const question = (instructions: string): JudgeQuestion => ({
    kind: 'predicate',
    instructions,
    state: STATE,
    field: 'verdict',
  })
  const ask = (instructions: string): JudgeRequest<unknown> => ({
    messages: [{ role: 'user', content: instructions }],
    schema: z.unknown(),
    schemaName: 'predicate_verdict',
    promptVersion: 'call-counts@1',
    question: question(instructions),
  })
  const questions = ['Is the reply polite?', 'Is the reply on topic?', 'Does the reply apologise?']

  /** The usage of the questions asked together through a runtime in `cache` mode. */
  async function usageOfBatch(cache: CacheMode, asked: readonly string[]) {
    const runtime = createJudgeRuntime({ cache, cacheDir: dir })
    const judge = runtime.wrap(new OpenAIDecisionJudge({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 }))
    const responses = await Promise.all(asked.map((instructions) => judge.generate(ask(instructions))))
    return { usage: responses.map(usageOf).reduce(addUsage, NO_USAGE), stats: runtime.stats() }
  }

  it('counts three decisions in one request as one call, and their replay as one cached call', async () => {
    const live = await usageOfBatch('read-write', questions)
    expect(server.decisionRequests).toHaveLength(1)
    expect(live.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0 })
    expect(live.stats.judgeCalls).toBe(1)

    const replayed = await usageOfBatch('replay', questions)
    expect(server.decisionRequests).toHaveLength(1)
    expect(replayed.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1, promptTokens: 0 })
  })

  it('counts the later decisions of a recorded batch, replayed without the first, as one cached call', async () => {
    await usageOfBatch('read-write', questions)
    const replayed = await usageOfBatch('replay', questions.slice(1))
    expect(server.decisionRequests).toHaveLength(1)
    expect(replayed.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
  })
})
