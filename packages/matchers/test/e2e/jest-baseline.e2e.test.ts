// Baselines through real Jest runs of test/fixtures/jest-baseline (the same suite as vitest-baseline): a baseline is
// written, a run with a dropped score is compared with it on every surface, failOnRegression fails that run (through
// the reporter's error), refreshing accepts it, a shard neither writes nor lists other shards' tests as missing, and
// a missing or corrupt baseline is reported. Runs filtered with -t or a file list count the tests they did not run
// once and keep their entries when refreshing; tests sharing a name are compared each with its own entry; values
// out of range are refused. Also: toAgreeWith in Jest.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  AFTER,
  BEFORE,
  baselineEntry,
  baselineScores,
  DRIFTED,
  judgetreeLines as sharedJudgetreeLines,
  stepSummary as sharedStepSummary,
  writeBaseline,
} from './support/baseline-suite.js'
import { readReport } from './support/reports.js'
import { type RunResult, runJest, scratchDir } from './support/runner.js'

const scratch = scratchDir()
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

let runs = 0
/** One run with its own report and step summary files; `env` adds FIXTURE_TOLERANCE, JUDGETREE_UPDATE_BASELINE… */
async function run(
  scores: Record<string, number>,
  baseline: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
) {
  runs += 1
  const report = join(scratch, `report-${runs}.json`)
  const summary = join(scratch, `summary-${runs}.md`)
  const result = await runJest('jest-baseline', [...args], {
    FIXTURE_SCORES: JSON.stringify(scores),
    FIXTURE_BASELINE: baseline,
    FIXTURE_REPORT_FILE: report,
    GITHUB_STEP_SUMMARY: summary,
    ...env,
  })
  return { ...result, report, summary }
}

/** The judgetree lines of a run's output, the scratch directory masked. */
const judgetreeLines = (result: RunResult) => sharedJudgetreeLines(result, scratch)
const stepSummary = (file: string) => sharedStepSummary(file, scratch)

