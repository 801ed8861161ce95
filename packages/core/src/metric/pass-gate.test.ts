// The gate on the chance of passing (minPassProbability) through evaluate() and calibrate(), and the chance as the
// surfaces show it: the summary line, the closing list's line, the picture's edges and `judgetree compare`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { calibrate } from '../calibrate/calibrate.js'
import { compareReports } from '../compare/compare-reports.js'
import { renderComparison } from '../compare/render.js'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import { evaluate } from '../evaluate/evaluate.js'
import type { JudgeModel } from '../judge/types.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { failureLine } from '../report/failures.js'
import { toRecord } from '../report/record.js'
import type { AssertionRecord } from '../report/run.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { renderResult } from '../trace/render.js'
import { withThreshold } from './trial-result.js'

/** A judge that finds the issue resolved with probability `p`, as a decision judge gives it; counts its calls. */
function resolvedWith(p: number) {
  const judge = {
    name: 'sure',
    cacheable: false,
    calls: 0,
    async generate<T>() {
      judge.calls += 1
      const value = { reason: 'It says so.', verdict: true } as T
      const usage = { promptTokens: 10, completionTokens: 1, costUsd: undefined }
      return { value, usage, cached: false, distribution: { true: p, false: 1 - p } }
    },
  }
  return judge satisfies JudgeModel
}

function resolution(model: JudgeModel): DAGMetric {
  return new DAGMetric({
    name: 'Resolution',
    model,
    threshold: 0.5,
    dag: new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: 'Was the issue resolved?',
          label: 'Was the issue resolved?',
          evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
          children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
        }),
      ],
    }),
  })
}

const testCase = { input: 'My order is late.', actualOutput: 'It ships today; here is the tracking link.' }
const quiet = { summary: false, progress: false } as const

describe('evaluate() and calibrate() with minPassProbability', () => {
  test('evaluate(): a passing score with P(pass) below the minimum fails, and its text says why', async () => {
    const { results, summary } = await evaluate([testCase], [resolution(resolvedWith(0.72))], {
      ...quiet,
      minPassProbability: 0.9,
    })
    const [{ result }] = results as [(typeof results)[number]]
    expect(result).toMatchObject({ score: 1, success: false, minPassProbability: 0.9, passProbability: { p: 0.72 } })
    expect(summary).toMatchObject({ passed: 0, failed: 1 })
    expect(renderResult(result).split('\n').slice(0, 2)).toEqual([
      'FAIL Resolution: score 1 (threshold 0.5, minPassProbability 0.9) · P(pass) 0.72 · judge sure',
      'gate: P(pass) 0.72 is below minPassProbability 0.9',
    ])
  })

  test('evaluate(): P(pass) at the minimum passes; without the option nothing changes', async () => {
    const gated = await evaluate([testCase], [resolution(resolvedWith(0.9))], { ...quiet, minPassProbability: 0.9 })
    expect(gated.results[0]?.result).toMatchObject({ success: true, minPassProbability: 0.9 })
    const plain = await evaluate([testCase], [resolution(resolvedWith(0.6))], quiet)
    expect(plain.results[0]?.result.success).toBe(true)
    expect(plain.results[0]?.result.minPassProbability).toBeUndefined()
  })

  test('evaluate(): a bad minimum is refused with every other problem, before any judge call', async () => {
    const judge = resolvedWith(0.9)
    await expect(
      evaluate([testCase], [resolution(judge)], { ...quiet, minPassProbability: 1.2 as number }),
    ).rejects.toThrow(
      'Expected `minPassProbability` to be a number between 0 and 1, exclusive (the pass probability the verdict must clear, e.g. 0.9), got `1.2` (number).',
    )
    await expect(
      evaluate([testCase], [resolution(judge)], { ...quiet, minPassProbability: Number.NaN }),
    ).rejects.toThrow('minPassProbability')
    expect(judge.calls).toBe(0)
  })

  test('calibrate(): the judge passes a case only when it clears the minimum', async () => {
    const labelled = [{ testCase, label: { pass: true } }]
    const loose = await calibrate(resolution(resolvedWith(0.72)), labelled, quiet)
    expect(loose.results[0]?.judgePass).toBe(true)
    const gated = await calibrate(resolution(resolvedWith(0.72)), labelled, { ...quiet, minPassProbability: 0.9 })
    expect(gated.results[0]?.judgePass).toBe(false)
    expect(gated.disagreements).toHaveLength(1)
  })
})

