// Baselines: a saved run's scores, and how this run's compare with them. Pure functions of data; publish.ts reads
// and writes the file.
import type { JudgetreeReport } from './run-report.js'

/** One evaluation as a baseline keeps it: where it is, and how it came out. */
export interface BaselineEntry {
  readonly project: string
  readonly file: string
  readonly test: string
  /** Which `toPassMetric` call of the test, from 1. */
  readonly assertion: number
  readonly metric: string
  /** Null when the metric errored. */
  readonly score: number | null
  readonly threshold: number
  /** Whether the assertion held. */
  readonly passed: boolean
  /** `.not.toPassMetric`: a rising score is the regression. */
  readonly negated: boolean
}

/** The baseline file's content. */
export interface BaselineFile {
  readonly version: 1
  readonly entries: readonly BaselineEntry[]
}

/** How one evaluation compares with its baseline. */
export type BaselineStatus = 'new-failure' | 'new-pass' | 'regressed' | 'improved' | 'unchanged' | 'new' | 'missing'

/** One evaluation of this run or of the baseline, compared. */
export interface BaselineChange {
  readonly project: string
  readonly file: string
  readonly test: string
  readonly assertion: number
  readonly metric: string
  readonly status: BaselineStatus
  /** Null for a new evaluation. */
  readonly before: { readonly score: number | null; readonly passed: boolean } | null
  /** Null for one missing from this run. */
  readonly after: { readonly score: number | null; readonly passed: boolean } | null
  /** after − before, when both have a score. */
  readonly scoreChange: number | null
}

/** This run against the baseline: counts per status and every evaluation that is not unchanged. */
export interface BaselineComparison {
  /** The baseline file, as configured. */
  readonly file: string
  /** A score counts as regressed when it falls more than this below its baseline (rises, under `.not`). */
  readonly tolerance: number
  readonly counts: Readonly<Record<BaselineStatus, number>>
  /** Every change but the unchanged ones, in the report's order, then the missing ones. */
  readonly changes: readonly BaselineChange[]
}

/** Compensates floating-point noise: 0.7 − 0.6 is not exactly 0.1. */
const EPSILON = 1e-9

/** The baseline entries of a report, in its order. */
export function baselineOf(report: JudgetreeReport): BaselineFile {
  const entries = report.tests.flatMap((test) =>
    test.evaluations.map((record) => ({
      project: test.project,
      file: test.file,
      test: test.name,
      assertion: record.assertion,
      metric: record.name,
      score: record.error === null ? record.score : null,
      threshold: record.threshold,
      passed: record.assertionPassed,
      negated: record.negated,
    })),
  )
  return { version: 1, entries }
}

/**
 * Entries for a refreshed baseline: this run's, plus the old baseline's for files this run did not evaluate at all
 * (a run of one file refreshes that file's entries and keeps the others').
 */
export function refreshBaseline(current: BaselineFile, previous: BaselineFile | undefined): BaselineFile {
  const seen = new Set(current.entries.map((entry) => JSON.stringify([entry.project, entry.file])))
  const kept = (previous?.entries ?? []).filter((entry) => !seen.has(JSON.stringify([entry.project, entry.file])))
  return { version: 1, entries: [...current.entries, ...kept] }
}

/**
 * Compares this run with the baseline, per evaluation keyed by project, file, test name and assertion index. With
 * `partial` (a shard's run), evaluations the baseline has and this run lacks are other shards' and not listed.
 */
export function compareWithBaseline(
  current: BaselineFile,
  baseline: BaselineFile,
  { file, tolerance, partial }: { file: string; tolerance: number; partial: boolean },
): BaselineComparison {
  const before = new Map(baseline.entries.map((entry) => [keyOf(entry), entry]))
  const changes: BaselineChange[] = []
  const counts: Record<BaselineStatus, number> = {
    'new-failure': 0,
    'new-pass': 0,
    regressed: 0,
    improved: 0,
    unchanged: 0,
    new: 0,
    missing: 0,
  }
  for (const entry of current.entries) {
    const key = keyOf(entry)
    const old = before.get(key)
    before.delete(key)
    const change = compareEntry(entry, old, tolerance)
    counts[change.status] += 1
    if (change.status !== 'unchanged') changes.push(change)
  }
  if (!partial) {
    for (const old of before.values()) {
      counts.missing += 1
      changes.push({ ...locationOf(old), status: 'missing', before: outcomeOf(old), after: null, scoreChange: null })
    }
  }
  return { file, tolerance, counts, changes }
}

