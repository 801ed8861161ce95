import { describe, expect, test, vi } from 'vitest'
import {
  BaseMetric,
  type CalibrationLabel,
  ConfigurationError,
  calibrate,
  type LabelledCase,
  type LLMTestCase,
  MeasurementAbortedError,
} from '../index.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import { averageRanks } from './statistics.js'

/** Scores a case with the number written as its output: the statistics then depend on nothing else. */
class WrittenScore extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  constructor() {
    super({ threshold: 0.5, model: scriptedJudge({ rules: [] }) }, { name: 'Written Score' })
  }
  protected score(testCase: LLMTestCase) {
    if (testCase.actualOutput === 'broken') throw new Error('could not read the score')
    return { score: Number(testCase.actualOutput), reason: `it says ${testCase.actualOutput}` }
  }
}

const metric = new WrittenScore()
const quiet = { summary: false, progress: false } as const

function cases(
  scores: readonly (number | 'broken')[],
  labels: readonly CalibrationLabel[],
): LabelledCase<LLMTestCase>[] {
  return scores.map((score, index) => ({
    testCase: { input: `case ${index}`, actualOutput: String(score) },
    label: labels[index] as CalibrationLabel,
    name: `c${index}`,
  }))
}

describe('calibrate() against pass/fail labels', () => {
  // judge scores 0.9 0.8 0.7 0.6 | 0.4 0.3 0.2 0.1 at threshold 0.5: judge passes the first four.
  // human:       T   T   F   T   | T   F   F   F
  // TP = cases 0,1,3 = 3; FP = case 2 = 1; FN = case 4 = 1; TN = cases 5,6,7 = 3.
  // agreement = (3 + 3) / 8 = 0.75.
  // kappa: judge pass rate 4/8 = 0.5, human pass rate 4/8 = 0.5, chance = 0.5·0.5 + 0.5·0.5 = 0.5,
  //        kappa = (0.75 − 0.5) / (1 − 0.5) = 0.5.
  // Suggested threshold: "score ≥ t passes" agrees with 4/8 at t = 0.1, 5/8 at 0.2, 6/8 at 0.3, 7/8 at 0.4
  // (only case 2 disagrees), 6/8 at 0.5 (the current threshold) and 0.6, 5/8 at 0.7 → 0.4, agreement 0.875.
  // Disagreements, farthest first: case 2 (0.7 on a fail, 0.7 away from 0), case 4 (0.4 on a pass, 0.6 from 1).
  const labels = [true, true, false, true, true, false, false, false].map((pass) => ({ pass }))
  const labelled = cases([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1], labels)

  test('agreement, kappa, confusion, suggested threshold and disagreements match the hand-computed values', async () => {
    const calibration = await calibrate(metric, labelled, quiet)
    expect(calibration).toMatchObject({
      metric: 'Written Score',
      threshold: 0.5,
      labels: 'pass',
      cases: 8,
      measured: 8,
      errored: 0,
      agreement: 0.75,
      kappa: 0.5,
      meanAbsoluteError: undefined,
      spearman: undefined,
      confusion: { truePositive: 3, falsePositive: 1, trueNegative: 3, falseNegative: 1 },
      suggestedThreshold: { value: 0.4, agreement: 0.875, fittedOn: 8 },
    })
    expect(
      calibration.disagreements.map((entry) => [entry.index, entry.score, entry.judgePass, entry.humanPass]),
    ).toEqual([
      [2, 0.7, true, false],
      [4, 0.4, false, true],
    ])
    expect(calibration.disagreements[0]).toMatchObject({
      name: 'c2',
      reason: 'it says 0.7',
      testCase: labelled[2]?.testCase,
    })
    expect(calibration.disagreements[0]?.trace.metric).toBe('Written Score')
  })

  test('a case whose measurement fails is reported with its error and left out of every number', async () => {
    // The same eight cases plus a ninth that errors: the numbers are those of the eight.
    const withBroken = [...labelled, ...cases(['broken'], [{ pass: true }]).map((entry) => ({ ...entry, name: 'c8' }))]
    const calibration = await calibrate(metric, withBroken, quiet)
    expect(calibration).toMatchObject({ cases: 9, measured: 8, errored: 1, agreement: 0.75, kappa: 0.5 })
    expect(calibration.errors).toHaveLength(1)
    expect(calibration.errors[0]).toMatchObject({ index: 8, name: 'c8', label: { pass: true } })
    expect(calibration.errors[0]?.error.message).toContain('could not read the score')
  })

  test('kappa is undefined when judge and humans each gave every case the same verdict', async () => {
    const calibration = await calibrate(metric, cases([0.9, 0.8], [{ pass: true }, { pass: true }]), quiet)
    expect(calibration).toMatchObject({ agreement: 1, kappa: undefined })
  })
})

