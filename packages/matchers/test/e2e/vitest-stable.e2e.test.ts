// The same suite, recorded once and replayed from the judge cache in several ways (four workers, one worker with
// a shuffled order, two shards merged), must give the same judgetree report on every surface: the JSON report
// byte for byte once durations are masked, the closing output and the GitHub step summary. Its measurements wait
// a random while, so evaluations finish in another order on every run. scripts/compat.mjs runs this file on
// Vitest 3.2 and 5 too.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { majorVersion, type RunResult, runVitest, scratchDir } from './support/runner.js'
import { closingOutput, maskedReport, startStableJudge } from './support/stable-suite.js'

const API_KEY = 'sk-test-stable-0123456789abcdef'
/** Vitest 3.2 cannot bind a matcher to a concurrent test, so those tests keep no record there. */
const RECORDS_CONCURRENT_TESTS = majorVersion('vitest') >= 4

const FILE_ORDER = [
  ['tests/answers.test.ts', 'the right capital passes'],
  ['tests/answers.test.ts', 'a wrong capital fails, as expected'],
  ['tests/chat.test.ts', 'a playful conversation passes'],
  ['tests/chat.test.ts', 'two evaluations at once, listed in the order they were called'],
  ['tests/chat.test.ts', 'fails on purpose: a flat conversation'],
  ...(RECORDS_CONCURRENT_TESTS
    ? [
        ['tests/chat.test.ts', 'concurrent > first'],
        ['tests/chat.test.ts', 'concurrent > second'],
      ]
    : []),
  ['tests/mixed.test.ts', 'fails on purpose: a wrong capital'],
  ['tests/mixed.test.ts', 'one after the other'],
]

