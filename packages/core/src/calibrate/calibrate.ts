import { ConfigurationError, type JudgetreeError } from '../errors.js'
import { measureSafely } from '../evaluate/measure-safely.js'
import { printRun } from '../evaluate/print-summary.js'
import type { EvaluationProgress, OutputStream } from '../evaluate/progress-bar.js'
import { type MeasuringOptions, runMeasurements } from '../evaluate/run-measurements.js'
import { calibrateOptionsSchema } from '../evaluate/run-options.js'
import { defaultSummaryStream, insideTestRunner } from '../internal/env.js'
import { parseOptions } from '../internal/options.js'
import { type JuryRecord, recordingJuries } from '../judge/jury-replay.js'
import { withMinPassProbability } from '../metric/pass-gate.js'
import type { Metric, MetricResult, MetricUsage } from '../metric/types.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import type { CalibrationRun } from '../report/run.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'
import type { MetricTrace } from '../trace/types.js'
import { calibrateJurors, type JurorCalibration } from './jurors.js'
import { type CalibrationLabel, checkLabelledCases, type LabelKind, type LabelledCase } from './labels.js'
import {
  agreementOf,
  type Confusion,
  cohensKappa,
  confusionOf,
  fitThreshold,
  meanAbsoluteError,
  spearman,
} from './statistics.js'

/** Options of {@link calibrate}. */
export interface CalibrateOptions {
  /** Cases measured at once (judge calls are limited separately, by the judge runtime). @default 64 */
  concurrency?: number | undefined
  /** Called after each case with the totals so far. */
  onProgress?: ((progress: EvaluationProgress) => void) | undefined
  /** Draw a progress bar on stderr. @default stderr is a terminal and CI is not set */
  progress?: boolean | undefined
  /**
   * Print the calibration summary at the end (to `stdout`). A stream that fails (its `write` throws, or EPIPE)
   * does not cost the calibration: calibrate() still resolves with it and says on `stderr` why nothing was printed.
   * Inside a Vitest or Jest test nothing is printed unless `summary` or `stdout` is given: the table would stand apart
   * from the test that made it, and `toAgreeWith` shows it in its failure.
   * @default true, but false inside a test when `stdout` is not given
   */
  summary?: boolean | undefined
  /** Stops starting cases and cancels those in flight; calibrate() then rejects with MeasurementAbortedError. */
  signal?: AbortSignal | undefined
  /** @default process.stdout; process.stderr inside a Vitest or Jest test, whose stdout belongs to the runner */
  stdout?: OutputStream | undefined
  /** @default process.stderr */
  stderr?: OutputStream | undefined
  /**
   * Count a case as passed by the judge only when it passes and its chance of passing (`result.passProbability.p`) is at least
   * this, 0..1 exclusive; one without a pass probability then fails, and its text says how to get one. Also the
   * line `trials: { max, until: 'decided' }` stops at. See docs/trust.md. @default no minimum
   */
  minPassProbability?: number | undefined
}

/** One labelled case the metric measured, and how its verdict compares with the human's. */
export interface CalibrationCase<TestCase> {
  /** The case's position in the labelled list. */
  readonly index: number
  readonly name: string | undefined
  readonly testCase: TestCase
  readonly label: CalibrationLabel
  readonly result: MetricResult
  /** The metric passed the case. */
  readonly judgePass: boolean
  /** The human passed it: `label.pass`, or `label.score` at or above the metric's threshold. */
  readonly humanPass: boolean
}

/** A case where the judge's verdict is not the human's: the evidence for reading the judge's reasoning. */
export interface CalibrationDisagreement<TestCase> extends CalibrationCase<TestCase> {
  readonly score: number
  readonly threshold: number
  readonly reason: string | undefined
  readonly trace: MetricTrace
}

/** A labelled case whose measurement failed: reported here, left out of every statistic. */
export interface CalibrationError<TestCase> {
  readonly index: number
  readonly name: string | undefined
  readonly testCase: TestCase
  readonly label: CalibrationLabel
  readonly error: JudgetreeError
}