describe('calibrate() against score labels', () => {
  // judge: 0.9 0.6 0.6 0.3 0.1; human: 0.8 0.7 0.4 0.4 0.0; threshold 0.5.
  // MAE = (0.1 + 0.1 + 0.2 + 0.1 + 0.1) / 5 = 0.12.
  // Ranks with ties averaged: judge [5, 3.5, 3.5, 2, 1], human [5, 4, 2.5, 2.5, 1]; both have mean 3.
  //   deviations judge [2, 0.5, 0.5, −1, −2], human [2, 1, −0.5, −0.5, −2]
  //   covariance sum = 4 + 0.5 − 0.25 + 0.5 + 4 = 8.75; squares: judge 9.5, human 9.5
  //   Spearman = 8.75 / √(9.5 · 9.5) = 8.75 / 9.5 = 0.92105…
  // Pass at 0.5: judge T T T F F, human T T F F F → TP 2, FP 1, TN 2, FN 0; agreement 4/5 = 0.8;
  //   chance = 0.6·0.4 + 0.4·0.6 = 0.48; kappa = (0.8 − 0.48) / 0.52 = 0.61538…
  // Suggested threshold: t = 0.1 → 2/5, 0.3 → 3/5, 0.5 (the current one) → 4/5, 0.6 → 4/5, 0.9 → 4/5, 1 → 3/5;
  //   0.5, 0.6 and 0.9 tie, and the current threshold is nearest itself: no change is suggested.
  const labelled = cases(
    [0.9, 0.6, 0.6, 0.3, 0.1],
    [0.8, 0.7, 0.4, 0.4, 0].map((score) => ({ score })),
  )

  test('MAE, Spearman with average ranks, kappa at the threshold and the suggested threshold', async () => {
    const calibration = await calibrate(metric, labelled, quiet)
    expect(calibration.labels).toBe('score')
    expect(calibration.meanAbsoluteError).toBeCloseTo(0.12, 12)
    expect(calibration.spearman).toBeCloseTo(8.75 / 9.5, 12)
    expect(calibration.kappa).toBeCloseTo(0.32 / 0.52, 12)
    expect(calibration).toMatchObject({
      agreement: 0.8,
      confusion: { truePositive: 2, falsePositive: 1, trueNegative: 2, falseNegative: 0 },
      suggestedThreshold: { value: 0.5, agreement: 0.8, fittedOn: 5 },
    })
    expect(calibration.disagreements.map((entry) => [entry.index, entry.humanPass])).toEqual([[2, false]])
  })

  test('ties share the mean of their ranks', () => {
    expect(averageRanks([0.2, 0.5, 0.5, 0.9])).toEqual([1, 2.5, 2.5, 4])
    expect(averageRanks([1, 1, 1])).toEqual([2, 2, 2])
  })

  test('Spearman is undefined when every human score is the same', async () => {
    const calibration = await calibrate(metric, cases([0.2, 0.9], [{ score: 1 }, { score: 1 }]), quiet)
    expect(calibration.spearman).toBeUndefined()
    expect(calibration.meanAbsoluteError).toBeCloseTo(0.45, 12)
  })
})

