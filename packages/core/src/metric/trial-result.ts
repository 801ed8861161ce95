import { parseOptions } from '../internal/options.js'
import { runTrials } from '../runtime/trial-batch.js'
import { formatScore, renderTrace } from '../trace/render.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'
import { runTrialsUntilDecided } from './adaptive-trials.js'
import { agreementOf } from './jury-usage.js'
import { measureOptionsSchema } from './measure-options.js'
import { DEFAULT_MIN_PASS_PROBABILITY, type TrialAggregate, trialsOf } from './options.js'
import { trialsPassProbability } from './trial-probability.js'
import type { MeasureOptions, Metric, MetricResult, MetricUsage, TrialResult, TrialSpread } from './types.js'
import { addUsage, NO_USAGE } from './usage.js'

/** Marks metrics whose `measure(testCase, { trials, aggregate })` runs the trials itself. */
export const RUNS_OWN_TRIALS = Symbol.for('judgetree.runsOwnTrials')

/** The aggregated score and verdict of some trial outcomes against a threshold. */
export interface TrialVerdict {
  readonly score: number
  readonly success: boolean
  readonly passRate: number
  readonly passed: number
}

/**
 * Combines trial scores. 'mean', 'median' and 'min' compare the combined score with the threshold. 'majority'
 * passes when more than half the trials pass, and reports the lower median (the ⌈n/2⌉-th lowest score): it is at
 * or above the threshold exactly when a majority of trials passed, so score and verdict always agree. A trial with
 * an error counts as a failing trial scored 0.
 */
export function judgeTrials(
  trials: readonly { readonly score: number; readonly error?: unknown }[],
  threshold: number,
  aggregate: TrialAggregate,
): TrialVerdict {
  const passes = trials.map((trial) => trial.error === undefined && trial.score >= threshold)
  const passed = passes.filter(Boolean).length
  const scores = trials.map((trial) => (trial.error === undefined ? trial.score : 0))
  const sorted = [...scores].sort((a, b) => a - b)
  const n = sorted.length
  let score: number
  // 'min' and 'majority' report one trial's own score; 'mean' and 'median' compute one, which may carry noise.
  if (aggregate === 'mean') score = withoutFloatNoise(scores.reduce((sum, value) => sum + value, 0) / n)
  else if (aggregate === 'min') score = sorted[0] as number
  else if (aggregate === 'median') {
    const middle = Math.floor(n / 2)
    const [lower, upper] = [sorted[middle - 1] as number, sorted[middle] as number]
    score = n % 2 === 1 ? upper : withoutFloatNoise((lower + upper) / 2)
  } else score = sorted[Math.ceil(n / 2) - 1] as number
  const success = aggregate === 'majority' ? passed > n / 2 : score >= threshold
  return { score, success, passRate: passed / n, passed }
}

/**
 * A score rounded to 9 decimals. Sums of tenths are not exact in binary (0.7 + 0.6 is 1.2999999999999998), so a
 * mean or median that is 0.65 on paper would otherwise fail a threshold of 0.65 while printing as 0.65. Nine
 * decimals remove that noise and nothing a score can mean, so the score reported is the score compared.
 */
function withoutFloatNoise(score: number): number {
  return Math.round(score * 1e9) / 1e9
}

/** The lowest and highest score and their population standard deviation. */
export function spreadOf(scores: readonly number[]): TrialSpread {
  const mean = scores.reduce((sum, value) => sum + value, 0) / scores.length
  const variance = scores.reduce((sum, value) => sum + (value - mean) ** 2, 0) / scores.length
  return { min: Math.min(...scores), max: Math.max(...scores), stdev: Math.sqrt(variance) }
}

/**
 * The result of a measurement run as several trials: the aggregated score and verdict, each trial kept, the traces
 * merged into one tree with counts per path, and the usage summed. The first trial error, if any, is the result's.
 */
