// The same suite, recorded once and replayed from the judge cache in several ways (three workers; in band with
// Jest's --randomize; as two shards, each way), must give the same judgetree report on every surface: the JSON
// report byte for byte once durations are masked, the closing output and the GitHub step summary. Its
// measurements wait a random while, so evaluations finish in another order on every run. scripts/compat.mjs runs
// this file on Jest 29 too.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { type RunResult, runJest, scratchDir } from './support/runner.js'
import { closingOutput, maskedReport, startStableJudge } from './support/stable-suite.js'

const API_KEY = 'sk-test-stable-0123456789abcdef'

const FILE_ORDER = [
  ['tests/answers.test.ts', 'the right capital passes'],
  ['tests/answers.test.ts', 'a wrong capital fails, as expected'],
  ['tests/chat.test.ts', 'a playful conversation passes'],
  ['tests/chat.test.ts', 'two evaluations at once, listed in the order they were called'],
  ['tests/chat.test.ts', 'fails on purpose: a flat conversation'],
  ['tests/chat.test.ts', 'concurrent first'],
  ['tests/chat.test.ts', 'concurrent second'],
  ['tests/mixed.test.ts', 'fails on purpose: a wrong capital'],
  ['tests/mixed.test.ts', 'one after the other'],
]

describe('one replayed suite, run on 3 workers, in band with --randomize, and as 2 shards each way', () => {
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
    return runJest('jest-stable', [`--cacheDirectory=${join(scratch, 'jest-cache')}`, ...args], {
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
    recorded = await runJest('jest-stable', [`--cacheDirectory=${join(scratch, 'jest-cache')}`], {
      JUDGETREE_CACHE: 'read-write',
      JUDGETREE_CACHE_DIR: cache,
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: server.baseURL,
      FIXTURE_REPORT_FILE: reportOf('recorded'),
    })
    await server.close()
    runs.workers = await replay('workers', ['--maxWorkers=3'])
    runs.randomized = await replay('randomized', ['--runInBand', '--randomize'])
    for (const index of [1, 2]) {
      runs[`workers-shard${index}`] = await replay('workers-shard', ['--maxWorkers=3', `--shard=${index}/2`])
      runs[`randomized-shard${index}`] = await replay('randomized-shard', [
        '--runInBand',
        '--randomize',
        `--shard=${index}/2`,
      ])
    }
  }, 240_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('the recording run judged every evaluation, and the replays asked no judge', () => {
    expect(recorded.stderr.match(/Test suite failed to run[\s\S]{0,600}/)?.[0]).toBeUndefined()
    expect(recorded.code).toBe(1)
    expect(server.requests.length).toBeGreaterThan(0)
    for (const [name, run] of Object.entries(runs)) {
      expect({ name, output: run.output }).not.toMatchObject({ output: expect.stringContaining('CACHE_MISS') })
      expect({ name, code: run.code }).toEqual({ name, code: 1 })
    }
    const summary = readReport(reportOf('workers')).summary
    expect(summary.judgeCalls).toBeGreaterThan(0)
    expect(summary.cachedCalls).toBe(summary.judgeCalls)
  })

  test('tests are listed by project, then file, then place in the file; evaluations in the order called', () => {
    const expected = ['api', 'web'].flatMap((project) => FILE_ORDER.map(([file, name]) => [project, file, name]))
    for (const name of ['recorded', 'workers', 'randomized']) {
      const tests = readReport(reportOf(name)).tests
      expect({ name, tests: tests.map((test) => [test.project, test.file, test.name]) }).toEqual({
        name,
        tests: expected,
      })
    }
    const together = readReport(reportOf('workers')).tests.find((test) => test.name.startsWith('two evaluations'))
    expect(together?.evaluations.map((record) => [record.assertion, record.threshold, record.negated])).toEqual([
      [1, 0.2, false],
      [2, 0.7, false],
      [3, 0.7, true],
    ])
  })

  test('the JSON reports are byte-identical once durations are masked, whole and shard by shard', () => {
    expect(maskedReport(reportOf('randomized'))).toBe(maskedReport(reportOf('workers')))
    for (const index of [1, 2]) {
      const shard = `.shard-${index}-of-2.json`
      const workers = maskedReport(join(scratch, `workers-shard${shard}`))
      expect(readReport(join(scratch, `workers-shard${shard}`)).shard).toEqual({ index, count: 2 })
      expect(maskedReport(join(scratch, `randomized-shard${shard}`))).toBe(workers)
    }
    const sharded = [1, 2].flatMap((index) =>
      readReport(join(scratch, `workers-shard.shard-${index}-of-2.json`)).tests.map((test) => test.name),
    )
    expect(sharded.sort()).toEqual(
      readReport(reportOf('workers'))
        .tests.map((test) => test.name)
        .sort(),
    )
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
    expect(closingOutput(runs.randomized?.stderr ?? '')).toBe(closing)
    expect(readFileSync(summaryOf('randomized'), 'utf8')).toBe(readFileSync(summaryOf('workers'), 'utf8'))
  })
})
