// Baselines: a saved run's scores, and how this run's compare with them. Pure functions of data; baseline-file.ts
// reads the file and publish-baseline.ts writes it.
import { chanceMove, scoreMove, scoreText } from '@judgetree/core/runtime'
import type { JudgetreeReport } from './run-report.js'

/** Where an evaluation is: its test, which of the test's assertions, and the metric it asserted. */
export interface BaselinePlace {
  readonly project: string
  readonly file: string
  readonly test: string
  /**
   * Which of the file's tests with this full name, from 1 in the file's order: tells apart tests that share a name
   * (1 unless names repeat), while the key still survives edits elsewhere in the file. Absent in files written
   * before it existed; the reader then numbers same-named entries in the order the file lists them.
   */
  readonly ordinal: number
  /** Which `toPassMetric` call of the test, from 1. */
  readonly assertion: number
  readonly metric: string
}

/** One evaluation as a baseline keeps it: where it is, and how it came out. */
export interface BaselineEntry extends BaselinePlace {
  /** Null when the metric errored. */
  readonly score: number | null
  readonly threshold: number
  /** Whether the assertion held. */
  readonly passed: boolean
  /** `.not.toPassMetric`: a rising score is the regression. */
  readonly negated: boolean
  /** The chance of passing (`passProbability.p`), when the result had one; a fall beyond the tolerance regresses. */
  readonly passProbability?: number | undefined
}

/** The baseline file's content. */
export interface BaselineFile {
  readonly version: 1
  readonly entries: readonly BaselineEntry[]
}

/**
 * How one evaluation compares with its baseline. `missing`: its test no longer exists (or no longer makes that
 * assertion); `not-run`: its test exists but did not run (filtered out with `-t` or a file list, skipped, another
 * shard's, not re-run in watch mode, or it failed before the assertion), so the baseline keeps it as it was.
 */
export type BaselineStatus =
  | 'new-failure'
  | 'new-pass'
  | 'regressed'
  | 'improved'
  | 'unchanged'
  | 'new'
  | 'missing'
  | 'not-run'

/** A test file this run collected (its tests were declared, whether or not they ran). */
export interface CollectedFile {
  readonly project: string
  readonly file: string
  /** Every test declared in the file, skipped ones included. */
  readonly tests: readonly {
    readonly name: string
    /** See {@link BaselineEntry.ordinal}. */
    readonly ordinal: number
    /** The test ran to its end and passed, so every assertion it makes now was made. */
    readonly completed: boolean
  }[]
}

/**
 * What a run covered, which tells a baseline entry whose test did not run (kept) from one whose test no longer
 * exists (dropped when the baseline is refreshed).
 */
export interface RunScope {
  /** The files this run collected without an error; a file that failed to load is left out, as if not run. */
  readonly files: readonly CollectedFile[]
  /** Whether a test file (relative to the root, as in entries) is still there. */
  readonly fileExists: (file: string) => boolean
}

/** One evaluation of this run or of the baseline, compared. */
export interface BaselineChange extends BaselinePlace {
  readonly status: BaselineStatus
  /** Null for a new evaluation. */
  readonly before: Outcome | null
  /** Null for one missing from this run. */
  readonly after: Outcome | null
  /** after − before, when both have a score. */
  readonly scoreChange: number | null
  /** after − before of the chance of passing, when both have one. */
  readonly passProbabilityChange?: number | null | undefined
}

/** How an evaluation came out, in a run or in the baseline. */
interface Outcome {
  readonly score: number | null
  readonly passed: boolean
  readonly passProbability?: number | undefined
}

/** This run against the baseline: counts per status and every evaluation that is not unchanged. */
export interface BaselineComparison {
  /** The baseline file, as configured. */
  readonly file: string
  /**
   * A score counts as regressed when it falls more than this below its baseline (rises, under `.not`); so does a
   * chance of passing.
   */
  readonly tolerance: number
  readonly counts: Readonly<Record<BaselineStatus, number>>
  /** Every change but the unchanged and not-run ones, in the report's order, then the missing ones. */
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
      ordinal: test.ordinal ?? 1,
      assertion: record.assertion,
      metric: record.name,
      score: record.error === null ? record.score : null,
      threshold: record.threshold,
      passed: record.assertionPassed,
      negated: record.negated,
      ...(record.passProbability === undefined || record.error !== null
        ? {}
        : { passProbability: record.passProbability.p }),
    })),
  )
  return { version: 1, entries }
}