describe('calibrate() input', () => {
  test('labels of the wrong type are listed with their index and how to fix them', async () => {
    const bad = [
      { testCase: { input: 'a', actualOutput: '1' }, label: { pass: 'yes' } },
      { testCase: { input: 'b', actualOutput: '1' }, label: { score: 7 } },
      { testCase: { input: 'c', actualOutput: '1' }, label: true },
      { testCase: { input: 'd', actualOutput: '1' }, label: { pass: true, score: 1 } },
      { testCase: { turns: [{ role: 'user', content: 'hi' }] }, label: { pass: true } },
    ] as unknown as LabelledCase<LLMTestCase>[]
    const error = await calibrate(metric, bad, quiet).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ConfigurationError)
    expect((error as Error).message).toMatchInlineSnapshot(`
      "Invalid calibrate() labels:
        - labelled[0].label.pass is "yes"; expected true or false.
        - labelled[1].label.score is 7; expected a number from 0 to 1.
        - labelled[2].label is true. Give every case \`label: { pass: true | false }\` or every case \`label: { score: 0..1 }\`.
        - labelled[3].label has both \`pass\` and \`score\`; keep one. Give every case \`label: { pass: true | false }\` or every case \`label: { score: 0..1 }\`.
        - labelled[4].testCase is a conversation, but the metric judges single-turn test cases."
    `)
  })

  test('mixed kinds of labels name the fewer kind', async () => {
    const mixed = cases([0.1, 0.2, 0.3], [{ pass: true }, { pass: false }, { score: 0.3 }])
    await expect(calibrate(metric, mixed, quiet)).rejects.toThrow(
      /mix kinds: 2 pass\/fail and 1 score labels\. .* The score labels are at labelled\[2\]\./,
    )
  })

  test('an empty list and a non-metric are refused', async () => {
    await expect(calibrate(metric, [], quiet)).rejects.toThrow(/non-empty array of \{ testCase, label \}/)
    await expect(calibrate({} as typeof metric, cases([1], [{ pass: true }]), quiet)).rejects.toThrow(
      /expected `metric` to be a metric/,
    )
  })

  test('every wrong option is listed at once, a mistyped one with the name it meant', async () => {
    await expect(
      calibrate(metric, cases([1], [{ pass: true }]), { concurrency: 0, signal: 'stop', sumary: false } as never),
    ).rejects.toThrow(
      [
        'Invalid options for calibrate():',
        "  - Expected `signal` to be an AbortSignal (such as controller.signal or AbortSignal.timeout(30_000)), got 'stop' (string).",
        '  - Expected `concurrency` to be a whole number from 1 and up, got `0` (number).',
        '  - unknown option `sumary`; did you mean `summary`?',
      ].join('\n'),
    )
  })

  test('an aborted calibration rejects', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(
      calibrate(metric, cases([1], [{ pass: true }]), { ...quiet, signal: controller.signal }),
    ).rejects.toBeInstanceOf(MeasurementAbortedError)
  })

  test('an onProgress that throws ends the calibration: the other cases are not measured', async () => {
    const many = cases(
      Array.from({ length: 40 }, () => 0.9),
      Array.from({ length: 40 }, () => ({ pass: true })),
    )
    let measuredCases = 0
    class Counting extends WrittenScore {
      protected override score(testCase: LLMTestCase) {
        measuredCases += 1
        return super.score(testCase)
      }
    }
    const failure = new Error('the progress callback broke')
    let calls = 0
    await expect(
      calibrate(new Counting(), many, {
        ...quiet,
        concurrency: 4,
        // Throws once; the other workers' progress reports would be fine.
        onProgress: () => {
          calls += 1
          if (calls === 1) throw failure
        },
      }),
    ).rejects.toBe(failure)
    await new Promise((resolve) => setTimeout(resolve, 50))
    // The four workers' first cases at most: nothing was started after the callback threw.
    expect(measuredCases).toBeLessThanOrEqual(4)
  })
})

describe('calibrate() output', () => {
  test('inside a test runner nothing is printed unless asked, then to stderr, whose stdout is its reporters', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const labelled = cases([0.9], [{ pass: true }])
      // In a Vitest worker (VITEST_WORKER_ID is set here): the table would stand apart from the test that made it.
      await calibrate(metric, labelled, { progress: false })
      expect(err).not.toHaveBeenCalled()
      expect(out).not.toHaveBeenCalled()
      await calibrate(metric, labelled, { progress: false, summary: true })
      expect(err.mock.calls.flat().join('')).toContain('calibration of Written Score')
      expect(out).not.toHaveBeenCalled()
      // A stream of its own is asked for: it is printed there.
      const own: string[] = []
      await calibrate(metric, labelled, { progress: false, stdout: { write: (text: string) => own.push(text) > 0 } })
      expect(own.join('')).toContain('calibration of Written Score')
      // In a script: stdout.
      vi.stubEnv('VITEST_WORKER_ID', '')
      vi.stubEnv('JEST_WORKER_ID', '')
      err.mockClear()
      await calibrate(metric, labelled, { progress: false })
      expect(out.mock.calls.flat().join('')).toContain('calibration of Written Score')
      expect(err).not.toHaveBeenCalled()
    } finally {
      out.mockRestore()
      err.mockRestore()
      vi.unstubAllEnvs()
    }
  })

  test('prints the numbers, the confusion table, the fitted threshold and the worst disagreements', async () => {
    let printed = ''
    const labels = [true, true, false, true, true, false, false, false].map((pass) => ({ pass }))
    const labelled = [
      ...cases([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1], labels),
      ...cases(['broken'], [{ pass: true }]).map((entry) => ({ ...entry, name: 'c8' })),
    ]
    const progress: number[] = []
    await calibrate(metric, labelled, {
      progress: false,
      stdout: { write: (text: string) => (printed += text) },
      onProgress: ({ done }) => progress.push(done),
    })
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(printed).toMatchInlineSnapshot(`
      "calibration of Written Score against 9 human pass/fail labels

        agreement        0.750  (6 of 8 verdicts)
        Cohen's kappa    0.500

                    human pass  human fail
        judge pass           3           1
        judge fail           1           3

        threshold 0.5; 0.4 would agree best (0.875, fitted on these 8 cases: check it on others)

      2 disagreements, the farthest apart first:
        ✗ case 2 "c2": judge 0.7 (pass), human fail · it says 0.7
        ✗ case 4 "c4": judge 0.4 (fail), human pass · it says 0.4

      1 case errored and is left out of the numbers:
        ✗ case 8 "c8": The metric "Written Score" failed: could not read the score

      judgetree calibration: 9 cases, 8 measured, 1 errored · 0 judge calls (0 cached) · 0 tokens · $0.0000
      "
    `)
  })
})
