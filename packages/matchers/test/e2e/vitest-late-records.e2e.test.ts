// A `toPassMetric` assertion that settles after its test ended (not awaited, or cut short by a timeout, on a
// machine so starved of CPU that the cancelled measurement takes longer than the guard's grace to unwind) writes
// its record after Vitest sent the test's last update, and Vitest never sends it again. The JSON report must list
// the assertion anyway: the guard stores a record for it before the test is reported.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { type RunResult, runVitest, scratchDir } from './support/runner.js'

describe('an assertion that settles after its test was reported', () => {
  const scratch = scratchDir()
  const reportFile = join(scratch, 'report.json')
  let run: RunResult

  beforeAll(async () => {
    run = await runVitest('vitest-late', ['run'], { FIXTURE_REPORT_FILE: reportFile })
  }, 60_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test("the test fails with the guard's error", () => {
    expect(run.code).toBe(1)
    expect(run.output).toContain('1 toPassMetric() assertion was still running when the test ended')
  })

  test('the JSON report still lists it, as cancelled before it settled, with the line of its expect', () => {
    const report = readReport(reportFile)
    expect(report.tests.map((entry) => entry.name)).toEqual(['ends while its assertion still runs'])
    const [record] = report.tests[0]?.evaluations ?? []
    expect(record).toMatchObject({
      name: 'Stubborn',
      assertion: 1,
      assertionPassed: false,
      error: { code: 'MEASUREMENT_ABORTED' },
      source: { file: 'tests/late.test.ts', line: 33 },
    })
    expect(record?.error?.message).toContain('the test ended before this toPassMetric() assertion finished')
    expect(report.summary).toMatchObject({ metrics: 1, errored: 1 })
  })
})
