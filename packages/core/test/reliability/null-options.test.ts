import { describe, expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  CodeNode,
  ConversationalBinaryJudgementNode,
  ConversationalGEval,
  ConversationalTaskNode,
  ConversationalVerdictNode,
  ConversationRelevancyMetric,
  calibrate,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  GEval,
  NonBinaryJudgementNode,
  OpenAIDecisionJudge,
  OpenAIJudge,
  TaskNode,
  ToolCallNode,
  TurnContextualRelevancyMetric,
  VerdictNode,
} from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { scriptedJudge } from '../../src/testing.js'

// `null` is a value, not "leave it out": a JavaScript caller (or JSON config) that passes `threshold: null` must
// hear about it, as for any other bad value, instead of silently getting the default. `undefined` keeps meaning
// "use the default". One table, so every public option bag is reviewed for it in one place.

const judge = scriptedJudge({ rules: [] })
const yes = () => new VerdictNode({ verdict: true, score: 10 })
const no = () => new VerdictNode({ verdict: false, score: 0 })
const binary = () =>
  new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: ['actualOutput'], children: [no(), yes()] })
const dag = () => new DeepAcyclicGraph({ rootNodes: [binary()] })
const testCase = { input: 'Capital of France?', actualOutput: 'Paris' }

/** Builds something with the valid options plus `{ [key]: null }`; it must throw. */
type Build = (extra: Record<string, null>) => unknown

const metricOptions = [
  'threshold',
  'model',
  'includeReason',
  'strictMode',
  'asyncMode',
  'verboseMode',
  'trials',
  'aggregate',
  'minPassProbability',
]
const bags: Record<string, { build: Build; keys: readonly string[]; code?: string }> = {
  DAGMetric: {
    build: (extra) => new DAGMetric({ name: 'Correct', dag: dag(), model: judge, ...extra } as never),
    keys: [...metricOptions, 'summarizeReason'],
  },
  GEval: {
    build: (extra) =>
      new GEval({
        name: 'Correct',
        criteria: 'Is it right?',
        evaluationParams: ['actualOutput'],
        model: judge,
        ...extra,
      } as never),
    keys: [...metricOptions, 'rubric', 'topLogprobs'],
  },
  ConversationalGEval: {
    build: (extra) =>
      new ConversationalGEval({ name: 'Kind', criteria: 'Is it kind?', model: judge, ...extra } as never),
    keys: [...metricOptions, 'rubric', 'topLogprobs', 'evaluationParams'],
  },
  ConversationRelevancyMetric: {
    build: (extra) => new ConversationRelevancyMetric({ model: judge, ...extra } as never),
    keys: ['name', ...metricOptions, 'windowSize'],
  },
  TurnContextualRelevancyMetric: {
    build: (extra) => new TurnContextualRelevancyMetric({ model: judge, ...extra } as never),
    keys: ['name', ...metricOptions, 'windowSize'],
  },
  VerdictNode: {
    build: (extra) => new VerdictNode({ verdict: true, score: 10, ...extra } as never),
    keys: ['score'],
    code: 'DAG_INVALID',
  },
  BinaryJudgementNode: {
    build: (extra) =>
      new BinaryJudgementNode({
        criteria: 'Ok?',
        evaluationParams: ['actualOutput'],
        children: [no(), yes()],
        ...extra,
      } as never),
    keys: ['label', 'evaluationParams'],
    code: 'DAG_INVALID',
  },
  NonBinaryJudgementNode: {
    build: (extra) =>
      new NonBinaryJudgementNode({
        criteria: 'Tone?',
        children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Cold', score: 0 })],
        ...extra,
      } as never),
    keys: ['label', 'evaluationParams'],
    code: 'DAG_INVALID',
  },
  ConversationalBinaryJudgementNode: {
    build: (extra) =>
      new ConversationalBinaryJudgementNode({
        criteria: 'Polite?',
        children: [
          new ConversationalVerdictNode({ verdict: true, score: 10 }),
          new ConversationalVerdictNode({ verdict: false, score: 0 }),
        ],
        ...extra,
      } as never),
    keys: ['label', 'evaluationParams', 'turnWindow'],
    code: 'DAG_INVALID',
  },
  TaskNode: {
    build: (extra) =>
      new TaskNode({ instructions: 'Extract', outputLabel: 'Out', children: [binary()], ...extra } as never),
    keys: ['label', 'evaluationParams'],
    code: 'DAG_INVALID',
  },
  ConversationalTaskNode: {
    build: (extra) => new ConversationalTaskNode({ instructions: 'Extract', outputLabel: 'Out', ...extra } as never),
    keys: ['label', 'evaluationParams', 'turnWindow'],
    code: 'DAG_INVALID',
  },
  ToolCallNode: {
    build: (extra) => new ToolCallNode({ required: ['search'], children: [no(), yes()], ...extra } as never),
    keys: ['label', 'forbidden', 'inOrder'],
    code: 'DAG_INVALID',
  },
  CodeNode: {
    build: (extra) => new CodeNode({ name: 'Short', check: () => true, children: [no(), yes()], ...extra } as never),
    keys: ['label', 'evaluationParams'],
    code: 'DAG_INVALID',
  },
  OpenAIJudge: {
    build: (extra) => new OpenAIJudge({ apiKey: 'sk-test-null', baseURL: 'http://127.0.0.1:9/v1', ...extra } as never),
    keys: [
      'model',
      'baseURL',
      'timeoutMs',
      'maxRetries',
      'temperature',
      'reasoningEffort',
      'structuredOutputs',
      'pricing',
      'fetch',
      'client',
      'warn',
      'cacheNamespace',
    ],
  },
  OpenAIDecisionJudge: {
    build: (extra) =>
      new OpenAIDecisionJudge({ apiKey: 'sk-test-null', baseURL: 'http://127.0.0.1:9/v1', ...extra } as never),
    keys: ['model', 'apiKey', 'baseURL', 'timeoutMs', 'maxRetries', 'pricing', 'fetch', 'client', 'cacheNamespace'],
  },
  createJudgeRuntime: {
    build: (extra) => createJudgeRuntime({ cache: 'off', ...extra } as never),
    keys: ['cache', 'cacheDir', 'concurrency', 'requestsPerMinute', 'coordinatorUrl', 'warn'],
  },
}