function compareEntry(entry: BaselineEntry, old: BaselineEntry | undefined, tolerance: number): BaselineChange {
  const after = outcomeOf(entry)
  if (old === undefined) return { ...locationOf(entry), status: 'new', before: null, after, scoreChange: null }
  const scoreChange = entry.score !== null && old.score !== null ? entry.score - old.score : null
  // Under .not the metric is expected to fail, so a rising score is the change for the worse.
  const worse = scoreChange === null ? 0 : entry.negated ? scoreChange : -scoreChange
  let status: BaselineStatus = 'unchanged'
  if (old.passed && !entry.passed) status = 'new-failure'
  else if (!old.passed && entry.passed) status = 'new-pass'
  else if (worse > tolerance + EPSILON) status = 'regressed'
  else if (worse < -EPSILON) status = 'improved'
  return { ...locationOf(entry), status, before: outcomeOf(old), after, scoreChange }
}

function keyOf(entry: BaselineEntry): string {
  return JSON.stringify([entry.project, entry.file, entry.test, entry.assertion])
}

function locationOf(entry: BaselineEntry) {
  return {
    project: entry.project,
    file: entry.file,
    test: entry.test,
    assertion: entry.assertion,
    metric: entry.metric,
  }
}

function outcomeOf(entry: BaselineEntry) {
  return { score: entry.score, passed: entry.passed }
}

/**
 * Reads a baseline file's text; throws an Error saying what is wrong with it (the caller names the file).
 */
export function parseBaseline(text: string): BaselineFile {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`it is not valid JSON (${(error as Error).message})`)
  }
  const file = value as Partial<BaselineFile> | null
  if (typeof file !== 'object' || file === null || file.version !== 1 || !Array.isArray(file.entries)) {
    throw new Error('it is not a judgetree baseline (expected { "version": 1, "entries": [...] })')
  }
  for (const [index, entry] of file.entries.entries()) {
    const ok =
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.project === 'string' &&
      typeof entry.file === 'string' &&
      typeof entry.test === 'string' &&
      typeof entry.assertion === 'number' &&
      typeof entry.metric === 'string' &&
      (entry.score === null || typeof entry.score === 'number') &&
      typeof entry.passed === 'boolean' &&
      typeof entry.negated === 'boolean'
    if (!ok) throw new Error(`entries[${index}] is not a baseline entry`)
  }
  return file as BaselineFile
}

const SYMBOLS: Record<BaselineStatus, string> = {
  'new-failure': '✗',
  'new-pass': '✓',
  regressed: '▼',
  improved: '▲',
  unchanged: '=',
  new: '+',
  missing: '−',
}

/** `2 regressed, 1 new failure, 0 new passes, 1 improved, 3 new, 1 missing, 12 unchanged` */
export function renderBaselineCounts(counts: BaselineComparison['counts']): string {
  return [
    `${counts.regressed} regressed`,
    `${counts['new-failure']} new ${counts['new-failure'] === 1 ? 'failure' : 'failures'}`,
    `${counts['new-pass']} new ${counts['new-pass'] === 1 ? 'pass' : 'passes'}`,
    `${counts.improved} improved`,
    `${counts.new} new`,
    `${counts.missing} missing`,
    `${counts.unchanged} unchanged`,
  ].join(', ')
}

/** One change on one line: `▼ |web| tests/a.test.ts > greets #1 · Playful: 0.9 → 0.6 (−0.3)`. */
export function renderBaselineChange(change: BaselineChange): string {
  return `${baselineSymbol(change)} ${changeLocation(change)}: ${describeChange(change)}`
}

/** `▼` regressed, `▲` improved, `✗` new failure, `✓` new pass, `+` new, `−` missing. */
export function baselineSymbol(change: BaselineChange): string {
  return SYMBOLS[change.status]
}

/** `|web| tests/a.test.ts > greets #1 · Playful` */
export function changeLocation(change: BaselineChange): string {
  const project = change.project === '' ? '' : `|${change.project}| `
  return `${project}${change.file} > ${change.test} #${change.assertion} · ${change.metric}`
}

/** `0.9 → 0.6 (−0.3)`, `… , now fails`, `new, 0.7`, `missing from this run (was 0.8)`. */
export function describeChange(change: BaselineChange): string {
  const { before, after } = change
  if (before === null) return `new, ${scoreText(after?.score ?? null)}`
  if (after === null) return `missing from this run (was ${scoreText(before.score)})`
  const delta = change.scoreChange === null ? '' : ` (${signed(change.scoreChange)})`
  const moved = `${scoreText(before.score)} → ${scoreText(after.score)}${delta}`
  if (change.status === 'new-failure') return `${moved}, now fails`
  if (change.status === 'new-pass') return `${moved}, now passes`
  return moved
}

function scoreText(score: number | null): string {
  return score === null ? 'error' : String(Math.round(score * 1000) / 1000)
}

function signed(change: number): string {
  const rounded = Math.round(change * 1000) / 1000
  return rounded > 0 ? `+${rounded}` : rounded < 0 ? `−${-rounded}` : '±0'
}
