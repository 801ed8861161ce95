// Several Jest projects, each configured with withJudgetree and global hooks of its own: every project's hooks
// run (with its own config), all workers share the one coordinator, and the judgetree reporter of the root
// config reports both projects. scripts/compat.mjs runs this file on Jest 29 and 30.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { type RunResult, runJest, scratchDir } from './support/runner.js'

describe('projects: [a, b], each withJudgetree({ globalSetup, globalTeardown })', () => {
  const scratch = scratchDir()
  const hookLog = join(scratch, 'hooks.log')
  const reportFile = join(scratch, 'report.json')
  let run: RunResult

  beforeAll(async () => {
    run = await runJest('jest-projects', [], { FIXTURE_HOOK_LOG: hookLog, FIXTURE_REPORT_FILE: reportFile })
  }, 120_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('both projects’ tests pass, their workers having the run’s coordinator', () => {
    expect({ code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ code: 0, output: '' })
  })

  test('each project’s own globalSetup and globalTeardown ran once, with that project’s config', () => {
    const lines = readFileSync(hookLog, 'utf8').trim().split('\n')
    expect([...lines].sort()).toEqual([
      'a setup (config of a)',
      'a teardown (config of a)',
      'b setup (config of b)',
      'b teardown (config of b)',
    ])
    expect(lines.indexOf('a teardown (config of a)')).toBeGreaterThan(lines.indexOf('b setup (config of b)'))
  })

  test('the root config’s judgetree reporter reports both projects', () => {
    expect(readReport(reportFile).tests.map((entry) => entry.project)).toEqual(['a', 'b'])
    expect(run.stderr).not.toContain('was not among the reporters')
  })
})
