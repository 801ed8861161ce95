import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { DeepAcyclicGraph } from '../dag/graph.js'
import { BinaryJudgementNode } from '../dag/nodes/binary-judgement-node.js'
import { VerdictNode } from '../dag/nodes/verdict-node.js'
import type { JudgeModel } from '../judge/types.js'
import type { DAGMetricOptions } from '../metrics/dag-metric.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { createJudgeRuntime } from '../runtime/judge-runtime.js'
import { LLMTestCaseParams } from '../test-case/params.js'
import { renderResult } from '../trace/render.js'
import { wilsonInterval } from './pass-probability.js'
import { withThreshold } from './trial-result.js'

const testCase = { input: 'Greet me', actualOutput: 'Hello there, friend!' }
const tmp = mkdtempSync(join(tmpdir(), 'judgetree-trial-probability-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A point-answer chat judge whose verdict depends on the trial it is asked for; it lists the trials it was asked. */
function byTrial(passes: (trial: number) => boolean) {
  const asked: number[] = []
  const judge: JudgeModel = {
    name: 'by-trial',
    cacheIdentity: { test: 'by-trial' },
    async generate(request) {
      const trial = request.trial ?? 0
      asked.push(trial)
      return {
        value: { verdict: passes(trial), reason: `trial ${trial}` } as never,
        usage: { promptTokens: 10, completionTokens: 5, costUsd: 0 },
        cached: false,
      }
    },
  }
  return { judge, asked }
}

const metric = (model: JudgeModel, options: Partial<DAGMetricOptions> = {}) =>
  new DAGMetric({
    name: 'Polite',
    dag: new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: 'Polite?',
          evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
          children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 0 })],
        }),
      ],
    }),
    model,
    ...options,
  })

describe('trials as the fallback for a point-answer judge', () => {
  test('the pass rate with its 95% Wilson interval, source trials, pivot at the split decision', async () => {
    const { judge } = byTrial((trial) => trial <= 3)
    const result = await metric(createJudgeRuntime({ cache: 'off' }).wrap(judge), { trials: 5 }).measure(testCase)
    const { low, high } = wilsonInterval(3, 5)
    expect(result.passProbability).toEqual({
      p: 0.6,
      low,
      high,
      expectedScore: 0.6,
      source: 'trials',
      pivot: { node: 'n1', label: 'Polite?', verdict: true, probability: 0.6 },
    })
    expect(renderResult(result)).toContain(
      'P(pass) 0.60 (95% 0.23–0.88) · expected score 0.6 · most uncertain: [n1] Polite? → true (0.60)',
    )
    // Against another threshold the trials are judged again; a single measurement's probability is dropped.
    expect(withThreshold(result, 0.5).passProbability?.p).toBe(0.6)
    const single = await metric(createJudgeRuntime({ cache: 'off' }).wrap(judge)).measure(testCase)
    expect(single.passProbability).toBeUndefined()
  })

  test("until: 'decided' stops as soon as the interval clears the line: 4 passing trials of 10", async () => {
    const { judge, asked } = byTrial(() => true)
    const trials = { max: 10, until: 'decided' } as const
    const result = await metric(createJudgeRuntime({ cache: 'off' }).wrap(judge), { trials }).measure(testCase)
    expect(asked.sort((a, b) => a - b)).toEqual([1, 2, 3, 4])
    expect(result.trials).toHaveLength(4)
    expect(result.passProbability).toMatchObject({ p: 1, source: 'trials', stopped: 'decided' })
    expect(result.passProbability?.low).toBeGreaterThan(0.5)
  })

  test("until: 'decided' says undecided when max is reached first", async () => {
    const { judge, asked } = byTrial((trial) => trial % 2 === 0)
    const trials = { max: 8, until: 'decided' } as const
    const result = await metric(createJudgeRuntime({ cache: 'off' }).wrap(judge)).measure(testCase, { trials })
    expect(asked).toHaveLength(8)
    expect(result.passProbability).toMatchObject({ p: 0.5, stopped: 'undecided' })
    expect(renderResult(result)).toContain('P(pass) 0.50 (95% 0.22–0.78, undecided)')
  })

  test('a higher minPassProbability needs more trials, one round at a time; replay stops at the same trial', async () => {
    const cacheDir = join(tmp, 'replay')
    // Fails trial 2 only: the interval must lie above 0.8, which takes 16 trials even when all pass.
    const { judge, asked } = byTrial((trial) => trial !== 2)
    const options = { trials: { max: 40, until: 'decided' as const }, minPassProbability: 0.8 }
    const first = await metric(createJudgeRuntime({ cache: 'read-write', cacheDir }).wrap(judge), options).measure(
      testCase,
    )
    expect(first.passProbability).toMatchObject({ stopped: 'decided' })
    expect(first.passProbability?.low).toBeGreaterThan(0.8)
    const n = first.trials?.length ?? 0
    // One trial fewer would not have decided: it stopped as soon as it could.
    expect(wilsonInterval(n - 2, n - 1).low).toBeLessThanOrEqual(0.8)
    expect(asked).toHaveLength(n)
    const replayed = byTrial(() => false)
    const again = await metric(createJudgeRuntime({ cache: 'replay', cacheDir }).wrap(replayed.judge), options).measure(
      testCase,
    )
    expect(replayed.asked).toEqual([])
    expect(again.trials).toHaveLength(n)
    expect(again.passProbability).toEqual(first.passProbability)
  })

  test('the trials option is checked: its object form names what it takes', () => {
    const judge = byTrial(() => true).judge
    expect(() => metric(judge, { trials: { max: 0, until: 'decided' } })).toThrow(
      /trials.*\{ max, until: 'decided' \} with max a whole number from 1 to 100/s,
    )
    expect(() => metric(judge, { trials: { max: 5, until: 'always' } as never })).toThrow(/until: 'decided'/)
    expect(() => metric(judge, { minPassProbability: 1 })).toThrow(/minPassProbability.*between 0 and 1/s)
  })
})