export function combineTrials(
  started: number,
  results: readonly MetricResult[],
  aggregate: TrialAggregate,
  includeReason = results.some((result) => result.reason !== undefined),
  until?: number,
): MetricResult {
  const first = results[0] as MetricResult
  const threshold = first.threshold
  const trials: TrialResult[] = results.map((result, index) => ({
    trial: index + 1,
    score: result.score,
    success: result.success,
    reason: result.reason,
    error: result.error,
    trace: result.trace,
    get verboseLogs() {
      return result.verboseLogs
    },
    usage: result.usage,
  }))
  const verdict = judgeTrials(trials, threshold, aggregate)
  const error = results.find((result) => result.error !== undefined)?.error
  const usage = results.reduce<MetricUsage>((sum, result) => addUsage(sum, result.usage), NO_USAGE)
  const spread = spreadOf(trials.map((trial) => trial.score))
  const name = first.name
  const trace = mergeTraces(
    name,
    results.map((result) => result.trace),
  )
  const base = { trials, aggregate, passRate: verdict.passRate, spread } as const
  const scores =
    spread.min === spread.max
      ? `score ${formatScore(spread.min)}`
      : `scores ${formatScore(spread.min)}–${formatScore(spread.max)}`
  const summary = `${verdict.passed}/${trials.length} trials passed, ${scores}`
  const how = aggregate === 'majority' ? 'majority of trials (score: the lower median)' : `${aggregate} of the trials`
  const merged: MetricTrace = {
    ...trace,
    notes: [...trace.notes, `${trials.length} trials, combined as the ${how}: ${summary}`],
  }
  const chance = error === undefined ? trialsPassProbability(results, verdict.passed, merged, until) : undefined
  let logs: string | undefined
  return Object.freeze({
    name,
    score: verdict.score,
    threshold,
    success: error === undefined && verdict.success,
    reason: includeReason ? reasonOf(trials, verdict.score, aggregate, summary) : undefined,
    strictMode: first.strictMode,
    error,
    trace: merged,
    get verboseLogs() {
      logs ??= [renderTrace(merged), ...trialLines(trials)].join('\n')
      return logs
    },
    usage,
    durationMs: Math.round(performance.now() - started),
    judgeModel: first.judgeModel,
    ...(first.decisionModel === undefined ? {} : { decisionModel: first.decisionModel }),
    ...base,
    ...(chance === undefined ? {} : { passProbability: chance }),
    ...agreementOf(usage),
  })
}

/** A line per trial, or one for them all when every trial has the same verdict and score (`trials 1–5: FAIL score 0.2`). */
function trialLines(trials: readonly TrialResult[]): string[] {
  const lines = trials.map(trialLine)
  const [first] = trials
  const alike = trials.every((trial) => trial.error === undefined && trial.score === first?.score)
  if (first === undefined || trials.length < 2 || !alike) return lines
  const last = trials[trials.length - 1]
  return [`trials ${first.trial}–${last?.trial}: ${(lines[0] ?? '').replace(/^trial \d+: /, '')}`]
}

function trialLine(trial: TrialResult): string {
  const verdict = trial.error ? 'ERROR' : trial.success ? 'PASS' : 'FAIL'
  const what = trial.error ? oneLine(trial.error.message) : `score ${formatScore(trial.score)}`
  return `trial ${trial.trial}: ${verdict} ${what}`
}

/** The reason of the trial closest to the combined score, introduced by the trials summary. */
function reasonOf(
  trials: readonly TrialResult[],
  score: number,
  aggregate: TrialAggregate,
  summary: string,
): string | undefined {
  const withReason = trials.filter((trial) => trial.reason !== undefined)
  const closest = withReason.reduce<TrialResult | undefined>(
    (best, trial) =>
      best === undefined || Math.abs(trial.score - score) < Math.abs(best.score - score) ? trial : best,
    undefined,
  )
  const head = `${aggregate} of ${trials.length} trials: ${formatScore(score)} (${summary}).`
  return closest === undefined
    ? head
    : `${head} Trial ${closest.trial} (score ${formatScore(closest.score)}): ${closest.reason}`
}

/**
 * One tree for all trials: every node once, with how many trials ran it and what they answered. A verdict counts
 * the trials that chose it. Details (reason, output) are those of the first trial that ran the node.
 */