/** A refreshed baseline and where its entries came from. */
export interface RefreshedBaseline {
  readonly content: BaselineFile
  /** Entries of this run. */
  readonly fromRun: number
  /** Old entries kept as they were: their tests did not run. */
  readonly kept: number
  /** Old entries left out: their tests (or assertions) no longer exist. */
  readonly dropped: number
}

/**
 * Entries for a refreshed baseline: this run's, plus the old baseline's whose tests did not run (see
 * {@link RunScope}); an old entry is dropped only when its test no longer exists. The file keeps its order, so a
 * refresh changes the lines it must: each entry stays in its place, new ones follow the others of their file.
 */
export function refreshBaseline(
  current: BaselineFile,
  previous: BaselineFile | undefined,
  scope: RunScope,
): RefreshedBaseline {
  const measured = new Map(current.entries.map((entry) => [keyOf(entry), entry]))
  const fates = fatesOf(scope)
  const byFile = new Map<string, BaselineEntry[]>()
  const place = (entry: BaselineEntry) => {
    const file = JSON.stringify([entry.project, entry.file])
    const entries = byFile.get(file)
    if (entries === undefined) byFile.set(file, [entry])
    else entries.push(entry)
  }
  let kept = 0
  let dropped = 0
  for (const old of previous?.entries ?? []) {
    const key = keyOf(old)
    const now = measured.get(key)
    if (now !== undefined) {
      place(now)
      measured.delete(key)
    } else if (fates(old) === 'not-run') {
      place(old)
      kept += 1
    } else {
      dropped += 1
    }
  }
  for (const entry of measured.values()) place(entry)
  return {
    content: { version: 1, entries: [...byFile.values()].flat() },
    fromRun: current.entries.length,
    kept,
    dropped,
  }
}

/**
 * Compares this run with the baseline, per evaluation keyed by project, file, test name, the test's ordinal among
 * same-named tests and assertion index. Baseline entries this run did not match are `not-run` (counted, not listed)
 * or `missing` (listed), by the run's scope.
 */
export function compareWithBaseline(
  current: BaselineFile,
  baseline: BaselineFile,
  { file, tolerance, scope }: { file: string; tolerance: number; scope: RunScope },
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
    'not-run': 0,
  }
  for (const entry of current.entries) {
    const key = keyOf(entry)
    const old = before.get(key)
    before.delete(key)
    const change = compareEntry(entry, old, tolerance)
    counts[change.status] += 1
    if (change.status !== 'unchanged') changes.push(change)
  }
  const fates = fatesOf(scope)
  for (const old of before.values()) {
    const status = fates(old)
    counts[status] += 1
    if (status === 'missing') {
      changes.push({ ...locationOf(old), status, before: outcomeOf(old), after: null, scoreChange: null })
    }
  }
  return { file, tolerance, counts, changes }
}

/**
 * What became of a baseline entry this run did not measure. Its file was collected: the test is gone, or it made
 * no such assertion although it passed, so `missing`; declared but skipped, filtered or failed, so `not-run`. Its
 * file was not in the run: `not-run` while the file exists (another shard's, a file list, a watch re-run),
 * `missing` once it was deleted.
 */
function fatesOf(scope: RunScope): (entry: BaselineEntry) => 'missing' | 'not-run' {
  const files = new Map(
    scope.files.map((collected) => [JSON.stringify([collected.project, collected.file]), collected]),
  )
  return (entry) => {
    const collected = files.get(JSON.stringify([entry.project, entry.file]))
    if (collected === undefined) return scope.fileExists(entry.file) ? 'not-run' : 'missing'
    const test = collected.tests.find((declared) => declared.name === entry.test && declared.ordinal === entry.ordinal)
    return test === undefined || test.completed ? 'missing' : 'not-run'
  }
}

