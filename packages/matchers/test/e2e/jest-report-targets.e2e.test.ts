// Issue 24: the JSON report written into a file descriptor (`outputFile: '/dev/fd/1'`, the runner's own stdout)
// instead of failing on a temporary file beside it ('/dev/fd/1.<pid>.tmp').
import { beforeAll, describe, expect, test } from 'vitest'
import { type RunResult, runJest } from './support/runner.js'

describe('Jest reporter outputFile /dev/fd/1', () => {
  let run: RunResult

  beforeAll(async () => {
    run = await runJest('jest-basic', ['-t', 'passes a playful conversation', 'tests/conversation.test.ts'], {
      FIXTURE_REPORT_FILE: '/dev/fd/1',
    })
  }, 60_000)

  test('the report is written into stdout, and the closing summary names it', () => {
    expect(run.output).not.toContain('/dev/fd/1.')
    expect(run.code).toBe(0)
    expect(run.output).toContain('judgetree: JSON report in /dev/fd/1')
    const start = run.stdout.indexOf('{\n  "')
    const report = JSON.parse(run.stdout.slice(start, run.stdout.indexOf('\n}\n', start) + 2))
    expect(report.summary).toMatchObject({ evaluations: 1, passed: 1 })
  })
})
