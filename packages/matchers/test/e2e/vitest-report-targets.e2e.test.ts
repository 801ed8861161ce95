// Issue 24: the JSON report written into a file descriptor (`outputFile: '/dev/fd/1'`, the runner's own stdout)
// instead of crashing the reporter, and a CodeNode check that never settles ended by the test's timeout.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { type RunResult, runVitest, scratchDir } from './support/runner.js'

describe('reporter outputFile /dev/fd/1: the report goes to the runner’s stdout', () => {
  let run: RunResult

  beforeAll(async () => {
    run = await runVitest('vitest-report-targets', ['run', 'tests/passes.test.ts'], {
      FIXTURE_REPORT_FILE: '/dev/fd/1',
    })
  }, 60_000)

  test('the run passes, and judgetree’s closing summary is printed', () => {
    expect(run.stderr).not.toContain('/dev/fd/1.')
    expect(run.code).toBe(0)
    expect(run.output).toContain('judgetree: JSON report in /dev/fd/1')
    expect(run.output).toContain('judgetree: 1 evaluation, 1 passed')
  })

  test('the whole JSON report is in stdout', () => {
    const start = run.stdout.indexOf('{\n  "')
    expect(start).toBeGreaterThanOrEqual(0)
    const end = run.stdout.indexOf('\n}\n', start)
    const report = JSON.parse(run.stdout.slice(start, end + 2))
    expect(report.summary).toMatchObject({ evaluations: 1, passed: 1 })
  })
})

describe('a CodeNode check that never settles, under a 500 ms test timeout', () => {
  const scratch = scratchDir()
  const reportFile = join(scratch, 'report.json')
  let run: RunResult

  beforeAll(async () => {
    run = await runVitest('vitest-report-targets', ['run', 'tests/hung-check.test.ts'], {
      FIXTURE_REPORT_FILE: reportFile,
    })
  }, 60_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('the test fails with its timeout', () => {
    expect(run.code).toBe(1)
    expect(run.output).toContain('Test timed out in 500ms')
  })

  test('the timeout ended the measurement itself: its record says MEASUREMENT_ABORTED with the walked check', () => {
    const [record] = readReport(reportFile).tests[0]?.evaluations ?? []
    expect(record).toMatchObject({ name: 'Hung check', error: { code: 'MEASUREMENT_ABORTED' } })
    // Not the guard's stand-in for an assertion that never settled, which knows nothing of the walk.
    expect(record?.error?.message).not.toContain('its result is unknown')
    expect(record?.trace.nodes[0]).toMatchObject({ kind: 'CodeNode', status: 'failed' })
  })
})
