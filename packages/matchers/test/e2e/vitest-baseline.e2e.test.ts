// Baselines through real Vitest runs of test/fixtures/vitest-baseline, whose scores the FIXTURE_SCORES variable
// sets: a baseline is written, a later run with a dropped score, a new test and a gone one is compared with it on
// every surface, failOnRegression fails that run, refreshing accepts it, and sharded runs neither write nor list
// other shards' tests as missing (only not run) while the merged run compares the whole suite. Runs filtered with -t or a file
// list count the tests they did not run once and keep their entries when refreshing; tests sharing a name are
// compared each with its own entry; out-of-range values are refused; two runs updating at once keep each other's
// entries; the global expect under test.concurrent is warned about. Also: toAgreeWith in Vitest.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
import { majorVersion, type RunResult, runVitest, scratchDir } from './support/runner.js'

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
  const result = await runVitest('vitest-baseline', ['run', ...args], {
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

describe('a baseline in Vitest', () => {
  const baseline = join(scratch, 'baseline.json')

  test('is written with JUDGETREE_UPDATE_BASELINE=1, then a dropped score is flagged on every surface', async () => {
    const written = await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' })
    expect(written.code).toBe(0)
    expect(judgetreeLines(written)).toContain('judgetree: baseline written: <scratch>/baseline.json (3 evaluations)')
    expect(JSON.parse(readFileSync(baseline, 'utf8')).entries).toHaveLength(3)

    const dropped = await run(AFTER, baseline)
    // Without failOnRegression a drop is reported, not failed.
    expect(dropped.code).toBe(0)
    expect(judgetreeLines(dropped)).toMatchInlineSnapshot(`
      "judgetree: against the baseline <scratch>/baseline.json: 1 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 1 missing, 1 unchanged
        ▼ tests/a.test.ts > a drifts #1 · Written Score: 0.9 → 0.6 (−0.3)
        + tests/b.test.ts > b added #1 · Written Score: new, 0.7
        − tests/b.test.ts > b retired #1 · Written Score: missing from this run (was 0.7)
      judgetree: 3 evaluations, 3 passed, 0 failed, 0 errored · 0 judge calls (0 cached) · 0 tokens · $0.0000"
    `)
    expect(stepSummary(dropped.summary).split('### Baseline')[1]).toMatchInlineSnapshot(`
      " \`<scratch>/baseline.json\`

      1 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 1 missing, 1 unchanged

      | | change | test |
      | --- | --- | --- |
      | ▼ | 0.9 → 0.6 (−0.3) | tests/a.test.ts &gt; a drifts #1 · Written Score |
      | + | new, 0.7 | tests/b.test.ts &gt; b added #1 · Written Score |
      | − | missing from this run (was 0.7) | tests/b.test.ts &gt; b retired #1 · Written Score |

      "
    `)
    const section = readReport(dropped.report).baseline
    expect(section).toMatchObject({ status: 'compared', failedRun: false, error: null })
    expect(section?.comparison?.counts).toMatchObject({ regressed: 1, new: 1, missing: 1, unchanged: 1 })
    expect(section?.comparison?.changes[0]).toMatchObject({
      test: 'a drifts',
      status: 'regressed',
      before: { score: 0.9, passed: true },
      after: { score: 0.6, passed: true },
    })
  })

  test('failOnRegression fails the run that drops a score, unless the drop is within its tolerance', async () => {
    const failed = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' })
    expect(failed.code).toBe(1)
    expect(failed.output).toMatch(/Tests +4 passed/)
    expect(judgetreeLines(failed)).toContain(
      'judgetree: failOnRegression: 1 score fell below the baseline; the run fails. If the new scores are right, ' +
        'accept them with JUDGETREE_UPDATE_BASELINE=1.',
    )
    expect(readReport(failed.report).baseline).toMatchObject({ failedRun: true })
    expect(stepSummary(failed.summary)).toContain('❌ `failOnRegression` failed the run.')

    const tolerated = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0.3' })
    expect(tolerated.code).toBe(0)
    expect(judgetreeLines(tolerated)).toContain(': 0 regressed, 0 new failures')
  })

  test('refreshing accepts the new scores: the next run compares clean and passes under failOnRegression', async () => {
    const refreshed = await run(AFTER, baseline, { JUDGETREE_UPDATE_BASELINE: '1', FIXTURE_TOLERANCE: '0' })
    expect(refreshed.code).toBe(0)
    expect(judgetreeLines(refreshed)).toContain(
      'judgetree: baseline updated: <scratch>/baseline.json (3 evaluations: 3 from this run, 0 kept unchanged from ' +
        'tests that did not run, 1 dropped (their tests no longer exist))',
    )
    const entries = JSON.parse(readFileSync(baseline, 'utf8')).entries as { test: string; score: number }[]
    expect(entries.map((entry) => [entry.test, entry.score])).toEqual([
      ['a steady', 0.8],
      ['a drifts', 0.6],
      ['b added', 0.7],
    ])
    const again = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' })
    expect(again.code).toBe(0)
    expect(judgetreeLines(again)).toContain(
      '0 regressed, 0 new failures, 0 new passes, 0 improved, 0 new, 0 missing, 3 unchanged',
    )
  })

  test('a missing baseline is a one-line notice; a corrupt one a warning naming it, and the report is still written', async () => {
    const missing = await run(BEFORE, join(scratch, 'none.json'))
    expect(missing.code).toBe(0)
    expect(judgetreeLines(missing)).toContain(
      'judgetree: no baseline at <scratch>/none.json yet: run with JUDGETREE_UPDATE_BASELINE=1 to write one.',
    )
    expect(readReport(missing.report).baseline).toMatchObject({ status: 'missing', comparison: null })

    const corrupt = join(scratch, 'corrupt.json')
    writeFileSync(corrupt, '{"version": 1, "entries": [')
    const warned = await run(BEFORE, corrupt)
    expect(warned.code).toBe(0)
    expect(judgetreeLines(warned)).toMatch(
      /^judgetree: warning: the baseline <scratch>\/corrupt\.json cannot be read: it is not valid JSON \(.+\)\. Fix the file, or write a new one with JUDGETREE_UPDATE_BASELINE=1\.$/m,
    )
    const report = readReport(warned.report)
    expect(report.summary.evaluations).toBe(3)
    expect(report.baseline).toMatchObject({ status: 'unreadable', error: expect.stringContaining('not valid JSON') })

    const failed = await run(BEFORE, corrupt, { FIXTURE_TOLERANCE: '0' })
    expect(failed.code).toBe(1)
    expect(judgetreeLines(failed)).toContain('judgetree: failOnRegression is on and the baseline')
    expect(readReport(failed.report).summary.evaluations).toBe(3)
  })
})

describe('a baseline with vitest --shard and --merge-reports', () => {
  const baseline = join(scratch, 'sharded.json')
  const blobs = join(scratch, 'blobs')

  async function shards(scores: Record<string, number>, env: Record<string, string>) {
    rmSync(blobs, { recursive: true, force: true })
    const results = []
    for (const index of [1, 2]) {
      const blob = `--outputFile.blob=${join(blobs, `blob-${index}-2.json`)}`
      results.push(await run(scores, baseline, env, [`--shard=${index}/2`, '--reporter=blob', blob]))
    }
    return results
  }

  test('shards never write the baseline; the merged run writes it whole, and compares the whole suite', async () => {
    // A shard whose files evaluate nothing prints nothing; one that does says why it does not write.
    const written = (await shards(BEFORE, { JUDGETREE_UPDATE_BASELINE: '1' })).map(judgetreeLines).join('\n')
    expect(written).toMatch(/judgetree: baseline not written: this run is shard [12]\/2\./)
    expect(existsSync(baseline)).toBe(false)
    const merged = await run(BEFORE, baseline, { JUDGETREE_UPDATE_BASELINE: '1' }, [`--merge-reports=${blobs}`])
    expect(merged.code).toBe(0)
    expect(judgetreeLines(merged)).toContain('judgetree: baseline written: <scratch>/sharded.json (3 evaluations)')

    const dropped = await shards(AFTER, {})
    // Each shard compares its own tests and counts the other shard's as not run: only the test gone from a file
    // the shard ran is missing.
    const shardLines = dropped.map(judgetreeLines).join('\n')
    expect(shardLines).toContain('▼ tests/a.test.ts > a drifts #1')
    expect(shardLines.split('\n').filter((line) => line.includes('missing from this run'))).toEqual([
      '  − tests/b.test.ts > b retired #1 · Written Score: missing from this run (was 0.7)',
    ])
    expect(shardLines).toMatch(/, \d not run\n/)
    const mergedDrop = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' }, [`--merge-reports=${blobs}`])
    expect(mergedDrop.code).toBe(1)
    expect(judgetreeLines(mergedDrop)).toContain(
      '1 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 1 missing, 1 unchanged',
    )
    expect(judgetreeLines(mergedDrop)).toContain('judgetree: failOnRegression: 1 score fell below the baseline')
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
    expect(readReport(accepted.report).baseline?.comparison?.counts).toMatchObject({ missing: 0, 'not-run': 2 })
    expect(baselineScores(baseline)).toEqual([
      ['a steady', 0.8],
      ['a drifts', 0.6],
      ['b retired', 0.7],
    ])
  })

  test("a run of one file keeps the others' entries and drops only those of its tests that are gone", async () => {
    const refreshed = await run(AFTER, baseline, { JUDGETREE_UPDATE_BASELINE: '1' }, ['tests/b.test.ts'])
    expect(judgetreeLines(refreshed)).toContain(
      '  − tests/b.test.ts > b retired #1 · Written Score: missing from this run (was 0.7)',
    )
    expect(judgetreeLines(refreshed)).toContain(
      'judgetree: baseline updated: <scratch>/filtered.json (3 evaluations: 1 from this run, 2 kept unchanged from ' +
        'tests that did not run, 1 dropped (their tests no longer exist))',
    )
    expect(baselineScores(baseline)).toEqual([
      ['a steady', 0.8],
      ['a drifts', 0.6],
      ['b added', 0.7],
    ])
    const whole = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' })
    expect(whole.code).toBe(0)
    expect(judgetreeLines(whole)).toContain(
      ': 0 regressed, 0 new failures, 0 new passes, 0 improved, 0 new, 0 missing, 3 unchanged\n',
    )
  })
})

describe('a baseline of tests that share a name', () => {
  const baseline = join(scratch, 'same-name.json')
  const sameNamed = (scores: number[], env: Record<string, string> = {}) =>
    run({}, baseline, { FIXTURE_INCLUDE: 'more/dup.test.ts', FIXTURE_DUP: JSON.stringify(scores), ...env })

  test('compares each test with its own entry: swapped scores are a regression that fails the run', async () => {
    await sameNamed([0.9, 0.6], { JUDGETREE_UPDATE_BASELINE: '1' })
    const unchanged = await sameNamed([0.9, 0.6], { FIXTURE_TOLERANCE: '0' })
    expect(unchanged.code).toBe(0)
    expect(judgetreeLines(unchanged)).toContain(
      ': 0 regressed, 0 new failures, 0 new passes, 0 improved, 0 new, 0 missing, 2 unchanged\n',
    )

    const swapped = await sameNamed([0.6, 0.9], { FIXTURE_TOLERANCE: '0.05' })
    expect(swapped.code).toBe(1)
    expect(judgetreeLines(swapped)).toBe(
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

  test('a baseline written before tests were numbered is read in its order, and rewritten with the numbers', async () => {
    writeBaseline(baseline, [
      baselineEntry('more/dup.test.ts', 'dup', 0.9),
      baselineEntry('more/dup.test.ts', 'dup', 0.6),
    ])
    const compared = await sameNamed([0.9, 0.6], { JUDGETREE_UPDATE_BASELINE: '1' })
    expect(judgetreeLines(compared)).toContain(
      ': 0 regressed, 0 new failures, 0 new passes, 0 improved, 0 new, 0 missing, 2 unchanged\n',
    )
    const entries = JSON.parse(readFileSync(baseline, 'utf8')).entries as { ordinal: number; score: number }[]
    expect(entries.map((entry) => [entry.ordinal, entry.score])).toEqual([
      [1, 0.9],
      [2, 0.6],
    ])
  })
})

describe('a baseline with values out of range', () => {
  test('is refused like a corrupt one, naming each bad value, instead of compared', async () => {
    const hostile = join(scratch, 'hostile.json')
    writeBaseline(hostile, [
      baselineEntry('tests/a.test.ts', 'a steady', 0.8, { score: 1e308 }),
      baselineEntry('tests/a.test.ts', 'a drifts', 0.9, { assertion: -1, threshold: 99 }),
    ])
    const warned = await run(BEFORE, hostile, { FIXTURE_TOLERANCE: '0' })
    expect(warned.code).toBe(1)
    expect(judgetreeLines(warned)).toContain(
      'judgetree: warning: the baseline <scratch>/hostile.json cannot be read: it has 2 bad entries: entries[0]: ' +
        'score is 1e+308, not null or a number from 0 to 1; entries[1]: assertion is -1, not a whole number from 1 ' +
        'up; threshold is 99, not a number from 0 to 1. Fix the file, or write a new one with ' +
        'JUDGETREE_UPDATE_BASELINE=1.',
    )
    expect(warned.output).not.toContain('Infinity')
    expect(readReport(warned.report).baseline).toMatchObject({ status: 'unreadable', failedRun: true })
  })
})

describe('two runs updating one baseline at once', () => {
  test("each keeps the other's entries", async () => {
    const baseline = join(scratch, 'race.json')
    const barrier = join(scratch, 'barrier')
    mkdirSync(barrier)
    // Many entries of a file neither run covers: reading and writing the file takes long enough for the two runs'
    // updates to overlap, which the barrier reporter makes them start at the same moment.
    const filler = Array.from({ length: 20_000 }, (_, index) =>
      baselineEntry('tests/calibration.test.ts', `filler ${index}`, 0.5),
    )
    writeBaseline(baseline, [
      baselineEntry('tests/a.test.ts', 'a steady', 0.8),
      baselineEntry('tests/a.test.ts', 'a drifts', 0.9),
      baselineEntry('tests/b.test.ts', 'b retired', 0.7),
      ...filler,
    ])
    const env = { JUDGETREE_UPDATE_BASELINE: '1', FIXTURE_BARRIER: barrier }
    const [first, second] = await Promise.all([
      run({ 'a steady': 0.55, 'a drifts': 0.65 }, baseline, env, ['tests/a.test.ts']),
      run({ 'b retired': 0.75 }, baseline, env, ['tests/b.test.ts']),
    ])
    expect(readdirSync(barrier)).toHaveLength(2)
    expect(judgetreeLines(first ?? second)).toContain('judgetree: baseline updated: <scratch>/race.json')
    const scores = baselineScores(baseline)
    expect(scores).toHaveLength(20_003)
    expect(scores.filter(([name]) => !name.startsWith('filler'))).toEqual([
      ['a steady', 0.55],
      ['a drifts', 0.65],
      ['b retired', 0.75],
    ])
    expect(existsSync(`${baseline}.lock`)).toBe(false)
  })
})

// Vitest 3.2 tells a matcher nothing about its test, so concurrent tests get no meta there at all (the matchers
// README says so): neither half applies.
describe.skipIf(majorVersion('vitest') < 4)('the global expect under test.concurrent', () => {
  const concurrent = (env: Record<string, string>) =>
    run({}, join(scratch, 'none.json'), { FIXTURE_INCLUDE: 'more/concurrent.test.ts', ...env })
  const warning =
    /judgetree: warning: a concurrent test called toPassMetric\(\) through the global `expect`, which gave its result to "(first|second|third)"\. Under test\.concurrent the global `expect` is bound to whichever test started last, so results land on the wrong test or are lost\. Use the test context's expect: test\.concurrent\('…', async \(\{ expect \}\) => \{ await expect\(testCase\)\.toPassMetric\(metric\) \}\)\./

  test('is warned about once per file', async () => {
    const global = await concurrent({ FIXTURE_GLOBAL_EXPECT: '1' })
    expect(global.output).toMatch(warning)
    expect(global.output.match(/judgetree: warning/g)).toHaveLength(1)
  })

  test('the context expect gives each test its own result, with no warning', async () => {
    const context = await concurrent({})
    expect(context.output).not.toContain('judgetree: warning')
    expect(readReport(context.report).summary.evaluations).toBe(3)
  })
})

describe('toAgreeWith in Vitest', () => {
  test('a failing agreement lists the numbers and the worst disagreements', async () => {
    const result = await run(BEFORE, join(scratch, 'none.json'), { FIXTURE_FAIL_AGREEMENT: '1' }, [
      'tests/calibration.test.ts',
    ])
    expect(result.code).toBe(1)
    expect(result.output).toContain(`expected the judge to agree with the human labels:
  ✗ Cohen's kappa   0.500  (≥ 0.6 wanted)
  ✗ mean abs. error n/a  (not defined on these cases)`)
    expect(result.output).toContain('✗ case 2: judge 0.7 (pass), human fail · it says 0.7')
  })
})
