// Runs the real Jest CLI on the fixture project and checks what a user sees: the terminal, Jest's JSON results
// and the judgetree JSON report. scripts/compat.mjs runs this file again against Jest 29 (JUDGETREE_E2E_HOME).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { mermaidBlocks, readMermaid } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { environmentSuite } from './support/environment-suite.js'
import { type LatencyServer, startLatencyServer } from './support/limit-server.js'
import { evaluationsOf, readReport } from './support/reports.js'
import { fixture, type RunResult, runJest, runTsc, scratchDir } from './support/runner.js'
import { type SlowServer, startSlowServer } from './support/slow-server.js'
import { trialsSuite } from './support/trials-suite.js'

interface JestResults {
  testResults: { assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[]
}

/** The block Jest prints for one failed test: from its `● name` header to the next header. */
function failureBlock(output: string, fullName: string): string {
  const start = output.indexOf(`● ${fullName}\n`)
  if (start === -1) throw new Error(`No "● ${fullName}" in the output:\n${output}`)
  const next = output.indexOf('\n  ● ', start + 1)
  return output.slice(start, next === -1 ? undefined : next)
}

describe('a full run: jest --ci --json with withJudgetree(config)', () => {
  const scratch = scratchDir()
  const reportFile = join(fixture('jest-basic'), '.judgetree', 'report.json')
  const sidecars = join(fixture('jest-basic'), '.judgetree', 'jest')
  const stepSummary = join(scratch, 'step-summary.md')
  let run: RunResult
  let results: Map<string, { status: string; failureMessages: string[] }>

  beforeAll(async () => {
    rmSync(reportFile, { force: true })
    run = await runJest('jest-basic', ['--json', `--outputFile=${join(scratch, 'jest.json')}`], {
      GITHUB_STEP_SUMMARY: stepSummary,
    })
    const json = JSON.parse(readFileSync(join(scratch, 'jest.json'), 'utf8')) as JestResults
    results = new Map(
      json.testResults.flatMap((file) => file.assertionResults.map((result) => [result.fullName, result])),
    )
  }, 120_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  function status(fullName: string): string | undefined {
    return results.get(fullName)?.status
  }

  function message(fullName: string): string {
    return results.get(fullName)?.failureMessages.join('\n') ?? ''
  }

  test('fails the run without colour codes, and without a crash after the summary', () => {
    // Every test file must have run; a module Jest cannot load shows here, with its reason.
    expect(run.stderr.match(/Test suite failed to run[\s\S]{0,600}/)?.[0]).toBeUndefined()
    expect(run.code).toBe(1)
    expect(run.output).not.toContain('\u001b[')
    expect(run.output).not.toMatch(/Node\.js v\d+/)
    expect(results.size).toBe(19)
  })

  test('a failing metric: first line is the summary, then the reason, then the trace tree', () => {
    expect(status('playful chatbot passes a playful conversation')).toBe('passed')
    expect(status('playful chatbot fails a flat conversation')).toBe('failed')
    const block = failureBlock(run.stderr, 'playful chatbot › fails a flat conversation')
    const lines = block.split('\n').map((line) => line.trim())
    const summary = lines.indexOf('FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge')
    expect(summary).toBe(2)
    expect(lines[summary + 1]).toMatch(/^reason: The walk scored 0\.3\./)
    expect(lines[summary + 2]).toBe(
      '[1] Task "Describe tone": Describe the assistant\'s tone in one sentence. · 1 judge call',
    )
    expect(block).toContain('└─ ● false → 3  ◀ score 0.3')
    expect(block).toContain('> 12 |     await expect(flatConversation).toPassMetric(metric)')
  })

  test('.not passes when the metric fails, and fails with its own wording when the metric passes', () => {
    expect(status('playful chatbot not: passes a flat conversation')).toBe('passed')
    expect(message('playful chatbot not: fails a playful conversation')).toContain(
      'expected Playful Chatbot to fail, but it passed with score 0.9 (threshold 0.7) · judge scripted-judge\nreason:',
    )
  })

  test('{ threshold } overrides the metric threshold', () => {
    expect(message('playful chatbot threshold option fails a playful conversation')).toContain(
      "FAIL Playful Chatbot: score 0.9 (threshold 0.95) · judge scripted-judge\nthreshold 0.95 from toPassMetric(metric, { threshold }); the metric's own is 0.7",
    )
  })

  test('single-turn test cases, with the global expect of @types/jest users', () => {
    expect(status('single-turn: correct answer passes')).toBe('passed')
    expect(message('single-turn: wrong answer fails')).toContain(
      'FAIL Answer Correctness: score 0.1 (threshold 0.5) · judge scripted-judge',
    )
  })

  test('a judge failure fails the test under .not; a non-test case fails with what was expected', () => {
    expect(message('errors: a judge failure fails the test under not')).toContain(
      'ERROR Playful Chatbot: no score (threshold 0.7) · judge offline-judge\nerror: ConversationalTaskNode "Describe tone" failed: The judge model "offline-judge" could not be reached',
    )
    expect(message('errors: a string is not a test case')).toContain(
      "expect(testCase).toPassMetric(metric) expects a test case: a conversation { turns: [...] } or a single-turn test case { input, actualOutput }, but received 'Will it rain tomorrow?' (string).",
    )
    expect(message('errors: a mistyped option')).toContain(
      'Invalid options for toPassMetric(metric, options):\n  - unknown option `treshold`; did you mean `threshold`?',
    )
  })

  test('a forgotten await fails the test, pointing at the expect line', () => {
    expect(message('forgets to await a passing metric')).toContain(
      '1 toPassMetric() assertion was still running when the test ended, so its judge calls were cancelled. If the test timed out, raise its timeout; otherwise write: await expect(testCase).toPassMetric(metric)',
    )
    expect(failureBlock(run.stderr, 'forgets to await a passing metric')).toContain(
      '>  8 |   expect(playfulConversation).toPassMetric(slow)',
    )
  })

  test('test.concurrent: each record is filed under its own test, though the other finished first', () => {
    expect(status('concurrent A slow, failing')).toBe('failed')
    expect(status('concurrent B fast, passing')).toBe('passed')
    const report = readReport(reportFile)
    expect(evaluationsOf(report, 'concurrent A slow, failing').map((record) => record.score)).toEqual([0.3])
    expect(evaluationsOf(report, 'concurrent B fast, passing').map((record) => record.score)).toEqual([0.9])
  })

  test('withJudgetree raises the default 5 s timeout: a 5.4 s evaluation passes', () => {
    expect(status('a judge slower than 5 s passes')).toBe('passed')
    expect(evaluationsOf(readReport(reportFile), 'a judge slower than 5 s passes')[0]?.durationMs).toBeGreaterThan(
      5_000,
    )
  })

  test('passing tests’ records reach the reporter through the per-worker sidecar files', () => {
    const report = readReport(reportFile)
    expect(report.runner).toBe('jest')
    expect(evaluationsOf(report, 'playful chatbot passes a playful conversation')).toMatchObject([
      { name: 'Playful Chatbot', score: 0.9, success: true, assertionPassed: true, negated: false },
    ])
    expect(evaluationsOf(report, 'playful chatbot not: passes a flat conversation')).toMatchObject([
      { score: 0.3, success: false, assertionPassed: true, negated: true },
    ])
    expect(report.tests.find((test) => test.name === 'playful chatbot fails a flat conversation')).toMatchObject({
      file: 'tests/conversation.test.ts',
      state: 'failed',
    })
    expect(existsSync(sidecars) && readdirSync(sidecars).every((file) => /^worker-\d+-\d+\.jsonl$/.test(file))).toBe(
      true,
    )
  })

  test('a user metric on BaseMetric, public API only, passes and fails with its trace; its bug is METRIC_FAILED', () => {
    expect(status('user metric: a reply without a forbidden promise passes')).toBe('passed')
    expect(message('user metric: a promised refund fails')).toContain(
      [
        'FAIL No Forbidden Promises: score 0 (threshold 0.5) · judge promise-judge',
        'reason: Forbidden: I guarantee you a full refund.',
        '[1] Step "Promises": list what the reply promises · 1 judge call',
        '     answer: {"promises":["I guarantee you a full refund"],"reason":"1 promise(s) found."}',
        '[2] Step "Policy": no promise of: refund → false',
      ].join('\n'),
    )
    const report = readReport(reportFile)
    const [record] = evaluationsOf(report, 'user metric: a promised refund fails')
    expect(record).toMatchObject({ name: 'No Forbidden Promises', score: 0, usage: { judgeCalls: 1, cachedCalls: 0 } })
    const [buggy] = evaluationsOf(report, 'user metric: a bug in its own code fails the test as METRIC_FAILED')
    expect(buggy?.error).toMatchObject({
      code: 'METRIC_FAILED',
      message: `The metric "Buggy Promises" failed: Cannot read properties of undefined (reading 'length')`,
    })
  })

  test('the reporter prints failed evaluations after Jest’s summary and ends with the summary line', () => {
    const lines = run.stderr.split('\n')
    // 9 failed evaluations and 2 assertions rejected before measuring (a string, a mistyped option).
    const start = lines.indexOf('judgetree: 9 failed evaluations, 2 rejected assertions')
    expect(start).toBeGreaterThan(-1)
    // One line each: Jest printed each failure's tree in its error already.
    expect(lines.slice(start + 1, start + 12)).toContain(
      '  ✗ tests/conversation.test.ts > playful chatbot not: fails a playful conversation · Playful Chatbot (.not): score 0.9 ≥ threshold 0.7, expected to fail · “Playful?” → true',
    )
    expect(lines[start + 12]).toBe('')
    // 15 evaluations: 5 conversation, 2 single-turn, 1 judge error, 1 un-awaited, 2 concurrent, 1 slow, 3 of the
    // user metric; the offline judge makes no call, each single-turn one makes 1, each conversational one 2, except
    // the un-awaited one: cancelled when its test ended, it errors, and its cancelled calls are not counted; the
    // user metric's bug errors before its call. One of the failed evaluations was asserted with .not.
    expect(lines.findLast((line) => line.startsWith('judgetree: '))).toBe(
      'judgetree: 15 evaluations, 6 passed, 6 failed (1 expected by .not), 3 errored, 2 rejected · 20 judge calls (0 cached) · 0 tokens · $0.0000',
    )
    const markdown = readFileSync(stepSummary, 'utf8')
    expect(markdown).toContain(
      '| ❌ | Playful Chatbot | 0.3 | 0.7 | tests/conversation.test.ts &gt; playful chatbot fails a flat conversation |',
    )
    // The failed DAG evaluations' walks, drawn as under Vitest (the matcher draws them).
    const charts = mermaidBlocks(markdown).map(readMermaid)
    expect(charts.length).toBeGreaterThan(0)
    expect(charts.map((chart) => chart.problems)).toEqual(charts.map(() => []))
  })

  test('the JSON report lists the assertions rejected before measuring, and where each evaluation was asserted', () => {
    const report = readReport(reportFile)
    expect(report.summary).toMatchObject({ evaluations: 15, metrics: 15, rejected: 2, failedAssertions: 11 })
    const [rejected] = evaluationsOf(report, 'errors: a mistyped option')
    expect(rejected).toMatchObject({
      error: { code: 'ASSERTION_REJECTED', message: expect.stringContaining('did you mean `threshold`?') },
      assertionPassed: false,
      source: { file: 'tests/errors.test.ts', line: 14, column: expect.any(Number) },
    })
    const [flat] = evaluationsOf(report, 'playful chatbot fails a flat conversation')
    expect(flat?.testCase).toEqual({ name: null, digest: expect.stringMatching(/^[0-9a-f]{12}$/) })
    expect(flat?.source).toMatchObject({ file: 'tests/conversation.test.ts', line: 12 })
    expect(report.tests.find((test) => test.name === 'playful chatbot fails a flat conversation')?.location).toEqual({
      line: 11,
      column: expect.any(Number),
    })
  })

  test('the step summary’s table, pinned: every evaluation in file order, whatever finished first', () => {
    const markdown = readFileSync(stepSummary, 'utf8')
    const table = markdown.split('\n').filter((line) => line.startsWith('| '))
    expect(table.join('\n')).toMatchInlineSnapshot(`
      "| | metric | score | threshold | test |
      | --- | --- | --- | --- | --- |
      | ❌ | Playful Chatbot | 0.3 | 0.7 | tests/concurrent.test.ts &gt; concurrent A slow, failing |
      | ✅ | Playful Chatbot | 0.9 | 0.7 | tests/concurrent.test.ts &gt; concurrent B fast, passing |
      | ✅ | Playful Chatbot | 0.9 | 0.7 | tests/conversation.test.ts &gt; playful chatbot passes a playful conversation |
      | ❌ | Playful Chatbot | 0.3 | 0.7 | tests/conversation.test.ts &gt; playful chatbot fails a flat conversation |
      | ✅ | Playful Chatbot (.not) | 0.3 | 0.7 | tests/conversation.test.ts &gt; playful chatbot not: passes a flat conversation |
      | ❌ | Playful Chatbot (.not) | 0.9 | 0.7 | tests/conversation.test.ts &gt; playful chatbot not: fails a playful conversation |
      | ❌ | Playful Chatbot | 0.9 | 0.95 | tests/conversation.test.ts &gt; playful chatbot threshold option fails a playful conversation |
      | ❌ | Playful Chatbot (.not) | error | 0.7 | tests/errors.test.ts &gt; errors: a judge failure fails the test under not |
      | ❌ | Playful Chatbot | rejected | 0.7 | tests/errors.test.ts &gt; errors: a string is not a test case |
      | ❌ | Playful Chatbot | rejected | 0.7 | tests/errors.test.ts &gt; errors: a mistyped option |
      | ✅ | Answer Correctness | 1 | 0.5 | tests/single-turn.test.ts &gt; single-turn: correct answer passes |
      | ❌ | Answer Correctness | 0.1 | 0.5 | tests/single-turn.test.ts &gt; single-turn: wrong answer fails |
      | ✅ | Playful Chatbot | 0.9 | 0.7 | tests/timeout.test.ts &gt; a judge slower than 5 s passes |
      | ❌ | Playful Chatbot | error | 0.7 | tests/unawaited.test.ts &gt; forgets to await a passing metric |
      | ✅ | No Forbidden Promises | 1 | 0.5 | tests/user-metric.test.ts &gt; user metric: a reply without a forbidden promise passes |
      | ❌ | No Forbidden Promises | 0 | 0.5 | tests/user-metric.test.ts &gt; user metric: a promised refund fails |
      | ❌ | Buggy Promises | error | 0.5 | tests/user-metric.test.ts &gt; user metric: a bug in its own code fails the test as METRIC_FAILED |"
    `)
  })
})

describe("a user metric's judge calls go through the judge runtime: JUDGETREE_CACHE=read-write, run twice", () => {
  const scratch = scratchDir()
  const runs: RunResult[] = []

  beforeAll(async () => {
    for (const name of ['first', 'second']) {
      runs.push(
        // The second run also writes Jest's JSON to stdout: judgetree must leave stdout to it.
        await runJest('jest-basic', [...(name === 'second' ? ['--json'] : []), 'tests/user-metric.test.ts'], {
          JUDGETREE_CACHE: 'read-write',
          JUDGETREE_CACHE_DIR: join(scratch, 'cache'),
          FIXTURE_REPORT_FILE: join(scratch, `${name}.json`),
        }),
      )
    }
  }, 60_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('the first run asks the judge and records the answers; the second answers both calls from the cache', () => {
    const summaryOf = (run: RunResult) => run.stderr.split('\n').findLast((line) => line.includes(' evaluations, '))
    expect(summaryOf(runs[0] as RunResult)).toBe(
      'judgetree: 3 evaluations, 1 passed, 1 failed, 1 errored · 2 judge calls (0 cached) · 0 tokens · $0.0000',
    )
    expect(summaryOf(runs[1] as RunResult)).toBe(
      'judgetree: 3 evaluations, 1 passed, 1 failed, 1 errored · 2 judge calls (2 cached) · 0 tokens · $0.0000',
    )
    const [cached] = evaluationsOf(readReport(join(scratch, 'second.json')), 'user metric: a promised refund fails')
    expect(cached?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
    expect(cached?.trace.nodes[0]).toMatchObject({ label: 'Promises', cached: true })
  })

  test('stdout belongs to the runner: jest --json writes parseable JSON, judgetree writes to stderr', () => {
    const json = JSON.parse((runs[1] as RunResult).stdout) as { numTotalTests: number; numFailedTests: number }
    expect(json).toMatchObject({ numTotalTests: 3, numFailedTests: 2 })
  })
})

describe('cancellation: a 500 ms test timeout with an OpenAI judge that answers after 4 s; a user signal', () => {
  const REPLY_MS = 4_000
  const scratch = scratchDir()
  let slow: SlowServer
  let run: RunResult
  let endedAt: number
  let results: Map<string, { status: string; failureMessages: string[] }>

  beforeAll(async () => {
    slow = await startSlowServer(REPLY_MS)
    run = await runJest('jest-cancel', ['--json', `--outputFile=${join(scratch, 'jest.json')}`], {
      OPENAI_BASE_URL: slow.baseURL,
      OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
    })
    endedAt = Date.now()
    const json = JSON.parse(readFileSync(join(scratch, 'jest.json'), 'utf8')) as JestResults
    results = new Map(
      json.testResults.flatMap((file) => file.assertionResults.map((result) => [result.fullName, result])),
    )
  }, 60_000)

  afterAll(async () => {
    await slow?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  function message(fullName: string): string {
    return results.get(fullName)?.failureMessages.join('\n') ?? ''
  }

  test("the test fails with Jest's timeout, and judgetree's afterEach cancels the judge call", () => {
    expect(run.code).toBe(1)
    const failure = message('cancel: the test timeout cancels the OpenAI judge call')
    expect(failure).toContain('Exceeded timeout of 500 ms for a test')
    expect(failure).toContain(
      '1 toPassMetric() assertion was still running when the test ended, so its judge calls were cancelled. If the test timed out, raise its timeout',
    )
  })

  test('the server saw the client disconnect within 1.5 s of the request, before it replied', () => {
    expect(slow.requests).toHaveLength(1)
    const [request] = slow.requests
    expect(request?.replied).toBe(false)
    expect(request?.disconnectedAt).toBeDefined()
    expect((request?.disconnectedAt ?? Number.POSITIVE_INFINITY) - (request?.receivedAt ?? 0)).toBeLessThan(1_500)
  })

  test('Jest exits without waiting for the reply', () => {
    expect(endedAt).toBeLessThan((slow.requests[0]?.receivedAt ?? 0) + REPLY_MS)
    expect(run.stderr).not.toContain('Jest did not exit')
  })

  test("a user's signal cancels the evaluation, which fails with the metric's MEASUREMENT_ABORTED error", () => {
    expect(message('cancel: a signal of the user cancels the evaluation')).toContain(
      'ERROR Playful Chatbot: no score (threshold 0.7) · judge scripted-judge\nerror: The measurement was aborted',
    )
  })
})

describe('one judge-call limit for the whole run: withJudgetree(config, { concurrency: 2 }), 2 workers', () => {
  const scratch = scratchDir()
  const pidsFile = join(scratch, 'pids.txt')
  const hooksFile = join(scratch, 'hooks.txt')
  let latency: LatencyServer
  let run: RunResult

  beforeAll(async () => {
    latency = await startLatencyServer(150)
    // A fresh cache directory: with timings of earlier runs, Jest would run two fast files in band.
    run = await runJest('jest-limit', ['--maxWorkers=2', `--cacheDirectory=${join(scratch, 'cache')}`], {
      OPENAI_BASE_URL: latency.server.baseURL,
      OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
      FIXTURE_PIDS_FILE: pidsFile,
      FIXTURE_HOOKS_FILE: hooksFile,
    })
  }, 60_000)

  afterAll(async () => {
    await latency?.server.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('every evaluation passes, and the two files ran in two worker processes', () => {
    expect(run.code, run.output).toBe(0)
    expect(run.stderr).toMatch(/Tests: +6 passed, 6 total/)
    expect(new Set(readFileSync(pidsFile, 'utf8').trim().split('\n')).size).toBe(2)
  })

  test('the workers shared the limit: 2 judge calls in flight at most, and at times 2', () => {
    expect(latency.server.requests).toHaveLength(12)
    expect(latency.maxInFlight()).toBe(2)
  })

  test("the config's own globalSetup and globalTeardown (TypeScript) ran, before the coordinator and after it", () => {
    expect(readFileSync(hooksFile, 'utf8').trim().split('\n')).toEqual([
      'globalSetup configs=true coordinator=none',
      'globalTeardown configs=true coordinator=none',
    ])
  })
})

test('types: the fixture type-checks with @jest/globals and with the global expect of @types/jest', async () => {
  const result = await runTsc('tsconfig.jest.json')
  expect(result.output.trim()).toBe('')
  expect(result.code).toBe(0)
}, 60_000)

trialsSuite((env) => runJest('jest-trials', [], env))

environmentSuite((env) => runJest('jest-environment', [], env))
