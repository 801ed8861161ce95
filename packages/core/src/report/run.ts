import type { Calibration } from '../calibrate/calibrate.js'
import type { ConversationalMetric, MetricResult, SingleTurnMetric } from '../metric/types.js'
import type { TerminalNote } from './colour.js'
import type { ResultRecord } from './record.js'
import type { EvaluationSummary, RunSummary } from './summary.js'

/** A metric evaluate() can run: single-turn metrics measure LLMTestCases, conversational ones conversations. */
export type EvaluationMetric = SingleTurnMetric | ConversationalMetric

/** One measured (test case, metric) pair of an evaluate() run. */
export interface EvaluationResult<TestCase = unknown> {
  readonly testCase: TestCase
  /** The test case's position in the list given to evaluate(). */
  readonly index: number
  readonly metric: EvaluationMetric
  readonly result: MetricResult
}

/** The record of one `toPassMetric` assertion: a result's record with every field a runner fills. */
export interface AssertionRecord extends ResultRecord {
  readonly metricThreshold: number
  readonly assertion: number
  readonly negated: boolean
  readonly assertionPassed: boolean
}

/** One test that ran `toPassMetric` at least once, as the runners' reports list it. */
export interface RunnerTest {
  /** The runner's project the test ran in (Vitest's project name, Jest's `displayName`); `''` when unnamed. */
  readonly project: string
  /** The test file, relative to the project root, with `/` separators. */
  readonly file: string
  /** The test's full name as the runner shows it. */
  readonly name: string
  /** The runner's verdict on the whole test, e.g. `passed`, `failed`, `skipped`. */
  readonly state: string
  /** Every `toPassMetric` evaluation of the test, in the order the test called them. */
  readonly evaluations: readonly AssertionRecord[]
}

/** What the surfaces read of a Vitest or Jest run's report. */
export interface RunnerReport {
  readonly runner: 'vitest' | 'jest'
  /** The shard this run covered, or null for a whole run. */
  readonly shard: { readonly index: number; readonly count: number } | null
  readonly summary: RunSummary
  readonly tests: readonly RunnerTest[]
}

/** A Vitest or Jest run, for the surfaces. */
export interface RunnerRun {
  readonly kind: 'runner'
  /** The report as the JSON surface writes it. */
  readonly report: RunnerReport
  /** Lines the terminal prints above the footer: what the baseline said (a regression in red), where the JSON report went. */
  readonly notes: readonly TerminalNote[]
  /** Markdown to add after the run's own in the CI step summary (the baseline's rows). */
  readonly appendix?: string | undefined
}

/** An evaluate() run, for the surfaces. */
export interface EvaluationRun {
  readonly kind: 'evaluation'
  readonly summary: EvaluationSummary
  readonly results: readonly EvaluationResult[]
  /** An SVG picture of a failure's walked DAG, by result; drawn only for the surfaces written beside a file. */
  readonly pictures: ReadonlyMap<EvaluationResult, string>
  /** Lines the terminal prints after the footer: where the report files went. */
  readonly notes: readonly string[]
}

/** A calibrate() run, for the surfaces. */
export interface CalibrationRun {
  readonly kind: 'calibration'
  readonly calibration: Calibration<unknown>
}

/** One run as every surface receives it: the runners', evaluate()'s and calibrate()'s. */
export type Run = RunnerRun | EvaluationRun | CalibrationRun