/** The threshold that would have agreed best with the humans: fitted on the same cases, so optimistic. */
export interface SuggestedThreshold {
  /** "score ≥ value passes" agrees with the most labels. */
  readonly value: number
  /** The agreement it reaches on these cases. */
  readonly agreement: number
  /** How many cases it was fitted on: check it on cases it has not seen before trusting the agreement. */
  readonly fittedOn: number
}

/** How far a metric's verdicts agree with human labels. Statistics cover the measured cases only. */
export interface Calibration<TestCase = LLMTestCase | ConversationalTestCase> {
  /** The metric's name. */
  readonly metric: string
  /** The metric's threshold, against which score labels are turned into pass/fail. */
  readonly threshold: number
  /** `pass` for pass/fail labels, `score` for score labels. */
  readonly labels: LabelKind
  /** Labelled cases given. */
  readonly cases: number
  /** Cases measured without an error: what the statistics are computed on. */
  readonly measured: number
  /** Cases whose measurement failed (see {@link errors}). */
  readonly errored: number
  /** Share of measured cases where the judge's pass/fail is the human's; undefined when none was measured. */
  readonly agreement: number | undefined
  /** Cohen's kappa of the pass/fail verdicts: 1 perfect, 0 no better than chance; undefined when not defined. */
  readonly kappa: number | undefined
  /** Score labels only: mean |judge score − human score|. */
  readonly meanAbsoluteError: number | undefined
  /** Score labels only: Spearman's rank correlation of judge and human scores (ties get average ranks). */
  readonly spearman: number | undefined
  readonly confusion: Confusion
  /** Cases where the verdicts differ, the farthest apart first. */
  readonly disagreements: readonly CalibrationDisagreement<TestCase>[]
  /** Undefined when no case was measured. */
  readonly suggestedThreshold: SuggestedThreshold | undefined
  readonly errors: readonly CalibrationError<TestCase>[]
  /** Every measured case, in the labelled order. */
  readonly results: readonly CalibrationCase<TestCase>[]
  readonly usage: MetricUsage
  readonly durationMs: number
  /**
   * With a jury (see `jury()`): each juror's numbers as if it had judged alone, read from the answers it gave
   * while the jury measured (no judge call of its own), so you can see whether the panel beats its best member.
   */
  readonly jurors?: readonly JurorCalibration[] | undefined
}

/**
 * Runs a metric over cases a human labelled and measures how far the judge agrees with the human: agreement,
 * Cohen's kappa, confusion counts, and for score labels the mean absolute error and Spearman's correlation; lists
 * each disagreement with the judge's reason and trace, and the threshold that would have agreed best. A case whose
 * measurement fails is reported in `errors` and left out of the numbers. Progress and summary as evaluate(): a
 * summary that cannot be printed is a line on `stderr`, and the calibration is returned all the same.
 *
 * @example
 * const calibration = await calibrate(politeness, [
 *   { testCase: { input: 'Where is my order?', actualOutput: 'Check the website.' }, label: { pass: false } },
 *   { testCase: { input: 'Where is my order?', actualOutput: 'Sorry for the wait! It ships today.' }, label: { pass: true } },
 * ])
 * expect(calibration.kappa).toBeGreaterThan(0.6)
 */
