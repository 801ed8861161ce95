// Jest runs whose reporter list leaves the judgetree reporter out (`--reporters=default`, or a config listing its
// own) say so in one line with the flags that keep it; a run that lists it writes its outputs. scripts/compat.mjs
// runs this file on Jest 29 and 30.
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fixture, type RunResult, runJest, scratchDir } from './support/runner.js'

const WARNING =
  'judgetree: the judgetree reporter was not among the reporters (--reporters replaces the list), so no summary, ' +
  'JSON report or step summary was written; keep it with --reporters=default --reporters=@judgetree/matchers/jest/reporter'

describe('jest --reporters=…: the judgetree outputs, or one line saying how to keep them', () => {
  const scratch = scratchDir()
  const reportFile = join(scratch, 'report.json')
  // Listed on the command line, the reporter has no options: its report goes to the default place.
  const defaultReport = join(fixture('jest-reporters'), '.judgetree', 'report.json')
  let replaced: RunResult
  let kept: RunResult

  beforeAll(async () => {
    const env = { FIXTURE_REPORT_FILE: reportFile }
    replaced = await runJest('jest-reporters', ['--reporters=default'], env)
    expect(existsSync(reportFile)).toBe(false)
    rmSync(defaultReport, { force: true })
    kept = await runJest(
      'jest-reporters',
      ['--reporters=default', `--reporters=@judgetree/matchers/jest/reporter`],
      env,
    )
  }, 120_000)

  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('--reporters=default: the tests ran as usual, and one line says what is missing and how to keep it', () => {
    expect(replaced.code).toBe(1)
    expect(replaced.stderr).toContain('✕ fails a flat conversation')
    expect(replaced.stderr.split('\n').filter((line) => line.startsWith('judgetree: '))).toEqual([WARNING])
  })

  test('with the reporter listed again, as the line says: the summary and the JSON report, no warning', () => {
    expect(kept.code).toBe(1)
    expect(kept.stderr).not.toContain(WARNING)
    expect(kept.stderr).toMatch(/^judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored · /m)
    expect(existsSync(defaultReport)).toBe(true)
  })
})
