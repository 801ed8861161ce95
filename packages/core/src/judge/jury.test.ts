// Juries through the real openai SDK against the local server, which answers each juror by its model name and counts
// what each was asked: combined verdicts and scores checked by hand, escalation's calls, a chat and a decision juror
// in one DAG, usage and agreement in the result, and a replay from the jurors' cache entries.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type DecisionAnswerScript,
  jsonReply,
  type RecordedRequest,
  type ScriptedReply,
  useOpenAIServer,
} from '@judgetree/test-support'
import { afterAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { TaskNode } from '../dag/nodes/task-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { ConfigurationError } from '../errors.js'
import { evaluate } from '../evaluate/evaluate.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { toRecord } from '../report/record.js'
import { renderEvaluationHtml } from '../report/surfaces/html.js'
import { renderMarkdown } from '../report/surfaces/markdown.js'
import { renderRunOutput } from '../report/surfaces/terminal.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { SingleTurnParams } from '../test-case/params.js'
import { jury } from './jury.js'
import { OpenAIDecisionJudge } from './openai-decision-judge.js'
import { OpenAIJudge } from './openai-judge.js'
import type { JudgeModel, JudgeQuestion } from './types.js'

const server = useOpenAIServer()
const tmp = mkdtempSync(join(tmpdir(), 'judgetree-jury-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const testCase = { input: 'Where is my order?', actualOutput: 'Sorry for the wait! It ships tomorrow.' }
const POLITE = 'Is the reply polite?'
const EXTRACT = 'List the promises the reply makes.'

function chat(model: string): OpenAIJudge {
  return new OpenAIJudge({ model, baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 })
}
function decider(model: string): OpenAIDecisionJudge {
  return new OpenAIDecisionJudge({ model, baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 })
}

/** Each chat juror's verdict on the politeness question, by model; a task is answered with one promise. */
function chatVerdicts(verdicts: Readonly<Record<string, boolean>>) {
  server.respondWith((request: RecordedRequest): ScriptedReply => {
    const prompt = request.body.messages.map((message) => message.content).join('\n')
    if (prompt.includes(EXTRACT)) return jsonReply({ output: 'It ships tomorrow.' })
    const verdict = verdicts[request.body.model]
    if (verdict === undefined) return { status: 500, error: { message: `no verdict for ${request.body.model}` } }
    const answer = { reason: `${request.body.model} says ${verdict}.`, verdict }
    // Trials ask each juror for their samples in one request (`n`).
    return { json: answer, samples: Array.from({ length: request.body.n ?? 1 }, () => ({ json: answer })) }
  })
}

/** Each decision juror's answer to every question, by model. */
function decisions(answers: Readonly<Record<string, DecisionAnswerScript>>) {
  server.decideWith((request) => {
    const answer = answers[request.body.model] as DecisionAnswerScript
    return { answers: request.body.questions.map(() => answer) }
  })
}

function politenessDag() {
  const polite = new BinaryJudgementNode({
    criteria: POLITE,
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
  })
  return new DeepAcyclicGraph({ rootNodes: [polite] })
}

function politeness(model: JudgeModel) {
  return new DAGMetric({ name: 'Polite', dag: politenessDag(), model })
}

const off = () => createJudgeRuntime({ cache: 'off' })

describe('jury: how the jurors combine', () => {
  // d-a: true at 0.9; d-b and d-c: false at 0.6. By hand: P(true) = (0.9 + 0.4 + 0.4) / 3 = 0.5667, so the mean
  // says true; two jurors of three chose false, so the majority says false.
  const split = { 'd-a': { answer: true, probability: 0.9 }, 'd-b': { answer: false, probability: 0.6 } }
  const panel = () => [decider('d-a'), decider('d-b'), decider('d-c')]

  test("`mean` takes the most probable verdict of the jurors' mean distribution, and passProbability reads it", async () => {
    decisions({ ...split, 'd-c': { answer: false, probability: 0.6 } })
    const result = await politeness(off().wrap(jury(panel()))).measure(testCase)

    expect(result.error).toBeUndefined()
    expect(result.score).toBe(1)
    expect(result.judgeModel).toBe('jury(d-a, d-b, d-c)')
    expect(result.passProbability?.p).toBeCloseTo(1.7 / 3, 6)
    const polite = result.trace.nodes.find((node) => node.role === 'judgement')
    expect(polite?.verdict).toBe(true)
    expect(polite?.probabilities?.true).toBeCloseTo(1.7 / 3, 10)
    expect(polite?.jury).toEqual([
      { juror: 'd-a', verdict: true, probability: 0.9 },
      { juror: 'd-b', verdict: false, probability: 0.6 },
      { juror: 'd-c', verdict: false, probability: 0.6 },
    ])
    expect(result.verboseLogs).toContain('jury: d-a true (0.90) · d-b false (0.60) · d-c false (0.60)')
    expect(result.agreement).toBe(0)
    // One decision request per juror, each counted under its own name.
    expect(server.decisionRequests.map((request) => request.body.model).sort()).toEqual(['d-a', 'd-b', 'd-c'])
    expect(Object.keys(result.usage.jurors ?? {})).toEqual(['d-a', 'd-b', 'd-c'])
    expect(result.usage.jurors?.['d-b']).toMatchObject({ judgeCalls: 1, cachedCalls: 0, promptTokens: 20 })
    expect(result.usage).toMatchObject({ judgeCalls: 3, promptTokens: 60, juryDecisions: { decided: 1, unanimous: 0 } })
  })

  test('`majority` takes the verdict most jurors chose, with the same mean distribution', async () => {
    decisions({ ...split, 'd-c': { answer: false, probability: 0.6 } })
    const result = await politeness(off().wrap(jury(panel(), { combine: 'majority' }))).measure(testCase)

    expect(result.score).toBe(0)
    const polite = result.trace.nodes.find((node) => node.role === 'judgement')
    expect(polite?.verdict).toBe(false)
    expect(polite?.probabilities?.true).toBeCloseTo(1.7 / 3, 10)
  })

  test('scores combine over levels: mean picks the most probable level, majority the most chosen', async () => {
    // d-a and d-b: 8 at 0.51 (2 at 0.49); d-c: 2 for sure. Mean: P(2) = (0.49 + 0.49 + 1) / 3 = 0.66, P(8) = 0.34.
    decisions({
      'd-a': { probabilities: { '2': 0.49, '8': 0.51 } },
      'd-b': { probabilities: { '2': 0.49, '8': 0.51 } },
      'd-c': { probabilities: { '2': 1 } },
    })
    const question: JudgeQuestion = {
      kind: 'score',
      instructions: 'How helpful is the reply?',
      state: testCase.actualOutput,
      levels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      field: 'score',
    }
    const request = {
      messages: [{ role: 'user' as const, content: 'How helpful is the reply?' }],
      schema: z.object({ score: z.number() }),
      schemaName: 'score',
      promptVersion: 'jury-test@1',
      question,
    }
    const mean = await off().wrap(jury(panel())).generate(request)
    const majority = await off()
      .wrap(jury(panel(), { combine: 'majority' }))
      .generate(request)

    expect(mean.value).toEqual({ score: 2 })
    expect(majority.value).toEqual({ score: 8 })
    for (const response of [mean, majority]) {
      expect(response.distribution?.['2']).toBeCloseTo(1.98 / 3, 10)
      expect(response.distribution?.['8']).toBeCloseTo(1.02 / 3, 10)
      expect(response.jurors?.map((answer) => answer.verdict)).toEqual([8, 8, 2])
    }
  })

  test('a tie goes to the verdict of the juror declared first', async () => {
    chatVerdicts({ 'gpt-4.1': false, 'gpt-4.1-mini': true })
    const both = await politeness(off().wrap(jury([chat('gpt-4.1'), chat('gpt-4.1-mini')]))).measure(testCase)
    const swapped = await politeness(off().wrap(jury([chat('gpt-4.1-mini'), chat('gpt-4.1')]))).measure(testCase)

    expect(both.score).toBe(0)
    expect(swapped.score).toBe(1)
    // The reason is that of a juror who chose the verdict.
    expect(both.trace.nodes.find((node) => node.role === 'judgement')?.reason).toBe('gpt-4.1 says false.')
  })
})

describe('jury: escalate', () => {
  const panel = () => [chat('gpt-4.1'), chat('gpt-4.1-mini'), chat('gpt-4.1-nano')]

  test('asks the first two jurors, and the third only when they disagree', async () => {
    chatVerdicts({ 'gpt-4.1': true, 'gpt-4.1-mini': true, 'gpt-4.1-nano': false })
    const agreed = await politeness(off().wrap(jury(panel(), { escalate: true }))).measure(testCase)
    expect(server.requests.map((request) => request.body.model).sort()).toEqual(['gpt-4.1', 'gpt-4.1-mini'])
    expect(agreed.score).toBe(1)
    expect(agreed.agreement).toBe(1)
    expect(agreed.usage.jurors?.['gpt-4.1-nano']).toBeUndefined()

    server.requests.length = 0
    chatVerdicts({ 'gpt-4.1': true, 'gpt-4.1-mini': false, 'gpt-4.1-nano': false })
    const disputed = await politeness(off().wrap(jury(panel(), { escalate: true }))).measure(testCase)
    expect(server.requests.map((request) => request.body.model).sort()).toEqual([
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
    ])
    expect(disputed.score).toBe(0)
    expect(disputed.agreement).toBe(0)
    expect(disputed.verboseLogs).toContain('jury: gpt-4.1 true · gpt-4.1-mini false · gpt-4.1-nano false')
    // Each juror's cost at its own price: gpt-4.1 $2/M in, $8/M out; 10 prompt and 5 completion tokens each.
    expect(disputed.usage.jurors?.['gpt-4.1']?.costUsd).toBeCloseTo(0.00006, 12)
    expect(disputed.usage.costUsd).toBeCloseTo(
      Object.values(disputed.usage.jurors ?? {}).reduce((sum, usage) => sum + (usage.costUsd ?? Number.NaN), 0),
      12,
    )
  })
})

describe('jury: a chat juror and a decision juror in one DAG', () => {
  test('the task goes to the chat juror alone; the judgement to both, each on its own wire', async () => {
    chatVerdicts({ 'gpt-4.1': true })
    decisions({ 'gpt-6-luna': { answer: false, probability: 0.8 } })
    const extract = new TaskNode({
      instructions: EXTRACT,
      outputLabel: 'Promises',
      evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
    })
    const polite = extract.addNode(new BinaryJudgementNode({ criteria: POLITE }))
    polite.addVerdict(true, { score: 10 })
    polite.addVerdict(false, { score: 0 })
    const metric = new DAGMetric({
      name: 'Promises kept politely',
      dag: new DeepAcyclicGraph({ rootNodes: [extract] }),
      model: off().wrap(jury([chat('gpt-4.1'), decider('gpt-6-luna')])),
    })
    const result = await metric.measure(testCase)

    expect(result.error).toBeUndefined()
    // Chat: the task and the judgement; decisions: the judgement only.
    expect(server.requests).toHaveLength(2)
    expect(server.decisionRequests).toHaveLength(1)
    expect(server.decisionRequests[0]?.body.input).toContain('It ships tomorrow.')
    // Mean: P(true) = (1 + 0.2) / 2 = 0.6.
    const judgement = result.trace.nodes.find((node) => node.role === 'judgement')
    expect(judgement?.verdict).toBe(true)
    expect(judgement?.probabilities?.true).toBeCloseTo(0.6, 10)
    expect(judgement?.reason).toBe('gpt-4.1 says true.')
    expect(result.verboseLogs).toContain('jury: gpt-4.1 true · gpt-6-luna false (0.80)')
    expect(result.usage.jurors?.['gpt-4.1']?.judgeCalls).toBe(2)
    expect(result.usage.jurors?.['gpt-6-luna']?.judgeCalls).toBe(1)
  })
})

describe('jury: trials', () => {
  test("each juror samples the trials in one request of its own (OpenAI's n)", async () => {
    chatVerdicts({ 'gpt-4.1': true, 'gpt-4.1-mini': false })
    const metric = new DAGMetric({
      name: 'Polite',
      dag: politenessDag(),
      model: off().wrap(jury([chat('gpt-4.1'), chat('gpt-4.1-mini')])),
      trials: 3,
    })
    const result = await metric.measure(testCase)

    expect(result.error).toBeUndefined()
    expect(server.requests.map((request) => [request.body.model, request.body.n]).sort()).toEqual([
      ['gpt-4.1', 3],
      ['gpt-4.1-mini', 3],
    ])
    expect(result.trials).toHaveLength(3)
    // A tie each time, to the first juror: every trial passes, and no decision was unanimous.
    expect(result.passRate).toBe(1)
    expect(result.agreement).toBe(0)
    expect(result.usage.juryDecisions).toEqual({ decided: 3, unanimous: 0 })
    expect(result.usage.jurors?.['gpt-4.1']?.judgeCalls).toBe(1)
  })
})

describe('jury: the cache', () => {
  test("replays from each juror's own entries without a request", async () => {
    const cacheDir = join(tmp, 'replay')
    decisions({
      'd-a': { answer: true, probability: 0.9 },
      'd-b': { answer: true, probability: 0.7 },
      'd-c': { answer: false, probability: 0.6 },
    })
    const panel = () => jury([decider('d-a'), decider('d-b'), decider('d-c')])
    const first = await politeness(createJudgeRuntime({ cache: 'read-write', cacheDir }).wrap(panel())).measure(
      testCase,
    )
    expect(server.decisionRequests).toHaveLength(3)

    server.decisionRequests.length = 0
    const again = await politeness(createJudgeRuntime({ cache: 'replay', cacheDir }).wrap(panel())).measure(testCase)
    expect(server.decisionRequests).toHaveLength(0)
    expect(again.score).toBe(first.score)
    expect(again.passProbability?.p).toBeCloseTo(first.passProbability?.p as number, 12)
    expect(again.trace.nodes.find((node) => node.role === 'judgement')?.jury).toEqual(
      first.trace.nodes.find((node) => node.role === 'judgement')?.jury,
    )
    expect(again.usage).toMatchObject({ judgeCalls: 3, cachedCalls: 3, promptTokens: 0 })
    expect(again.usage.jurors?.['d-c']).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
  })
})

describe('jury: run summaries', () => {
  test("evaluate() and the runners' closing summary give agreement per metric and each juror's calls and cost", async () => {
    chatVerdicts({ 'gpt-4.1': true, 'gpt-4.1-mini': true, 'gpt-4.1-nano': false })
    const metric = politeness(
      off().wrap(jury([chat('gpt-4.1'), chat('gpt-4.1-mini'), chat('gpt-4.1-nano')], { escalate: true })),
    )
    let printed = ''
    const stdout = {
      write: (text: string) => {
        printed += text
        return true
      },
    }
    const evaluation = await evaluate([testCase, { ...testCase, input: 'Is it shipped?' }], [metric], {
      progress: false,
      stdout: stdout as never,
    })

    expect(evaluation.summary.byMetric[0]?.agreement).toBe(1)
    expect(evaluation.summary.byMetric[0]?.usage.jurors?.['gpt-4.1']?.judgeCalls).toBe(2)
    // gpt-4.1: 2 calls × (10 × $2 + 5 × $8) / 1M; gpt-4.1-mini: 2 × (10 × $0.4 + 5 × $1.6) / 1M.
    const line =
      'jury on Polite: agreement 1.00 (2 of 2 decisions unanimous) · gpt-4.1 2 calls $0.0001 · gpt-4.1-mini 2 calls $0.0000'
    expect(printed).toContain(line)
    const records = evaluation.results.map(({ result }, at) => ({
      ...toRecord(result),
      metricThreshold: 0.5,
      assertion: at + 1,
      negated: false,
      assertionPassed: true,
    }))
    const report = {
      runner: 'vitest' as const,
      shard: null,
      summary: evaluation.summary,
      tests: [{ project: '', file: 'polite.test.ts', name: 'polite', state: 'passed', evaluations: records }],
    }
    expect(renderRunOutput(report).split('\n').at(-2)).toBe(line)
    expect(records[0]?.agreement).toBe(1)
    // The step summary and evaluate()'s HTML say it too.
    expect(renderMarkdown(report)).toContain(`\n- ${line}\n`)
    expect(renderEvaluationHtml(evaluation.summary, evaluation.results)).toContain(`<p>${line}</p>`)
  })

  test("evaluate()'s HTML shows a failure's jurors' verdicts under each decision, as the text does", async () => {
    chatVerdicts({ 'gpt-4.1': false, 'gpt-4.1-mini': false })
    const metric = politeness(off().wrap(jury([chat('gpt-4.1'), chat('gpt-4.1-mini')])))
    const outputFile = join(tmp, 'jury-report.json')
    await evaluate([testCase], [metric], { progress: false, summary: false, outputFile })
    const html = readFileSync(join(tmp, 'jury-report.html'), 'utf8')
    expect(html).toContain('│    jury: gpt-4.1 false · gpt-4.1-mini false\n')
    expect(html).toContain('<p>jury on Polite: agreement 1.00 (1 of 1 decision unanimous) · gpt-4.1 1 call')
  })

  test('a run without a jury prints no jury line', async () => {
    chatVerdicts({ 'gpt-4.1': true })
    let printed = ''
    const stdout = {
      write: (text: string) => {
        printed += text
        return true
      },
    }
    const evaluation = await evaluate([testCase], [politeness(off().wrap(chat('gpt-4.1')))], {
      progress: false,
      stdout: stdout as never,
    })
    expect(printed).not.toContain('jury')
    expect(evaluation.results[0]?.result.agreement).toBeUndefined()
    expect(evaluation.results[0]?.result.usage.jurors).toBeUndefined()
  })
})

describe('jury: bad input', () => {
  const message = (make: () => unknown) => {
    try {
      make()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError)
      return (error as Error).message
    }
    throw new Error('expected a ConfigurationError')
  }

  test('says what was wrong and how to fix it', () => {
    expect(message(() => jury([]))).toBe('A jury needs two jurors or more; jury(jurors) got none: list two or more.')
    expect(message(() => jury(['gpt-4.1']))).toBe(
      'A jury needs two jurors or more; jury(jurors) got one: add another, or use that judge alone as `model`.',
    )
    expect(message(() => jury(['gpt-4.1', 42 as never]))).toContain(
      "Expected jurors[1] to be a model name such as 'gpt-6-luna' or a judge (OpenAIJudge, a decision judge, " +
        'aiSdkJudge(...), your own JudgeModel), got `42` (number).',
    )
    expect(message(() => jury('gpt-4.1' as never))).toContain("got 'gpt-4.1' (string)")
    expect(message(() => jury(['gpt-4.1', 'gpt-4.1']))).toContain('jurors[0] and jurors[1] are both named "gpt-4.1"')
    expect(message(() => jury(['gpt-4.1', jury(['gpt-4.1-mini', 'gpt-4.1-nano'])]))).toContain(
      'jurors[1] is a jury itself; list its jurors in this one instead.',
    )
    expect(message(() => jury(['gpt-4.1', 'gpt-4.1-mini'], { combine: 'maen' as never }))).toContain(
      "Expected `combine` to be 'mean' or 'majority' (did you mean 'mean'?), got 'maen' (string).",
    )
    expect(message(() => jury(['gpt-4.1', 'gpt-4.1-mini'], { escalate: 'yes' as never }))).toContain(
      "Expected `escalate` to be true or false, got 'yes' (string).",
    )
    expect(message(() => jury(['gpt-4.1', 'gpt-4.1-mini'], { escalate: true }))).toBe(
      'jury(jurors, { escalate: true }) needs three jurors or more (two asked first, the others when they ' +
        'disagree); got 2. Add a juror, or leave `escalate` out to ask both on every decision.',
    )
    expect(message(() => jury(['gpt-4.1', 'gpt-4.1-mini'], { escalte: true } as never))).toContain(
      'did you mean `escalate`?',
    )
  })

  test('a jury is accepted as a decisionModel, whatever its jurors are', async () => {
    chatVerdicts({ 'gpt-4.1-mini': true, 'gpt-4.1-nano': true })
    const metric = new DAGMetric({
      name: 'Polite',
      dag: politenessDag(),
      model: chat('gpt-4.1'),
      decisionModel: off().wrap(jury([chat('gpt-4.1-mini'), chat('gpt-4.1-nano')])),
    })
    const result = await metric.measure(testCase)
    expect(result.decisionModel).toBe('jury(gpt-4.1-mini, gpt-4.1-nano)')
    expect(server.requests.map((request) => request.body.model).sort()).toEqual(['gpt-4.1-mini', 'gpt-4.1-nano'])
    expect(result.agreement).toBe(1)
  })
})
