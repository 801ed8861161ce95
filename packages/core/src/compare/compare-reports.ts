// compareReports(): what changed between two runs of the same suite (another judge, prompt version, or
// application under test), evaluation by evaluation and for the run as a whole. Pure data in, data out; the
// command line renders it (render.ts).
import { cohensKappa, confusionOf, meanAbsoluteError } from '../calibrate/statistics.js'
import { type ComparedRun, type NodeOutcome, type RunEvaluation, readRun } from './read-run.js'

/** A DAG node whose outcome differs between the runs: another verdict, or reached in one run only. */
export interface FlippedNode {
  readonly id: string
  readonly label: string
  readonly before: NodeOutcome
  readonly after: NodeOutcome
}

/** One evaluation found in both runs. */
export interface EvaluationComparison {
  readonly key: string
  readonly label: string
  readonly metric: string
  readonly before: ComparedOutcome
  readonly after: ComparedOutcome
  /** `after − before`; null when either errored. */
  readonly scoreChange: number | null
  /** `after − before` of the chance of passing; null unless both runs had one. */
  readonly passProbabilityChange: number | null
  /** `to-fail` or `to-pass` when the metric's pass/fail changed; null otherwise, or when either errored. */
  readonly flip: 'to-fail' | 'to-pass' | null
  /** The nodes whose outcome changed, in trace order; null when either run keeps no trace (a baseline). */
  readonly flippedNodes: readonly FlippedNode[] | null
}

/** How an evaluation came out in one of the runs. */
export interface ComparedOutcome {
  readonly score: number | null
  readonly passed: boolean | null
  /** The chance of passing, where the run had one. */
  readonly passProbability?: number | undefined
}

/** The comparison's figures for one metric, or for the whole run. */
export interface ComparisonFigures {
  /** Evaluations in both runs that neither errored: what kappa, flips and drift are computed over. */
  readonly compared: number
  readonly flips: number
  readonly toFail: number
  readonly toPass: number
  /** Cohen's kappa of pass/fail between the runs; undefined where it is not defined (see cohensKappa). */
  readonly kappa: number | undefined
  /** The mean of |after − before| over the compared evaluations; undefined for none. */
  readonly meanAbsoluteScoreChange: number | undefined
}

/** What compareReports() finds. */
export interface ReportComparison extends ComparisonFigures {
  readonly before: ComparedRun
  readonly after: ComparedRun
  /** Every evaluation found in both runs, in the after run's order. */
  readonly evaluations: readonly EvaluationComparison[]
  /** Evaluations in both runs where one errored (not compared). */
  readonly errored: number
  /** Labels of evaluations only one run has. */
  readonly onlyBefore: readonly string[]
  readonly onlyAfter: readonly string[]
  readonly byMetric: readonly (ComparisonFigures & { readonly metric: string })[]
}

/**
 * Compares two runs of the same suite. Each side is a path (a runner's report.json, a folder with a run's shard
 * reports, evaluate()'s JSON report, or a baseline file) or a run already read with {@link readRun}.
 *
 * @example
 * const comparison = compareReports('baseline-gpt-4.1/report.json', '.judgetree/report.json')
 * if (comparison.flips > 0) console.log(comparison.evaluations.filter((change) => change.flip !== null))
 */
export function compareReports(before: string | ComparedRun, after: string | ComparedRun): ReportComparison {
  const beforeRun = typeof before === 'string' ? readRun(before) : before
  const afterRun = typeof after === 'string' ? readRun(after) : after
  const earlier = new Map(beforeRun.evaluations.map((evaluation) => [evaluation.key, evaluation]))
  const later = new Set(afterRun.evaluations.map((evaluation) => evaluation.key))
  const evaluations: EvaluationComparison[] = []
  for (const evaluation of afterRun.evaluations) {
    const previous = earlier.get(evaluation.key)
    if (previous !== undefined) evaluations.push(compareEvaluation(previous, evaluation))
  }
  const metrics = [...new Set(evaluations.map((evaluation) => evaluation.metric))].sort()
  return {
    before: beforeRun,
    after: afterRun,
    evaluations,
    ...figuresOf(evaluations),
    errored: evaluations.filter((evaluation) => evaluation.scoreChange === null).length,
    onlyBefore: beforeRun.evaluations.filter((evaluation) => !later.has(evaluation.key)).map(({ label }) => label),
    onlyAfter: afterRun.evaluations.filter((evaluation) => !earlier.has(evaluation.key)).map(({ label }) => label),
    byMetric: metrics.map((metric) => ({
      metric,
      ...figuresOf(evaluations.filter((evaluation) => evaluation.metric === metric)),
    })),
  }
}

function compareEvaluation(before: RunEvaluation, after: RunEvaluation): EvaluationComparison {
  const both = before.score !== null && after.score !== null && before.passed !== null && after.passed !== null
  return {
    key: after.key,
    label: after.label,
    metric: after.metric,
    before: outcomeOf(before),
    after: outcomeOf(after),
    scoreChange: both ? (after.score as number) - (before.score as number) : null,
    passProbabilityChange:
      before.passProbability === undefined || after.passProbability === undefined
        ? null
        : after.passProbability - before.passProbability,
    flip: !both || before.passed === after.passed ? null : after.passed ? 'to-pass' : 'to-fail',
    flippedNodes:
      before.nodes === undefined || after.nodes === undefined ? null : flippedNodes(before.nodes, after.nodes),
  }
}

function outcomeOf({ score, passed, passProbability }: RunEvaluation): ComparedOutcome {
  return passProbability === undefined ? { score, passed } : { score, passed, passProbability }
}

type Nodes = NonNullable<RunEvaluation['nodes']>

function flippedNodes(before: Nodes, after: Nodes): FlippedNode[] {
  const ids = [...new Set([...after.keys(), ...before.keys()])]
  const flipped: FlippedNode[] = []
  for (const id of ids) {
    const was = before.get(id)
    const now = after.get(id)
    const wasOutcome = was?.outcome ?? 'not reached'
    const nowOutcome = now?.outcome ?? 'not reached'
    if (wasOutcome === nowOutcome) continue
    flipped.push({ id, label: (now ?? was)?.label ?? id, before: wasOutcome, after: nowOutcome })
  }
  return flipped
}

function figuresOf(evaluations: readonly EvaluationComparison[]): ComparisonFigures {
  const compared = evaluations.filter((evaluation) => evaluation.scoreChange !== null)
  const toFail = compared.filter((evaluation) => evaluation.flip === 'to-fail').length
  const toPass = compared.filter((evaluation) => evaluation.flip === 'to-pass').length
  return {
    compared: compared.length,
    flips: toFail + toPass,
    toFail,
    toPass,
    // The two runs as two raters of pass/fail: "judge" is the before run, "human" the after run.
    kappa: cohensKappa(
      confusionOf(
        compared.map(({ before, after }) => ({ judgePass: before.passed === true, humanPass: after.passed === true })),
      ),
    ),
    meanAbsoluteScoreChange: meanAbsoluteError(
      compared.map(({ before, after }) => [before.score as number, after.score as number] as const),
    ),
  }
}
