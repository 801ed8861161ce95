import { BaseMetric, ConfigurationError, calibrate, type LLMTestCase } from '@judgetree/core'
import { scriptedJudge } from '@judgetree/core/testing'
import { describe, expect, test } from 'vitest'
import { checkAgreement } from './agreement.js'

/** Scores a case with the number written as its output. */
class WrittenScore extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  constructor() {
    super({ threshold: 0.5, model: scriptedJudge({ rules: [] }) }, { name: 'Written Score' })
  }
  protected score(testCase: LLMTestCase) {
    return { score: Number(testCase.actualOutput), reason: `it says ${testCase.actualOutput}` }
  }
}

// Judge 0.9 0.8 0.7 0.6 0.4 0.3 0.2 0.1 against humans T T F T T F F F: agreement 0.75, kappa 0.5 (hand-computed
// in core's calibrate.test.ts).
const labels = [true, true, false, true, true, false, false, false]
const calibration = await calibrate(
  new WrittenScore(),
  [0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1].map((score, index) => ({
    testCase: { input: `case ${index}`, actualOutput: String(score) },
    label: { pass: labels[index] as boolean },
  })),
  { summary: false, progress: false },
)

describe('toAgreeWith', () => {
  test('passes when every bound is met', () => {
    expect(checkAgreement(calibration, { kappa: 0.5, agreement: 0.7 }, false).pass).toBe(true)
  })

  test('fails with each number against its bound and the worst disagreements', () => {
    const outcome = checkAgreement(calibration, { kappa: 0.6, agreement: 0.7, spearman: 0.5 }, false)
    expect(outcome.pass).toBe(false)
    expect(outcome.message()).toMatchInlineSnapshot(`
      "expected the judge to agree with the human labels:
        ✗ Cohen's kappa   0.500  (≥ 0.6 wanted)
        ✓ agreement       0.750  (≥ 0.7 wanted)
        ✗ Spearman        n/a  (not defined on these cases)

      Written Score on 8 labelled cases (8 measured, 0 errored); confusion: 3 TP, 1 FP, 3 TN, 1 FN
      worst of 2 disagreements:
        ✗ case 2: judge 0.7 (pass), human fail · it says 0.7
        ✗ case 4: judge 0.4 (fail), human pass · it says 0.4"
    `)
  })

  test('under .not, says the judge agrees too well', () => {
    const outcome = checkAgreement(calibration, { kappa: 0.4 }, true)
    expect(outcome.pass).toBe(true)
    expect(outcome.message().split('\n')[0]).toBe(
      'expected the judge not to agree this well with the human labels, but it does:',
    )
  })

  test('bad expectations and a value that is not a calibration are configuration errors', () => {
    expect(() => checkAgreement(calibration, {}, false)).toThrow(/Name at least one of `kappa`/)
    expect(() => checkAgreement(calibration, { kapa: 0.6 }, false)).toThrow(ConfigurationError)
    expect(() => checkAgreement(calibration, { kappa: '0.6' }, false)).toThrow(/Expected `kappa` to be a number/)
    expect(() => checkAgreement(0.5, { kappa: 0.6 }, false)).toThrow(/checks what calibrate\(\) resolves to/)
  })
})

describe('toAgreeWith through expect', () => {
  test('is registered by the setup file', async () => {
    await import('../vitest/setup.js')
    expect(calibration).toAgreeWith({ kappa: 0.5 })
    expect(() => expect(calibration).toAgreeWith({ meanAbsoluteError: 0.1 })).toThrow(
      /mean abs\. error +n\/a +\(not defined on these cases\)/,
    )
  })
})