function mergeTraces(metric: string, traces: readonly MetricTrace[]): MetricTrace {
  const of = traces.length
  const order: string[] = []
  const byId = new Map<string, TraceNode[]>()
  for (const trace of traces) {
    for (const node of trace.nodes) {
      const seen = byId.get(node.id)
      if (seen === undefined) {
        order.push(node.id)
        byId.set(node.id, [node])
      } else seen.push(node)
    }
  }
  const nodes: TraceNode[] = []
  for (const id of order) {
    const copies = byId.get(id) as TraceNode[]
    const ran = copies.filter((node) => node.status !== 'skipped')
    const shown = ran.find((node) => node.status === 'ran') ?? ran[0] ?? (copies[0] as TraceNode)
    const counts = new Map<string, number>()
    for (const node of ran) {
      const answer = answerOf(node)
      if (answer !== undefined) counts.set(answer, (counts.get(answer) ?? 0) + 1)
    }
    const answers = [...counts.entries()]
      .map(([answer, count]) => ({ answer, count }))
      .sort((a, b) => b.count - a.count)
    const usage = ran.reduce<MetricUsage | undefined>(
      (sum, node) => (node.usage === undefined ? sum : addUsage(sum ?? NO_USAGE, node.usage)),
      undefined,
    )
    nodes.push({
      ...shown,
      ...(usage === undefined ? {} : { usage }),
      ...(ran.length > 0 ? { cached: ran.every((node) => node.cached === true) } : {}),
      trials: { ran: ran.length, of, answers },
    })
  }
  const roots = [...new Set(traces.flatMap((trace) => trace.roots))]
  const notes = [...new Set(traces.flatMap((trace) => trace.notes))]
  return { metric, nodes, roots, notes }
}

function answerOf(node: TraceNode): string | undefined {
  if (node.role === 'verdict') return undefined
  if (node.verdict !== undefined) return String(node.verdict)
  return undefined
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * The result judged against another threshold (`toPassMetric(metric, { threshold })`): for a trials result, each
 * trial's success, the pass rate and the aggregated verdict are recomputed too.
 */
export function withThreshold(result: MetricResult, threshold: number): MetricResult {
  if (threshold === result.threshold) return result
  if (result.trials === undefined || result.aggregate === undefined) {
    // A pass probability was computed against the metric's threshold: against another, there is none to give.
    const { passProbability, passProbabilityUnavailable: _, ...rest } = result
    const unavailable =
      passProbability === undefined
        ? result.passProbabilityUnavailable
        : `the judge's probabilities were read against the metric's threshold ${result.threshold}, not ${threshold}; ` +
          'for P(pass) against another threshold, set it on the metric (its `threshold` option)'
    return {
      ...rest,
      threshold,
      success: result.error === undefined && result.score >= threshold,
      ...(unavailable === undefined ? {} : { passProbabilityUnavailable: unavailable }),
    }
  }
  // The trials again as results of their own, judged against the new threshold, then combined as before.
  const results = result.trials.map(
    (trial): MetricResult => ({
      ...result,
      trials: undefined,
      passProbability: undefined,
      score: trial.score,
      threshold,
      success: trial.error === undefined && trial.score >= threshold,
      reason: trial.reason,
      error: trial.error,
      trace: trial.trace,
      verboseLogs: trial.verboseLogs,
      usage: trial.usage,
    }),
  )
  const combined = combineTrials(performance.now(), results, result.aggregate, result.reason !== undefined)
  // The trials stopped against the metric's own threshold; why they stopped stays said.
  const stopped = result.passProbability?.stopped
  const chance =
    combined.passProbability === undefined || stopped === undefined
      ? combined.passProbability
      : { ...combined.passProbability, stopped }
  return { ...combined, verboseLogs: combined.verboseLogs, durationMs: result.durationMs, passProbability: chance }
}

/**
 * Measures any metric `trials` times and combines the results. A metric built on judgetree's metric classes
 * (built-ins, BaseMetric) runs its own trials, sharing identical judge calls; any other `Metric` is measured once
 * per trial, each inside its trial, so judge calls through a judge runtime still get their own cache entry.
 */
export async function measureTrials<TestCase>(
  metric: Metric<TestCase>,
  testCase: TestCase,
  options: MeasureOptions,
): Promise<MetricResult> {
  if (runsOwnTrials(metric)) return metric.measure(testCase, options)
  const started = performance.now()
  const given = parseOptions(measureOptionsSchema, options, `measureTrials(metric "${metric.name}", testCase, options)`)
  const { signal, aggregate = 'mean' } = given
  const { trials, untilDecided } = trialsOf(given.trials)
  const once = () => metric.measure(testCase, { signal })
  if (trials === 1 && !untilDecided) return once()
  if (!untilDecided) return combineTrials(started, await runTrials(trials, once), aggregate)
  const line = given.minPassProbability ?? DEFAULT_MIN_PASS_PROBABILITY
  return combineTrials(started, await runTrialsUntilDecided(trials, line, once), aggregate, undefined, line)
}

/** True for a metric whose `measure` takes `trials` itself (judgetree's metric classes, from any copy of core). */
function runsOwnTrials(metric: object): boolean {
  return (metric as { [RUNS_OWN_TRIALS]?: unknown })[RUNS_OWN_TRIALS] === true
}
