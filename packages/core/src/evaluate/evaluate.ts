import { appendFileSync } from 'node:fs'
import { ConfigurationError } from '../errors.js'
import { defaultSummaryStream } from '../internal/env.js'
import { checkOptions } from '../internal/options.js'
import { withMinPassProbability } from '../metric/pass-gate.js'
import type { Metric, MetricResult } from '../metric/types.js'
import { SURFACES, type Surface } from '../report/index.js'
import type { EvaluationMetric, EvaluationResult, EvaluationRun } from '../report/run.js'
import { type EvaluationSummary, summarise } from '../report/summary.js'
import { defaultJudgeRuntime } from '../runtime/judge-runtime.js'
import { CallLimiter } from '../runtime/limiter.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'

export type { EvaluationMetric } from '../report/run.js'

import { measureSafely } from './measure-safely.js'
import { printRun, REPORT_NOT_WRITTEN, tell } from './print-summary.js'
import type { EvaluationProgress, OutputStream } from './progress-bar.js'
import { writeEvaluationReport } from './report-files.js'
import { runMeasurements } from './run-measurements.js'
import { evaluateOptionsSchema } from './run-options.js'

/** Options of {@link evaluate}. */
export interface EvaluateOptions {
  /**
   * Measurements (test case × metric) in flight at once. Judge calls are limited separately, by the judge runtime
   * (JUDGETREE_CONCURRENCY); this only needs to be high enough to keep that limit busy.
   * @default 8 × the default judge runtime's concurrency, at least 64
   */
  concurrency?: number | undefined
  /** Called after each measurement with the totals so far and the result that just arrived. */
  onProgress?:
    | ((progress: EvaluationProgress, latest: EvaluationResult<LLMTestCase | ConversationalTestCase>) => void)
    | undefined
  /** Draw a progress bar on stderr. @default stderr is a terminal and CI is not set */
  progress?: boolean | undefined
  /**
   * Print the summary table at the end (to `stdout`). A stream that fails (its `write` throws, or EPIPE once the
   * reader of a pipe went away) does not cost the run: see {@link evaluate}. @default true
   */
  summary?: boolean | undefined
  /** Stops starting measurements and cancels those in flight; evaluate() then rejects with MeasurementAbortedError. */
  signal?: AbortSignal | undefined
  /**
   * Write the run to this JSON file (every result with its trace, and the totals), and beside it an HTML summary
   * (same name, `.html`): pass rate, cost, a table per metric and each failure's tree and walked-DAG picture, in
   * one self-contained file that opens offline. Pictures need `@viz-js/viz` installed (`@judgetree/matchers`
   * brings it); without it the page has every tree and no pictures. A device or stream (`/dev/null`,
   * `/dev/stdout`, `/dev/fd/3`, a named pipe) gets the JSON alone, written into it; a file that cannot be written
   * (a full disk, a pipe no one reads) is said on `stderr`, and evaluate() still resolves with its results.
   * @example { outputFile: '.judgetree/evaluation.json' } // also writes .judgetree/evaluation.html
   */
  outputFile?: string | undefined
  /** @default process.stdout; process.stderr inside a Vitest or Jest test, whose stdout belongs to the runner */
  stdout?: OutputStream | undefined
  /** @default process.stderr */
  stderr?: OutputStream | undefined
  /**
   * Pass a measurement only when it passes and its chance of passing (`result.passProbability.p`) is at least
   * this, 0..1 exclusive; one without a pass probability then fails, and its text says how to get one. Also the
   * line `trials: { max, until: 'decided' }` stops at. See docs/trust.md. @default no minimum
   */
  minPassProbability?: number | undefined
}

/** Every result of an evaluate() run, in (test case, metric) order, and their totals. */
export interface Evaluation<TestCase> {
  readonly results: readonly EvaluationResult<TestCase>[]
  readonly summary: EvaluationSummary
}

/**
 * Measures every test case with every metric of its kind, outside a test runner: one failing measurement never
 * stops the others, a progress bar shows on a terminal, and a summary table prints at the end.
 *
 * The summary is printed last, after `outputFile` was written. If printing it fails (the `stdout` stream's `write`
 * throws, or the stream reports an error such as EPIPE), evaluate() still resolves with every result, the report
 * files stay written, and one line on `stderr` (`judgetree: evaluate() could not print its summary (…)`) says what
 * went wrong; if `stderr` fails too, that line is a process warning with code `JUDGETREE_SUMMARY_NOT_PRINTED`.
 * The same holds for `outputFile`: one it cannot write is a line on `stderr` (`judgetree: evaluate() could not write
 * the report … (ENOSPC: …); the results are returned as usual.`). evaluate() rejects only for bad arguments, a
 * cancellation, or a callback of yours (`onProgress`) that throws.
 *
 * @example
 * const { results, summary } = await evaluate(conversations, [playfulChatbot, new ConversationRelevancyMetric()])
 * if (summary.failed + summary.errored > 0) process.exitCode = 1
 */