describe('a baseline in Jest', () => {
  const baseline = join(scratch, 'baseline.json')

  test('is written with JUDGETREE_UPDATE_BASELINE=1, then a dropped score is flagged on every surface', async () => {
    const written = await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' })
    expect(written.code).toBe(0)
    expect(judgetreeLines(written)).toContain('judgetree: baseline written: <scratch>/baseline.json (3 evaluations)')

    const dropped = await run(AFTER, baseline)
    expect(dropped.code).toBe(0)
    expect(judgetreeLines(dropped)).toMatchInlineSnapshot(`
      "judgetree: against the baseline <scratch>/baseline.json: 1 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 1 missing, 1 unchanged
        ▼ tests/a.test.ts > a drifts #1 · Written Score: 0.9 → 0.6 (−0.3)
        + tests/b.test.ts > b added #1 · Written Score: new, 0.7
        − tests/b.test.ts > b retired #1 · Written Score: missing from this run (was 0.7)
      judgetree: 3 evaluations, 3 passed, 0 failed, 0 errored · 0 judge calls (0 cached) · 0 tokens · $0.0000"
    `)
    expect(stepSummary(dropped.summary)).toContain(
      '| ▼ | 0.9 → 0.6 (−0.3) | tests/a.test.ts &gt; a drifts #1 · Written Score |',
    )
    expect(readReport(dropped.report).baseline?.comparison?.counts).toMatchObject({ regressed: 1, new: 1, missing: 1 })
  })

  test('failOnRegression fails the run whose tests all pass; refreshing accepts the new scores', async () => {
    const failed = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' })
    expect(failed.code).toBe(1)
    expect(failed.output).toMatch(/Tests: +4 passed, 4 total/)
    expect(judgetreeLines(failed)).toContain(
      'judgetree: failOnRegression: 1 score fell below the baseline; the run fails.',
    )
    expect(readReport(failed.report).baseline).toMatchObject({ failedRun: true })

    const refreshed = await run(AFTER, baseline, { JUDGETREE_UPDATE_BASELINE: '1', FIXTURE_TOLERANCE: '0' })
    expect(refreshed.code).toBe(0)
    expect(judgetreeLines(refreshed)).toContain(
      'judgetree: baseline updated: <scratch>/baseline.json (3 evaluations: 3 from this run, 0 kept unchanged from ' +
        'tests that did not run, 1 dropped (their tests no longer exist))',
    )
    const again = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' })
    expect(again.code).toBe(0)
    expect(judgetreeLines(again)).toContain(
      '0 regressed, 0 new failures, 0 new passes, 0 improved, 0 new, 0 missing, 3 unchanged',
    )
  })

  test('a shard compares its own tests, lists as missing only those gone from its files, and never writes', async () => {
    const shard = await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' }, ['--shard=1/2'])
    const other = await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' }, ['--shard=2/2'])
    const lines = [shard, other].map(judgetreeLines).join('\n')
    expect(lines).toMatch(/judgetree: baseline not written: this run is shard [12]\/2\./)
    // The baseline holds the drifted suite's "b added", which tests/b.test.ts of this suite no longer declares.
    expect(lines.split('\n').filter((line) => line.includes('missing from this run'))).toEqual([
      '  − tests/b.test.ts > b added #1 · Written Score: missing from this run (was 0.7)',
    ])
    // Still the refreshed baseline of the previous test.
    const entries = JSON.parse(readFileSync(baseline, 'utf8')).entries as { test: string }[]
    expect(entries.map((entry) => entry.test)).toEqual(['a steady', 'a drifts', 'b added'])
  })

  test('a missing baseline is a one-line notice; a corrupt one a warning naming it, and the report is still written', async () => {
    const missing = await run(BEFORE, join(scratch, 'none.json'))
    expect(missing.code).toBe(0)
    expect(judgetreeLines(missing)).toContain(
      'judgetree: no baseline at <scratch>/none.json yet: run with JUDGETREE_UPDATE_BASELINE=1 to write one.',
    )
    const corrupt = join(scratch, 'corrupt.json')
    writeFileSync(corrupt, '{"tests": []}')
    const warned = await run(BEFORE, corrupt, { FIXTURE_TOLERANCE: '0' })
    expect(warned.code).toBe(1)
    expect(judgetreeLines(warned)).toContain(
      'judgetree: warning: the baseline <scratch>/corrupt.json cannot be read: it is not a judgetree baseline ' +
        '(expected { "version": 1, "entries": [...] }). Fix the file, or write a new one with JUDGETREE_UPDATE_BASELINE=1.',
    )
    expect(readReport(warned.report).summary.evaluations).toBe(3)
  })
})

describe('a baseline and a run that leaves tests out (-t, a file list)', () => {
  const baseline = join(scratch, 'filtered.json')

  test('a -t run counts the tests it skipped once, and refreshing keeps their entries', async () => {
    await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' })
    // The command the failOnRegression line suggests, applied to the test that regressed.
    const accepted = await run(DRIFTED, baseline, { JUDGETREE_UPDATE_BASELINE: '1', FIXTURE_TOLERANCE: '0' }, [
      '-t',
      'a drifts',
    ])
    expect(accepted.code).toBe(0)
    expect(judgetreeLines(accepted)).toBe(
      [
        'judgetree: against the baseline <scratch>/filtered.json: 1 regressed, 0 new failures, 0 new passes, ' +
          '0 improved, 0 new, 0 missing, 0 unchanged, 2 not run',
        '  ▼ tests/a.test.ts > a drifts #1 · Written Score: 0.9 → 0.6 (−0.3)',
        'judgetree: baseline updated: <scratch>/filtered.json (3 evaluations: 1 from this run, 2 kept unchanged ' +
          'from tests that did not run)',
        'judgetree: 1 evaluation, 1 passed, 0 failed, 0 errored · 0 judge calls (0 cached) · 0 tokens · $0.0000',
      ].join('\n'),
    )
    expect(baselineScores(baseline)).toEqual([
      ['a steady', 0.8],
      ['a drifts', 0.6],
      ['b retired', 0.7],
    ])
  })

  test("a run of one file keeps the others' entries and drops only those of its tests that are gone", async () => {
    const refreshed = await run(AFTER, baseline, { JUDGETREE_UPDATE_BASELINE: '1' }, ['tests/b.test.ts'])
    expect(judgetreeLines(refreshed)).toContain(
      'judgetree: baseline updated: <scratch>/filtered.json (3 evaluations: 1 from this run, 2 kept unchanged from ' +
        'tests that did not run, 1 dropped (their tests no longer exist))',
    )
    expect(baselineScores(baseline)).toEqual([
      ['a steady', 0.8],
      ['a drifts', 0.6],
      ['b added', 0.7],
    ])
  })
})