export async function calibrate<TestCase extends LLMTestCase | ConversationalTestCase>(
  metric: Metric<TestCase>,
  labelled: readonly LabelledCase<TestCase>[],
  options: CalibrateOptions = {},
): Promise<Calibration<TestCase>> {
  if (typeof (metric as { measure?: unknown } | null)?.measure !== 'function') {
    throw new ConfigurationError(
      `calibrate(metric, labelled): expected \`metric\` to be a metric (an object with a measure() method), got ${typeof metric}.`,
    )
  }
  const labels = checkLabelledCases(labelled, metric.kind)
  parseOptions(calibrateOptionsSchema, options, 'calibrate()')
  const started = performance.now()
  const stderr = options.stderr ?? process.stderr
  const measureAll = (progress: Pick<MeasuringOptions, 'progress' | 'onResult'>) =>
    runMeasurements(
      labelled.length,
      async (at, signal) => {
        const { minPassProbability } = options
        const { testCase } = labelled[at] as LabelledCase<TestCase>
        const result = await measureSafely(metric as Metric, testCase, { signal, minPassProbability })
        return withMinPassProbability(result, minPassProbability)
      },
      { concurrency: options.concurrency ?? 64, signal: options.signal, stderr, started, ...progress },
    )
  // A jury's answers are kept while it measures, so that each juror's own verdicts can be read back without a call.
  const record: JuryRecord = new Map()
  const measured = await recordingJuries(record, () =>
    measureAll({
      progress: options.progress,
      onResult: (_at, _result, progress) => options.onProgress?.(progress),
    }),
  )
  const jurors = await calibrateJurors(
    record,
    labelled,
    () => measureAll({ progress: false }),
    (own) => summariseCalibration(metric, labelled, own, labels, 0),
  )
  const calibration = {
    ...summariseCalibration(metric, labelled, measured, labels, performance.now() - started),
    ...(jurors.length === 0 ? {} : { jurors }),
  }
  const run: CalibrationRun = { kind: 'calibration', calibration }
  if (options.summary ?? (options.stdout !== undefined || !insideTestRunner())) {
    printRun(
      run,
      options.stdout ?? defaultSummaryStream(),
      stderr,
      'calibrate()',
      'the calibration is returned as usual',
    )
  }
  return calibration
}

/** Turns the measured results into the calibration's numbers. */
export function summariseCalibration<TestCase>(
  metric: { readonly name: string; readonly threshold: number },
  labelled: readonly LabelledCase<TestCase>[],
  measured: readonly MetricResult[],
  labels: LabelKind,
  durationMs: number,
): Calibration<TestCase> {
  const results: CalibrationCase<TestCase>[] = []
  const errors: CalibrationError<TestCase>[] = []
  let usage = NO_USAGE
  for (const [index, { testCase, label, name }] of labelled.entries()) {
    const result = measured[index] as MetricResult
    usage = addUsage(usage, result.usage)
    const caseName = name ?? nameOf(testCase)
    if (result.error) {
      errors.push({ index, name: caseName, testCase, label, error: result.error })
      continue
    }
    const humanPass = 'pass' in label ? label.pass : label.score >= result.threshold
    results.push({ index, name: caseName, testCase, label, result, judgePass: result.success, humanPass })
  }
  const confusion = confusionOf(results)
  const scorePairs = results.map(({ result, label }) => [result.score, (label as { score: number }).score] as const)
  const fitted = fitThreshold(
    results.map(({ result, humanPass }) => ({ score: result.score, humanPass })),
    metric.threshold,
  )
  const disagreements = results
    .filter((entry) => entry.judgePass !== entry.humanPass)
    .map((entry) => ({
      ...entry,
      score: entry.result.score,
      threshold: entry.result.threshold,
      reason: entry.result.reason,
      trace: entry.result.trace,
    }))
    .sort((a, b) => distance(b) - distance(a) || a.index - b.index)
  return {
    metric: metric.name,
    threshold: metric.threshold,
    labels,
    cases: labelled.length,
    measured: results.length,
    errored: errors.length,
    agreement: agreementOf(confusion),
    kappa: cohensKappa(confusion),
    meanAbsoluteError: labels === 'score' ? meanAbsoluteError(scorePairs) : undefined,
    spearman: labels === 'score' ? spearman(scorePairs) : undefined,
    confusion,
    disagreements,
    suggestedThreshold: fitted && { ...fitted, fittedOn: results.length },
    errors,
    results,
    usage,
    durationMs: Math.round(durationMs),
  }
}

/** How far the judge's score is from the human's label: 1 for a pass label is a perfect score. */
function distance({ result, label }: CalibrationCase<unknown>): number {
  return Math.abs(result.score - ('pass' in label ? (label.pass ? 1 : 0) : label.score))
}

function nameOf(testCase: unknown): string | undefined {
  const name = (testCase as { name?: unknown } | null)?.name
  return typeof name === 'string' && name !== '' ? name : undefined
}