describe('P(pass) on the surfaces', () => {
  test("the closing list's line names the chance and the most uncertain decision", async () => {
    const result = await resolution(resolvedWith(0.55)).measure(testCase)
    const failing = { ...toRecord({ ...result, threshold: 1.1 as number, success: false }) }
    const record = { ...failing, metricThreshold: 1, assertion: 1, negated: false, assertionPassed: false }
    expect(failureLine(record as AssertionRecord)).toBe(
      'Resolution: score 1 < threshold 1.1 · P(pass) 0.55 · “Was the issue resolved?” → true · most uncertain: [n1] Was the issue resolved? → true (0.55)',
    )
    const gated = toRecord({ ...result, success: false, minPassProbability: 0.9 })
    const gatedRecord = { ...gated, metricThreshold: 0.5, assertion: 1, negated: false, assertionPassed: false }
    expect(failureLine(gatedRecord as AssertionRecord)).toBe(
      'Resolution: score 1 ≥ threshold 0.5, but P(pass) 0.55 is below minPassProbability 0.9 · “Was the issue resolved?” → true · most uncertain: [n1] Was the issue resolved? → true (0.55)',
    )
  })

  test("the picture labels each walked edge to a verdict with the judge's probability", async () => {
    const metric = resolution(resolvedWith(0.93))
    const { trace } = await metric.measure(testCase)
    const mermaid = metric.dag.toMermaid({ trace })
    expect(mermaid).toContain('n1 -->|0.93| n2')
    expect(mermaid).toContain('n1 --> n3')
    const dot = metric.dag.toDot({ trace })
    expect(dot).toContain('n1 -> n2 [label="0.93", color="#15803d", penwidth=3]')
    expect(dot).toContain('n1 -> n3 [color="#a1a1aa"]')
    // Without a trace, no edge has a probability.
    expect(metric.dag.toMermaid()).not.toContain('|0.93|')
  })
})

describe('judgetree compare', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'judgetree-gate-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('reports the change in P(pass), also where the score did not move', async () => {
    const write = async (name: string, p: number) => {
      const outputFile = join(scratch, name)
      await evaluate([testCase], [resolution(resolvedWith(p))], { ...quiet, outputFile, stderr: { write: () => true } })
      return outputFile
    }
    const comparison = compareReports(await write('before.json', 0.93), await write('after.json', 0.72))
    expect(comparison.evaluations[0]).toMatchObject({
      scoreChange: 0,
      before: { passProbability: 0.93 },
      after: { passProbability: 0.72 },
    })
    expect(comparison.evaluations[0]?.passProbabilityChange).toBeCloseTo(-0.21)
    expect(renderComparison(comparison)).toContain('case 0 · Resolution: 1 → 1 (±0) · P(pass) 0.93 → 0.72')
  })
})

describe("a threshold other than the metric's own", () => {
  test("drops the judge's probability and says why, so the gate names the fix", async () => {
    const result = await resolution(resolvedWith(0.95)).measure(testCase)
    expect(result.passProbability?.p).toBeCloseTo(0.95)
    const stricter = withThreshold({ ...result, minPassProbability: 0.9 }, 0.8)
    expect(stricter.passProbability).toBeUndefined()
    expect(stricter.passProbabilityUnavailable).toBe(
      "the judge's probabilities were read against the metric's threshold 0.5, not 0.8; for P(pass) against another " +
        'threshold, set it on the metric (its `threshold` option)',
    )
    expect(renderResult({ ...stricter, success: false })).toContain(
      "gate: minPassProbability 0.9 needs a pass probability, and this measurement has none: the judge's " +
        "probabilities were read against the metric's threshold 0.5, not 0.8. Get one with a decision judge",
    )
  })
})