function compareEntry(entry: BaselineEntry, old: BaselineEntry | undefined, tolerance: number): BaselineChange {
  const after = outcomeOf(entry)
  if (old === undefined) return { ...locationOf(entry), status: 'new', before: null, after, scoreChange: null }
  const scoreChange = entry.score !== null && old.score !== null ? entry.score - old.score : null
  const chanceChange =
    entry.passProbability !== undefined && old.passProbability !== undefined
      ? entry.passProbability - old.passProbability
      : null
  // Under .not the metric is expected to fail, so a rising score (or chance of passing) is the change for the worse.
  const worseBy = (change: number | null) => (change === null ? 0 : entry.negated ? change : -change)
  const worse = Math.max(worseBy(scoreChange), worseBy(chanceChange))
  const better = Math.min(worseBy(scoreChange), worseBy(chanceChange))
  let status: BaselineStatus = 'unchanged'
  if (old.passed && !entry.passed) status = 'new-failure'
  else if (!old.passed && entry.passed) status = 'new-pass'
  else if (worse > tolerance + EPSILON) status = 'regressed'
  else if (worse <= EPSILON && better < -EPSILON) status = 'improved'
  const chance = chanceChange === null ? {} : { passProbabilityChange: chanceChange }
  return { ...locationOf(entry), status, before: outcomeOf(old), after, scoreChange, ...chance }
}

function keyOf(entry: BaselineEntry): string {
  return JSON.stringify([entry.project, entry.file, entry.test, entry.ordinal, entry.assertion])
}

function locationOf(entry: BaselineEntry): BaselinePlace {
  return {
    project: entry.project,
    file: entry.file,
    test: entry.test,
    ordinal: entry.ordinal,
    assertion: entry.assertion,
    metric: entry.metric,
  }
}

function outcomeOf(entry: BaselineEntry): Outcome {
  const { score, passed, passProbability } = entry
  return passProbability === undefined ? { score, passed } : { score, passed, passProbability }
}

const SYMBOLS: Record<BaselineStatus, string> = {
  'new-failure': '✗',
  'new-pass': '✓',
  regressed: '▼',
  improved: '▲',
  unchanged: '=',
  new: '+',
  missing: '−',
  'not-run': '·',
}

/** `2 regressed, 1 new failure, 0 new passes, 1 improved, 3 new, 1 missing, 12 unchanged` (`, 17 not run` if any) */
export function renderBaselineCounts(counts: BaselineComparison['counts']): string {
  const notRun = counts['not-run'] > 0 ? [`${counts['not-run']} not run`] : []
  return [
    `${counts.regressed} regressed`,
    `${counts['new-failure']} new ${counts['new-failure'] === 1 ? 'failure' : 'failures'}`,
    `${counts['new-pass']} new ${counts['new-pass'] === 1 ? 'pass' : 'passes'}`,
    `${counts.improved} improved`,
    `${counts.new} new`,
    `${counts.missing} missing`,
    `${counts.unchanged} unchanged`,
    ...notRun,
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

/** `|web| tests/a.test.ts > greets #1 · Playful`; the second test named `greets` in the file: `greets [2nd] #1`. */
export function changeLocation(change: BaselineChange): string {
  const project = change.project === '' ? '' : `|${change.project}| `
  const ordinal = change.ordinal === 1 ? '' : ` [${ordinalText(change.ordinal)}]`
  return `${project}${change.file} > ${change.test}${ordinal} #${change.assertion} · ${change.metric}`
}

/** 2nd, 3rd, 11th, 21st. */
function ordinalText(count: number): string {
  const tens = count % 100
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][count % 10] ?? 'th')
  return `${count}${suffix}`
}

/**
 * `0.9 → 0.6 (−0.3)`, `… , now fails`, `new, 0.7`, `missing from this run (was 0.8)`; with a chance of passing that
 * moved, `0.8 → 0.8 (±0) · P(pass) 0.93 → 0.72`.
 */
export function describeChange(change: BaselineChange): string {
  const { before, after } = change
  if (before === null) return `new, ${scoreText(after?.score ?? null)}`
  if (after === null) return `missing from this run (was ${scoreText(before.score)})`
  const flip = change.status === 'new-failure' ? 'to-fail' : change.status === 'new-pass' ? 'to-pass' : null
  const moved = scoreMove(before.score, after.score, change.scoreChange, flip)
  const chance = chanceMove(before.passProbability, after.passProbability)
  return chance === undefined ? moved : `${moved} · ${chance}`
}
