// Replay misses on a big cache (issue 24, R12): records `entries` one-call measurements with an in-process judge,
// then replays `misses` measurements the cache has no answer for, through one runtime, and times them. Each miss's
// error lists what the cache holds for that kind of call. The build measured is JUDGETREE_BENCH_CORE (see lib.mjs).
// Usage: node bench/scenarios/replay-misses.mjs [entries] [misses]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { core, instantJudge, measureAll, report } from '../lib.mjs'

const [entries = '3000', misses = '300'] = process.argv.slice(2)
const { BinaryJudgementNode, DAGMetric, DeepAcyclicGraph, LLMTestCaseParams, VerdictNode } = core
const metricFor = (model) =>
  new DAGMetric({
    name: 'Answers the question',
    model,
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
const cases = (from, count) =>
  Array.from({ length: count }, (_, i) => ({ input: `Question ${from + i}?`, actualOutput: `Answer ${from + i}.` }))

const cacheDir = await mkdtemp(join(tmpdir(), 'judgetree-bench-replay-'))
try {
  const judge = instantJudge({ distinct: true })
  const recording = core.createJudgeRuntime({ cache: 'read-write', cacheDir, concurrency: 8 })
  const recordErrors = await measureAll(metricFor(recording.wrap(judge)), cases(0, Number(entries)), 8)
  if (recordErrors > 0) throw new Error(`${recordErrors} recordings failed`)
  const replay = core.createJudgeRuntime({ cache: 'replay', cacheDir, concurrency: 8 })
  const metric = metricFor(replay.wrap(judge))
  const started = performance.now()
  const results = await Promise.all(cases(1_000_000, Number(misses)).map((testCase) => metric.measure(testCase)))
  const missMs = performance.now() - started
  const missed = results.filter((result) => result.error?.code === 'CACHE_MISS').length
  if (missed !== Number(misses)) throw new Error(`expected ${misses} cache misses, got ${missed}`)
  const listed = /recorded: (\d+) /.exec(results[0]?.error?.message ?? '')?.[1]
  report({ entries: Number(entries), misses: missed, missMs, perMissMs: missMs / missed, listed: Number(listed) })
} finally {
  await rm(cacheDir, { recursive: true, force: true })
}