describe('a baseline of tests that share a name', () => {
  const baseline = join(scratch, 'same-name.json')
  const sameNamed = (scores: number[], env: Record<string, string> = {}) =>
    run({}, baseline, { FIXTURE_INCLUDE: 'more/dup.test.ts', FIXTURE_DUP: JSON.stringify(scores), ...env })

  test('compares each test with its own entry: swapped scores are a regression that fails the run', async () => {
    await sameNamed([0.9, 0.6], { JUDGETREE_UPDATE_BASELINE: '1' })
    expect(readReport(join(scratch, `report-${runs}.json`)).tests.map((test) => test.evaluations.length)).toEqual([
      1, 1,
    ])
    const swapped = await sameNamed([0.6, 0.9], { FIXTURE_TOLERANCE: '0.05' })
    expect(swapped.code).toBe(1)
    // Without Jest's list of the file's tests (`  ✓ dup (9 ms)`), which a run of one file prints.
    expect(judgetreeLines(swapped).replace(/^ {2}✓ dup \(\d+ ms\)\n/gm, '')).toBe(
      [
        'judgetree: against the baseline <scratch>/same-name.json: 1 regressed, 0 new failures, 0 new passes, ' +
          '1 improved, 0 new, 0 missing, 0 unchanged',
        '  ▼ more/dup.test.ts > dup #1 · Written Score: 0.9 → 0.6 (−0.3)',
        '  ▲ more/dup.test.ts > dup [2nd] #1 · Written Score: 0.6 → 0.9 (+0.3)',
        'judgetree: failOnRegression: 1 score fell below the baseline by more than 0.05; the run fails. If the new ' +
          'scores are right, accept them with JUDGETREE_UPDATE_BASELINE=1.',
        'judgetree: 2 evaluations, 2 passed, 0 failed, 0 errored · 0 judge calls (0 cached) · 0 tokens · $0.0000',
      ].join('\n'),
    )
  })
})

describe('a baseline with values out of range', () => {
  test('is refused like a corrupt one, naming each bad value, instead of compared', async () => {
    const hostile = join(scratch, 'hostile.json')
    writeBaseline(hostile, [baselineEntry('tests/a.test.ts', 'a steady', 0.8, { score: 1e308 })])
    const warned = await run(BEFORE, hostile, { FIXTURE_TOLERANCE: '0' })
    expect(warned.code).toBe(1)
    expect(judgetreeLines(warned)).toContain(
      'judgetree: warning: the baseline <scratch>/hostile.json cannot be read: it has 1 bad entry: entries[0]: ' +
        'score is 1e+308, not null or a number from 0 to 1. Fix the file, or write a new one with ' +
        'JUDGETREE_UPDATE_BASELINE=1.',
    )
    expect(warned.output).not.toContain('Infinity')
  })
})

describe('toAgreeWith in Jest', () => {
  test('a failing agreement lists the numbers and the worst disagreements', async () => {
    const result = await run(BEFORE, join(scratch, 'none.json'), { FIXTURE_FAIL_AGREEMENT: '1' }, [
      'tests/calibration.test.ts',
    ])
    expect(result.code).toBe(1)
    expect(result.output).toContain("✗ Cohen's kappa   0.500  (≥ 0.6 wanted)")
    expect(result.output).toContain('✗ case 2: judge 0.7 (pass), human fail · it says 0.7')
  })
})
