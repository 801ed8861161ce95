import { withoutAdvice } from '../errors.js'
import { formatScore, passChance } from '../trace/render.js'
import { renderPassGate, renderPivot } from '../trace/render-pass-probability.js'
import { adviceOf } from './record.js'
import type { AssertionRecord, RunnerReport, RunnerTest } from './run.js'
import { plural } from './summary.js'

// What the runners' surfaces (terminal, markdown) say of a run's failed evaluations.

/** A problem of the run's environment (no API key, a refused key) and the evaluations it failed. */
interface EnvironmentProblem {
  /** The first failed evaluation's error message, without the advice. */
  readonly message: string
  readonly code: string
  readonly advice: string
  readonly evaluations: number
}

/**
 * The problems of the environment that failed evaluations, each once, in the order of the first evaluation they
 * failed: every test without an API key fails with the same one, and how to fix it is said here only.
 */
export function environmentProblems(report: RunnerReport): EnvironmentProblem[] {
  const byAdvice = new Map<string, EnvironmentProblem>()
  for (const { record } of failedEvaluations(report)) {
    const advice = adviceOf(record)
    if (advice === undefined) continue
    const known = byAdvice.get(advice)
    if (known !== undefined) {
      byAdvice.set(advice, { ...known, evaluations: known.evaluations + 1 })
      continue
    }
    const error = record.error ?? record.trials?.find((trial) => trial.error?.advice === advice)?.error
    const message = shorten(withoutAdvice(error?.message ?? '', advice), 400)
    byAdvice.set(advice, { message, code: error?.code ?? '', advice, evaluations: 1 })
  }
  return [...byAdvice.values()]
}

export function problemHeading(problem: EnvironmentProblem): string {
  return `a problem of the environment failed ${plural(problem.evaluations, 'evaluation')} (${problem.code}):`
}

/**
 * A failed evaluation in one line: metric, score against threshold, and what decided it (the judgement and the
 * verdict it chose, for a DAG; the reason's start otherwise), e.g.
 * `Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false`.
 */
export function failureLine(record: AssertionRecord): string {
  const name = record.negated ? `${record.name} (.not)` : record.name
  if (record.error) {
    // An environment problem is said once, below the list, for all the evaluations it failed.
    if (record.error.advice !== undefined)
      return `${name}: error ${record.error.code}, a problem of the environment (below)`
    return `${name}: error ${record.error.code}: ${shorten(record.error.message)}`
  }
  const gate = record.negated ? undefined : gateFailure(record)
  const comparison =
    gate ??
    (record.negated
      ? `score ${scoreOf(record)} ≥ threshold ${formatScore(record.threshold)}, expected to fail`
      : `score ${scoreOf(record)} < threshold ${formatScore(record.threshold)}`)
  const chance = record.passProbability
  const parts = [
    `${name}: ${comparison}`,
    gate === undefined && chance !== undefined ? passChance(chance) : undefined,
    decidingVerdict(record) ?? (record.reason ? shorten(record.reason) : undefined),
    chance?.pivot ? renderPivot(chance.pivot) : undefined,
  ]
  return parts.filter((part) => part !== undefined).join(' · ')
}

/**
 * A score that passed its threshold but not `minPassProbability`, e.g.
 * `score 0.8 ≥ threshold 0.5, but P(pass) 0.72 is below minPassProbability 0.9`; undefined for any other failure.
 */
function gateFailure(record: AssertionRecord): string | undefined {
  if (renderPassGate(record) === undefined) return undefined
  const passed = `score ${scoreOf(record)} ≥ threshold ${formatScore(record.threshold)}`
  const chance = record.passProbability
  return chance === undefined
    ? `${passed}, but it has no P(pass) to hold to minPassProbability ${record.minPassProbability} (the failure says how to get one)`
    : `${passed}, but ${passChance(chance)} is below minPassProbability ${record.minPassProbability}`
}

/** The verdict leaf that gave the score (the lowest, when parallel branches reached several) and its judgement. */
function decidingVerdict(record: AssertionRecord): string | undefined {
  // Records merged from another version's blob report may lack parts: no trace, no verdict to name.
  const nodes = (record.trace as AssertionRecord['trace'] | undefined)?.nodes ?? []
  const leaves = nodes.filter((node) => node.role === 'verdict' && node.status === 'ran' && node.score !== undefined)
  const leaf = leaves.reduce<(typeof leaves)[number] | undefined>(
    (lowest, node) => (lowest === undefined || (node.score ?? 0) < (lowest.score ?? 0) ? node : lowest),
    undefined,
  )
  if (leaf === undefined) return undefined
  const parents = nodes.filter((node) => node.children.includes(leaf.id) || node.alsoUnder?.includes(leaf.id))
  const parent = parents.find((node) => String(node.verdict) === leaf.text) ?? parents[0]
  if (parent === undefined) return undefined
  return `“${shorten(parent.label ?? parent.text, 50)}” → ${leaf.text}`
}

/** The first line (a CR or a Unicode line break ends it too), cut to `limit` characters. */
function shorten(text: string, limit = 80): string {
  const line = text.split(/\r\n|[\n\r\u2028\u2029\u0085]/)[0] ?? ''
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line
}

/**
 * The score, and for trials how many passed and the range of their scores, e.g. `0.64 (3/5 trials, 0.2–0.9)`; with
 * a pass probability, `0.8 · P(pass) 0.72`.
 */
export function scoreCell(record: AssertionRecord): string {
  const chance = record.passProbability === undefined ? '' : ` · ${passChance(record.passProbability)}`
  return `${scoreOf(record)}${chance}`
}

function scoreOf(record: AssertionRecord): string {
  const { trials, spread } = record
  if (trials === undefined || spread === undefined) return formatScore(record.score)
  const passed = trials.filter((trial) => trial.success).length
  const range =
    spread.min === spread.max ? formatScore(spread.min) : `${formatScore(spread.min)}–${formatScore(spread.max)}`
  return `${formatScore(record.score)} (${passed}/${trials.length} trials passed, ${range})`
}

export function failedEvaluations(report: RunnerReport) {
  return report.tests.flatMap((test) =>
    test.evaluations.filter((record) => !record.assertionPassed).map((record) => ({ test, record })),
  )
}

/** `tests/chat.test.ts > greets`, after the project as Vitest labels it when there is one: `|web| tests/…`. */
export function testTitle(test: RunnerTest): string {
  const title = `${test.file} > ${test.name}`
  return test.project === '' ? title : `|${test.project}| ${title}`
}

/** A `.not` assertion fails when the metric passes: the header says so, since the text then reads PASS. */
export function negation(record: AssertionRecord): string {
  return record.negated ? ' (.not: expected the metric to fail)' : ''
}
