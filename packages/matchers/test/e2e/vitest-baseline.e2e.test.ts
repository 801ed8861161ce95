// Baselines through real Vitest runs of test/fixtures/vitest-baseline, whose scores the FIXTURE_SCORES variable
// sets: a baseline is written, a later run with a dropped score, a new test and a gone one is compared with it on
// every surface, failOnRegression fails that run, refreshing accepts it, and sharded runs neither write nor list
// other shards' tests as missing while the merged run compares the whole suite. Also: toAgreeWith in Vitest.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  AFTER,
  BEFORE,
  judgetreeLines as sharedJudgetreeLines,
  stepSummary as sharedStepSummary,
} from './support/baseline-suite.js'
import { readReport } from './support/reports.js'
import { type RunResult, runVitest, scratchDir } from './support/runner.js'

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
    expect(judgetreeLines(refreshed)).toContain('judgetree: baseline updated: <scratch>/baseline.json (3 evaluations)')
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
    // Each shard compares its own tests and lists none of the other shard's as missing.
    const shardLines = dropped.map(judgetreeLines).join('\n')
    expect(shardLines).toContain('▼ tests/a.test.ts > a drifts #1')
    expect(shardLines).not.toContain('missing from this run')
    const mergedDrop = await run(AFTER, baseline, { FIXTURE_TOLERANCE: '0' }, [`--merge-reports=${blobs}`])
    expect(mergedDrop.code).toBe(1)
    expect(judgetreeLines(mergedDrop)).toContain(
      '1 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 1 missing, 1 unchanged',
    )
    expect(judgetreeLines(mergedDrop)).toContain('judgetree: failOnRegression: 1 score fell below the baseline')
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
