// One run of the pace-recovery scenarios of rate-limits.mjs: N single-turn test cases × a one-judge-call DAG through
// evaluate(), OpenAIJudge and HTTP to a limited-server on 127.0.0.1, with the default judge runtime (configured by
// JUDGETREE_CONCURRENCY and JUDGETREE_CACHE=off). The build measured is JUDGETREE_BENCH_CORE (see lib.mjs).
// Usage: node bench/scenarios/recovery.mjs <baseURL> [cases]
import { core, report } from '../lib.mjs'

const [baseURL, count = '1000'] = process.argv.slice(2)
const { BinaryJudgementNode, DAGMetric, DeepAcyclicGraph, LLMTestCaseParams, OpenAIJudge, VerdictNode } = core
const judge = new OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'sk-bench' })
const metric = new DAGMetric({
  name: 'Answers the question',
  model: judge,
  dag: new DeepAcyclicGraph({
    rootNodes: [
      new BinaryJudgementNode({
        criteria: 'Does the actual output answer the input?',
        evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
        children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
      }),
    ],
  }),
})
const cases = Array.from({ length: Number(count) }, (_, i) => ({
  input: `What is the weather in city ${i}?`,
  actualOutput: `It is sunny in city ${i}.`,
}))
const started = performance.now()
const { summary } = await core.evaluate(cases, [metric], { summary: false, progress: false })
report({
  evaluateMs: performance.now() - started,
  judgeCalls: summary.judgeCalls,
  errored: summary.errored,
  rateLimited: summary.rateLimits?.rateLimited,
})