export async function evaluate<TestCase extends LLMTestCase | ConversationalTestCase>(
  testCases: readonly TestCase[],
  metrics: readonly EvaluationMetric[],
  options: EvaluateOptions = {},
): Promise<Evaluation<TestCase>> {
  const concurrency = checkArguments(testCases, metrics, options)
  const started = performance.now()
  const rateLimitedBefore = CallLimiter.processRateLimits.rateLimited
  const pairs: { testCase: TestCase; index: number; metric: EvaluationMetric }[] = []
  let skipped = 0
  for (const [index, testCase] of testCases.entries()) {
    const conversational = 'turns' in testCase
    for (const metric of metrics) {
      const mismatched = conversational ? metric.kind === 'single-turn' : metric.kind === 'conversational'
      if (mismatched) skipped += 1
      else pairs.push({ testCase, index, metric })
    }
  }

  const stderr = options.stderr ?? process.stderr
  const entryAt = (at: number, result: MetricResult): EvaluationResult<TestCase> => {
    const { testCase, index, metric } = pairs[at] as (typeof pairs)[number]
    return { testCase, index, metric, result }
  }
  const measured = await runMeasurements(
    pairs.length,
    (at, signal) => {
      const { testCase, metric } = pairs[at] as (typeof pairs)[number]
      const { minPassProbability } = options
      return measureSafely(metric as Metric, testCase, { signal, minPassProbability }).then((result) =>
        withMinPassProbability(result, minPassProbability),
      )
    },
    {
      concurrency,
      signal: options.signal,
      progress: options.progress,
      stderr,
      started,
      onResult: (at, result, progress) => options.onProgress?.(progress, entryAt(at, result)),
    },
  )
  const results = measured.map((result, at) => entryAt(at, result))

  // Said once, here: 429s of any runtime of this process during the run (another evaluate() at the same time would
  // add its own), and the limit the last of them left in force.
  const limits = CallLimiter.processRateLimits
  const summary = summarise(results, metrics, skipped, Math.round(performance.now() - started), {
    rateLimited: limits.rateLimited - rateLimitedBefore,
    concurrency: limits.concurrency,
  })
  const report =
    options.outputFile === undefined ? undefined : await writeEvaluationReport(options.outputFile, summary, results)
  // A report file that could not be written costs the caller nothing else: the results are returned all the same.
  for (const failure of report?.failures ?? []) {
    tell(stderr, `judgetree: evaluate() ${failure}; the results are returned as usual.`, REPORT_NOT_WRITTEN)
  }
  const files = report?.written ?? []
  const where = files.join(' and ')
  const run: EvaluationRun = {
    kind: 'evaluation',
    summary,
    results,
    pictures: new Map(),
    notes: files.length === 0 ? [] : [`judgetree: report in ${where}`],
  }
  const surfaces: readonly Surface[] = Object.values(SURFACES)
  const stepSummary = process.env.GITHUB_STEP_SUMMARY
  for (const surface of surfaces.filter((each) => each.to === 'step-summary' && stepSummary)) {
    const text = surface.render(run)
    try {
      if (text !== undefined) appendFileSync(stepSummary as string, text)
    } catch (error) {
      tell(stderr, `judgetree: evaluate() could not add to the ${surface.what} (${String(error)})`, REPORT_NOT_WRITTEN)
    }
  }
  if (options.summary ?? true) {
    const kept = `the results are returned as usual${files.length === 0 ? '' : `, and the report is in ${where}`}`
    printRun(run, options.stdout ?? defaultSummaryStream(), stderr, 'evaluate()', kept)
  }
  return { results, summary }
}

function checkArguments(testCases: unknown, metrics: unknown, options: EvaluateOptions): number {
  const problems: string[] = []
  if (!Array.isArray(testCases)) problems.push('testCases must be an array of test cases.')
  else {
    for (const [index, testCase] of testCases.entries()) {
      if (typeof testCase !== 'object' || testCase === null) problems.push(`testCases[${index}] is not an object.`)
    }
  }
  if (!Array.isArray(metrics) || metrics.length === 0) problems.push('metrics must be a non-empty array of metrics.')
  else {
    for (const [index, metric] of metrics.entries()) {
      if (typeof (metric as { measure?: unknown } | null)?.measure !== 'function') {
        problems.push(`metrics[${index}] is not a metric (an object with a measure() method).`)
      }
    }
  }
  const checked = checkOptions(evaluateOptionsSchema, options)
  if (!checked.ok) problems.push(...checked.problems.map((problem) => problem.message))
  if (problems.length > 0) throw new ConfigurationError(`Invalid evaluate() arguments:\n  - ${problems.join('\n  - ')}`)
  // Checked above: undefined is the default, anything else a whole number from 1.
  return options.concurrency ?? Math.max(64, 8 * defaultJudgeRuntime().concurrency)
}