describe('one replayed suite, run with 4 workers, shuffled on 1 worker, and as 2 merged shards', () => {
  const scratch = scratchDir()
  const cache = join(scratch, 'cache')
  const reportOf = (name: string) => join(scratch, `${name}.json`)
  const summaryOf = (name: string) => join(scratch, `${name}.md`)
  let server: OpenAIServer
  let recorded: RunResult
  const runs: Record<string, RunResult> = {}

  /**
   * A run from the cache alone: a judge call it does not find there is an error. The base URL stays the recording
   * server's, which is closed by then, so a call that slipped past the cache could not be answered either.
   */
  function replay(name: string, args: readonly string[]): Promise<RunResult> {
    return runVitest('vitest-stable', ['run', ...args], {
      JUDGETREE_CACHE: 'replay',
      JUDGETREE_CACHE_DIR: cache,
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: server.baseURL,
      FIXTURE_REPORT_FILE: reportOf(name),
      GITHUB_STEP_SUMMARY: summaryOf(name),
    })
  }

  beforeAll(async () => {
    server = await startStableJudge()
    recorded = await runVitest('vitest-stable', ['run'], {
      JUDGETREE_CACHE: 'read-write',
      JUDGETREE_CACHE_DIR: cache,
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: server.baseURL,
      FIXTURE_REPORT_FILE: reportOf('recorded'),
    })
    await server.close()
    runs.workers = await replay('workers', ['--maxWorkers=4'])
    runs.shuffled = await replay('shuffled', ['--maxWorkers=1', '--sequence.shuffle'])
    const blobs = join(scratch, 'blobs')
    for (const index of [1, 2]) {
      const blob = `--outputFile.blob=${join(blobs, `blob-${index}-2.json`)}`
      runs[`shard${index}`] = await replay(`shard${index}`, [`--shard=${index}/2`, '--reporter=blob', blob])
    }
    runs.merged = await replay('merged', [`--merge-reports=${blobs}`])
  }, 480_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('the recording run judged every evaluation, and the replays asked no judge', () => {
    expect(recorded.code).toBe(1)
    expect(server.requests.length).toBeGreaterThan(0)
    for (const [name, run] of Object.entries(runs)) {
      // Two tests fail on purpose in each project; a cache miss would be a third kind of failure.
      expect({ name, output: run.output }).not.toMatchObject({ output: expect.stringContaining('CACHE_MISS') })
      expect({ name, code: run.code }).toEqual({ name, code: 1 })
    }
    const summary = readReport(reportOf('workers')).summary
    expect(summary.judgeCalls).toBeGreaterThan(0)
    expect(summary.cachedCalls).toBe(summary.judgeCalls)
  })

  test('tests are listed by project, then file, then place in the file; evaluations in the order called', () => {
    const report = readReport(reportOf('workers'))
    const expected = ['api', 'web'].flatMap((project) => FILE_ORDER.map(([file, name]) => [project, file, name]))
    expect(
      report.tests.map((test) => [test.project, test.file, test.name]),
      `the workers run's output:\n${runs.workers?.output}`,
    ).toEqual(expected)
    const together = report.tests.find((test) => test.name.startsWith('two evaluations at once'))
    expect(together?.evaluations.map((record) => [record.assertion, record.threshold, record.negated])).toEqual([
      [1, 0.2, false],
      [2, 0.7, false],
      [3, 0.7, true],
    ])
    // The recording run, on the live judge, lists the same tests in the same order.
    expect(readReport(reportOf('recorded')).tests.map((test) => [test.project, test.file, test.name])).toEqual(expected)
    // So does every replay. A run that lost some is shown whole: its output says why (an error, a timeout).
    for (const name of ['shuffled', 'merged']) {
      const listed = readReport(reportOf(name)).tests.map((test) => [test.project, test.file, test.name])
      expect(listed, `the ${name} run's output:\n${runs[name]?.output}`).toEqual(expected)
    }
  })

  test('the JSON reports are byte-identical once durations are masked', () => {
    const workers = maskedReport(reportOf('workers'))
    expect(maskedReport(reportOf('shuffled'))).toBe(workers)
    expect(maskedReport(reportOf('merged'))).toBe(workers)
  })

  test('the closing output and the GitHub step summary are identical too', () => {
    const closing = closingOutput(runs.workers?.stderr ?? '')
    // What a reader sees of the failures, pinned for one project; the other's reads the same but for its name.
    // (The closing line is compared between runs below.)
    const failures = closing.split('\n').slice(0, -1).join('\n').trimEnd().split('\n')
    const api = failures.filter((line) => line.includes(' |api| '))
    expect(failures.filter((line) => line.includes(' |web| '))).toEqual(
      api.map((line) => line.replace('|api| ', '|web| ')),
    )
    expect([failures[0], ...api].join('\n')).toMatchInlineSnapshot(`
      "judgetree: 4 failed evaluations
        ✗ |api| tests/chat.test.ts > fails on purpose: a flat conversation · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false
        ✗ |api| tests/mixed.test.ts > fails on purpose: a wrong capital · Answer Correctness: score 0.1 < threshold 0.5 · “Does the actual output answer the input correctly?” → false"
    `)
    expect(closingOutput(runs.shuffled?.stderr ?? '')).toBe(closing)
    expect(closingOutput(runs.merged?.stderr ?? '')).toBe(closing)
    const summary = readFileSync(summaryOf('workers'), 'utf8')
    expect(readFileSync(summaryOf('shuffled'), 'utf8')).toBe(summary)
    expect(readFileSync(summaryOf('merged'), 'utf8')).toBe(summary)
  })

  test('each shard reports its own part in the same order', () => {
    const shardTests = [1, 2].flatMap((index) =>
      readReport(join(scratch, `shard${index}.shard-${index}-of-2.json`)).tests.map(
        (test) => `${test.project}/${test.file} > ${test.name}`,
      ),
    )
    const whole = readReport(reportOf('workers')).tests.map((test) => `${test.project}/${test.file} > ${test.name}`)
    expect([...shardTests].sort()).toEqual([...whole].sort())
  })
})
