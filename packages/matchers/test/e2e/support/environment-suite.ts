// What both runners' e2e files check about problems of the environment: a run with no API key, and a run with
// malformed JUDGETREE_* variables, on a fixture of 6 tests that use the real OpenAI judge. Each problem is said
// once per run, with how to fix it; each failed test names the problem in one line.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readJUnit, readReport } from './reports.js'
import { type RunResult, scratchDir } from './runner.js'

/** How often `text` holds `part`. */
export function occurrences(text: string, part: string): number {
  return text.split(part).length - 1
}

/**
 * Registers the suite; `run` starts the runner on its environment fixture with the given environment (and, for a
 * runner that writes JUnit XML, writes it to `junitFile`).
 */
export function environmentSuite(
  run: (env: Record<string, string>, junitFile: string) => Promise<RunResult>,
  options: { junit?: boolean } = {},
): void {
  describe('problems of the environment are said once per run, not once per test', () => {
    const scratch = scratchDir()
    const reportFile = join(scratch, 'report.json')
    let keyless: RunResult
    let malformed: RunResult
    let unreachable: RunResult
    let unreachableSeconds = 0

    beforeAll(async () => {
      // The runner's environment has no OPENAI_* variables (see runner.ts): the judge has no key.
      keyless = await run({ FIXTURE_REPORT_FILE: reportFile }, join(scratch, 'keyless.xml'))
      malformed = await run(
        {
          FIXTURE_REPORT_FILE: join(scratch, 'malformed.json'),
          OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
          JUDGETREE_CACHE: 'bogus',
          JUDGETREE_CONCURRENCY: 'eight',
          OPENAI_BASE_URL: '127.0.0.1:9/v1',
        },
        join(scratch, 'malformed.xml'),
      )
      // Nothing listens on port 9 of 127.0.0.1: every connection is refused.
      const started = Date.now()
      unreachable = await run(
        {
          FIXTURE_REPORT_FILE: join(scratch, 'unreachable.json'),
          OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        },
        join(scratch, 'unreachable.xml'),
      )
      unreachableSeconds = (Date.now() - started) / 1000
    }, 180_000)

    afterAll(() => rmSync(scratch, { recursive: true, force: true }))

    test('no API key: each of the 6 tests names the problem in one line; the fix is printed once', () => {
      expect(keyless.code).toBe(1)
      expect(occurrences(keyless.output, 'Set OPENAI_API_KEY')).toBe(1)
      // As often as the runner prints each failure, and no more: Jest prints each test's once; Vitest prints
      // identical errors (same message, same line of the shared fixture) once under all the tests that threw them,
      // and Vitest 3.2's default reporter also lists each failed test's message under it as it runs.
      const named = occurrences(
        keyless.output,
        'The judge model "gpt-4.1" has no API key. (how to fix it is printed once, at the end of the run)',
      )
      expect(named).toBeGreaterThanOrEqual(1)
      expect(named).toBeLessThanOrEqual(12)
      expect(keyless.stderr).toContain(
        'judgetree: a problem of the environment failed 6 evaluations (CONFIGURATION_INVALID):\n' +
          '  ConversationalTaskNode "Describe tone" failed: The judge model "gpt-4.1" has no API key.\n' +
          '  fix: Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local OpenAI-compatible server',
      )
      expect(keyless.stdout.split('\n').filter((line) => line.startsWith('judgetree'))).toEqual([])
    })

    test('a judge that cannot be reached: said once per run like a missing key, and its later calls fail at once', () => {
      expect(unreachable.code).toBe(1)
      expect(occurrences(unreachable.output, 'Check the network and OPENAI_BASE_URL')).toBe(1)
      expect(unreachable.stderr).toMatch(
        /judgetree: a problem of the environment failed 6 evaluations \(JUDGE_CALL_FAILED\):\n.* could not be reached/,
      )
      // Each test file's first calls retry; the calls after them are not made (a test file is a process).
      expect(unreachable.output).toContain('This call was not made: an earlier call failed so')
      const report = readReport(join(scratch, 'unreachable.json'))
      const evaluations = report.tests.flatMap((test) => test.evaluations)
      expect(evaluations.map((evaluation) => evaluation.error?.advice)).toEqual(
        Array(6).fill('Check the network and OPENAI_BASE_URL (or the baseURL option).'),
      )
      // Two files, each waiting out one call's retries at most, not one per test.
      expect(unreachableSeconds).toBeLessThan(60)
    })

    test('no API key: the JSON report keeps each whole message, with the advice on its own', () => {
      const evaluations = readReport(reportFile).tests.flatMap((test) => test.evaluations)
      expect(evaluations).toHaveLength(6)
      for (const evaluation of evaluations) {
        expect(evaluation.error?.code).toBe('CONFIGURATION_INVALID')
        expect(evaluation.error?.advice).toMatch(/^Set OPENAI_API_KEY, /)
        expect(evaluation.error?.message).toContain(`has no API key. ${evaluation.error?.advice}`)
        expect(evaluation.text).not.toContain('Set OPENAI_API_KEY')
      }
    })

    test.runIf(options.junit)('no API key: JUnit says the problem once per test case, without the fix', () => {
      const cases = readJUnit(join(scratch, 'keyless.xml'))
      expect(cases).toHaveLength(6)
      for (const testCase of cases) {
        expect(occurrences(testCase.failure ?? '', 'has no API key.')).toBe(1)
        expect(testCase.failure).not.toContain('Set OPENAI_API_KEY')
        // Not annotated: the failure says it all, and the fix is printed after the run.
        expect(testCase.properties).toEqual([])
      }
    })

    test('malformed JUDGETREE_* variables and OPENAI_BASE_URL stop the run before any test, with one message naming each', () => {
      expect(malformed.code).toBe(1)
      expect(occurrences(malformed.output, '3 environment variables are malformed')).toBe(1)
      expect(occurrences(malformed.output, 'OPENAI_BASE_URL is not an http(s) URL: got "127.0.0.1:9/v1".')).toBe(1)
      expect(
        occurrences(
          malformed.output,
          "JUDGETREE_CACHE must be one of 'read-write', 'read-only', 'replay', 'off'; got 'bogus'.",
        ),
      ).toBe(1)
      expect(
        occurrences(malformed.output, "JUDGETREE_CONCURRENCY must be a whole number from 1 and up; got 'eight'."),
      ).toBe(1)
      // No test ran, so none failed on its own with the same message.
      expect(malformed.output).not.toContain('a flat conversation')
      expect(malformed.output).not.toMatch(/\n\s+at |❯ .*environment\.ts/)
      // Nothing before it says something else went wrong (Vitest's "No test files found", a serialized error).
      expect(malformed.output).not.toMatch(/No tests? (files )?found|Serialized Error/)
    })
  })
}