describe.each(Object.entries(bags))('%s', (bag, { build, keys, code = 'CONFIGURATION_INVALID' }) => {
  test('builds with the valid options', () => {
    expect(() => build({})).not.toThrow()
  })
  test.each(keys)(`%s: null is a ${code} error naming the option`, (key) => {
    let thrown: unknown
    try {
      build({ [key]: null })
    } catch (error) {
      thrown = error
    }
    expect(thrown, `${bag}({ ${key}: null }) was accepted`).toMatchObject({ code })
    expect((thrown as Error).message).toContain(key)
    expect((thrown as Error).message).toMatch(/null/)
  })
})

const metric = () => new DAGMetric({ name: 'Correct', dag: dag(), model: judge })
const runs: Record<string, { run: (extra: Record<string, null>) => Promise<unknown>; keys: readonly string[] }> = {
  evaluate: {
    run: (extra) => evaluate([testCase], [metric()], { summary: false, progress: false, ...extra } as never),
    keys: [
      'concurrency',
      'onProgress',
      'progress',
      'summary',
      'signal',
      'outputFile',
      'stdout',
      'stderr',
      'minPassProbability',
    ],
  },
  calibrate: {
    run: (extra) =>
      calibrate(metric(), [{ testCase, label: { pass: true } }], {
        summary: false,
        progress: false,
        ...extra,
      } as never),
    keys: ['concurrency', 'onProgress', 'progress', 'summary', 'signal', 'stdout', 'stderr', 'minPassProbability'],
  },
}

describe.each(Object.entries(runs))('%s()', (name, { run, keys }) => {
  test.each(keys)('%s: null rejects with CONFIGURATION_INVALID naming the option', async (key) => {
    const outcome = await run({ [key]: null }).then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: error }),
    )
    expect(outcome, `${name}({ ${key}: null }) was accepted`).toMatchObject({
      rejected: { code: 'CONFIGURATION_INVALID', message: expect.stringContaining(key) },
    })
  })
})

describe('metric.measure(testCase, options), which never rejects', () => {
  test.each(['signal', 'trials', 'aggregate', 'minPassProbability'])(
    '%s: null is a CONFIGURATION_INVALID result naming the option',
    async (key) => {
      const result = await metric().measure(testCase, { [key]: null } as never)
      expect(result.error).toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining(key) })
    },
  )
})

test('undefined still means "use the default" everywhere', async () => {
  expect(new DAGMetric({ name: 'Correct', dag: dag(), model: judge, threshold: undefined }).threshold).toBe(0.5)
  const node = new BinaryJudgementNode({
    criteria: 'Ok?',
    label: undefined,
    evaluationParams: undefined,
    children: [no(), yes()],
  })
  expect(node.label).toBeUndefined()
  expect(() => createJudgeRuntime({ cache: 'off', concurrency: undefined, requestsPerMinute: undefined })).not.toThrow()
  expect(
    () => new OpenAIJudge({ apiKey: 'sk-test-null', baseURL: 'http://127.0.0.1:9/v1', timeoutMs: undefined }),
  ).not.toThrow()
  const { results } = await evaluate([testCase], [metric()], {
    summary: false,
    progress: false,
    concurrency: undefined,
  })
  expect(results).toHaveLength(1)
})
