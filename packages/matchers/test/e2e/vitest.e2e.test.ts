// Runs the real Vitest CLI on fixture projects and checks what a user sees: the terminal, JUnit XML, Vitest's
// JSON report (test meta), the judgetree JSON report and GitHub step summary. scripts/compat.mjs runs this
// file again against Vitest 3.2 and 5 (JUDGETREE_E2E_HOME).
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { costOf } from '@judgetree/core'
import {
  bearerKey,
  jsonReply,
  lastUserMessage,
  mermaidBlocks,
  type OpenAIServer,
  readMermaid,
  startOpenAIServer,
  unicodeEscaped,
} from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { environmentSuite } from './support/environment-suite.js'
import { type LatencyServer, startLatencyServer } from './support/limit-server.js'
import { evaluationsOf, type JUnitCase, junitCase, readJUnit, readReport } from './support/reports.js'
import { fixture, majorVersion, type RunResult, runTsc, runVitest, scratchDir } from './support/runner.js'
import { type SlowServer, startSlowServer } from './support/slow-server.js'
import { trialsSuite } from './support/trials-suite.js'

const VERSION = majorVersion('vitest')
/** `this.task` (4.1+) is what keeps concurrent tests' records; Vitest 3.2 only has the global current test. */
const BINDS_CONCURRENT_TESTS = VERSION >= 4
// Not `sk-`-shaped: only the scrubber's knowledge of the judge's own key can catch it, not the key pattern.
const API_KEY = 'test-e2e-canary-0123456789abcdef'
const PROMPT_TOKENS = 600
const COMPLETION_TOKENS = 100

/** The part of the terminal output about one failed test, from its FAIL header to the next separator. */
function failureSection(output: string, title: string): string {
  const start = output.indexOf(` FAIL  ${title}`)
  if (start === -1) throw new Error(`No " FAIL  ${title}" in the output:\n${output}`)
  const end = output.indexOf('⎯⎯⎯', start)
  return output.slice(start, end === -1 ? undefined : end)
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0] ?? ''
}

describe('a full run: vitest run --reporter=default --reporter=junit --reporter=json --reporter=github-actions', () => {
  const scratch = scratchDir()
  const reportFile = join(fixture('vitest-basic'), '.judgetree', 'report.json')
  const stepSummary = join(scratch, 'step-summary.md')
  let server: OpenAIServer
  let run: RunResult
  let junit: JUnitCase[]
  let vitestJson: { testResults: { assertionResults: { fullName: string; meta: Record<string, unknown> }[] }[] }

  beforeAll(async () => {
    server = await startOpenAIServer((request) =>
      lastUserMessage(request).includes("Describe the assistant's tone")
        ? jsonReply(
            { output: 'The assistant answers flatly.' },
            { usage: { promptTokens: PROMPT_TOKENS, completionTokens: COMPLETION_TOKENS } },
          )
        : {
            // A careless server: it writes the key it was sent into its answer, \u-escaped, so that it decodes into
            // the key only when the answer's JSON is parsed.
            content: `{"reason": "A bare number is not playful (${unicodeEscaped(bearerKey(request))}).", "verdict": false}`,
            usage: { promptTokens: PROMPT_TOKENS, completionTokens: COMPLETION_TOKENS },
          },
    )
    rmSync(reportFile, { force: true })
    run = await runVitest(
      'vitest-basic',
      [
        'run',
        '--reporter=default',
        '--reporter=junit',
        '--reporter=json',
        '--reporter=github-actions',
        `--outputFile.junit=${join(scratch, 'junit.xml')}`,
        `--outputFile.json=${join(scratch, 'vitest.json')}`,
      ],
      { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: API_KEY, GITHUB_STEP_SUMMARY: stepSummary },
    )
    junit = readJUnit(join(scratch, 'junit.xml'))
    vitestJson = JSON.parse(readFileSync(join(scratch, 'vitest.json'), 'utf8'))
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('fails the run, and prints no colour codes under NO_COLOR', () => {
    expect(run.code).toBe(1)
    expect(run.output).not.toContain('\u001b[')
  })

  test('a failing metric: first line is the summary, then the reason, then the trace tree', () => {
    const section = failureSection(
      run.output,
      'tests/conversation.test.ts > playful chatbot > fails a flat conversation',
    )
    const summary = section.indexOf('FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge')
    const reason = section.indexOf('reason: The walk scored 0.3. “Playful?” → false')
    const tree = section.indexOf('└─ ● false → 3  ◀ score 0.3')
    expect(summary).toBeGreaterThan(-1)
    expect(reason).toBeGreaterThan(summary)
    expect(tree).toBeGreaterThan(reason)
    expect(section).toContain('tests/conversation.test.ts:12:')

    const failed = junitCase(junit, 'playful chatbot > fails a flat conversation')
    expect(firstLine(failed.failureMessage)).toBe(
      'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge',
    )
    expect(failed.failure).toContain('[1] Task "Describe tone": Describe the assistant\'s tone in one sentence.')
    expect(failed.failure).toContain('└─ ● false → 3  ◀ score 0.3')
  })

  test('a failing metric is annotated on its test with its one-line summary, which JUnit keeps as a property', () => {
    const failed = junitCase(junit, 'playful chatbot > fails a flat conversation')
    // Named for judgetree, not `error`: a metric below its threshold is a failure, not an error.
    expect(failed.properties.map((property) => property.name)).toEqual(['judgetree'])
    const annotation = failed.properties.find((property) => property.name === 'judgetree')
    expect(annotation?.value).toContain('FAIL Playful Chatbot: score 0.3 (threshold 0.7)')
    expect(annotation?.value).toMatch(/\nreason: The walk scored 0\.3\./)
    // The tree is in the failure body once, not in the annotation again.
    expect(annotation?.value).not.toContain('◀ score')
    expect(failed.failure?.split('└─ ● false → 3  ◀ score 0.3').length).toBe(2)
    const passed = junitCase(junit, 'playful chatbot > passes a playful conversation')
    expect(passed.failure).toBeUndefined()
    expect(passed.properties).toEqual([])
  })

  test('GitHub Actions gets a notice titled judgetree at the expect line (the matcher file on Vitest 3.2)', () => {
    // The failed test has its own ::error; the evaluation's summary is a notice beside it, not a second error.
    const annotations = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('::notice ') && line.includes('title=judgetree'))
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::error ') && !line.includes('title='))).toEqual([])
    const annotation =
      VERSION >= 4
        ? annotations.find((line) => /file=[^,]*tests\/conversation\.test\.ts,line=12,/.test(line))
        : annotations.find((line) => line.includes('::FAIL Playful Chatbot: score 0.3 (threshold 0.7)'))
    expect(annotation).toContain('::FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge%0Areason:')
    expect(annotation).not.toContain('◀ score')
  })

  test('every evaluation, passing ones too, is in the test meta: records for reporters, text for the HTML report', () => {
    const results = vitestJson.testResults.flatMap((file) => file.assertionResults)
    const passing = results.find((result) => result.fullName.endsWith('passes a playful conversation'))
    const records = passing?.meta.judgetree as { name: string; score: number; success: boolean }[] | undefined
    expect(records?.map(({ name, score, success }) => ({ name, score, success }))).toEqual([
      { name: 'Playful Chatbot', score: 0.9, success: true },
    ])
    const text = passing?.meta['judgetree: Playful Chatbot']
    expect(typeof text).toBe('string')
    expect((text as string).split('\n')[0]).toBe(
      'PASS Playful Chatbot: score 0.9 (threshold 0.7) · judge scripted-judge',
    )
    expect(text).toContain('├─ ● true → 9  ◀ score 0.9')
  })

  test('.not passes when the metric fails, and fails with its own wording when the metric passes', () => {
    expect(junitCase(junit, 'playful chatbot > not: passes a flat conversation').failure).toBeUndefined()
    const failed = junitCase(junit, 'playful chatbot > not: fails a playful conversation')
    expect(firstLine(failed.failureMessage)).toBe(
      'expected Playful Chatbot to fail, but it passed with score 0.9 (threshold 0.7) · judge scripted-judge',
    )
    expect(failed.failure).toContain('├─ ● true → 9  ◀ score 0.9')
  })

  test('{ threshold } overrides the metric threshold and says so', () => {
    const failed = junitCase(junit, 'playful chatbot > threshold option fails a playful conversation')
    expect(firstLine(failed.failureMessage)).toBe(
      'FAIL Playful Chatbot: score 0.9 (threshold 0.95) · judge scripted-judge',
    )
    expect(failed.failure).toContain("threshold 0.95 from toPassMetric(metric, { threshold }); the metric's own is 0.7")
  })

  test('single-turn test cases pass and fail like conversations', () => {
    expect(junitCase(junit, 'single-turn: correct answer passes').failure).toBeUndefined()
    const failed = junitCase(junit, 'single-turn: wrong answer fails')
    expect(firstLine(failed.failureMessage)).toBe(
      'FAIL Answer Correctness: score 0.1 (threshold 0.5) · judge scripted-judge',
    )
    expect(failed.failure).toContain('reason: The walk scored 0.1.')
  })

  test('a judge failure fails the test with the error, also under .not', () => {
    for (const name of ['errors: a judge failure fails the test', 'errors: a judge failure fails the test under not']) {
      const failed = junitCase(junit, name)
      expect(firstLine(failed.failureMessage)).toBe(
        'ERROR Playful Chatbot: no score (threshold 0.7) · judge offline-judge',
      )
      expect(failed.failure).toContain(
        'error: ConversationalTaskNode "Describe tone" failed: The judge model "offline-judge" could not be reached',
      )
    }
    expect(junitCase(junit, 'errors: a judge failure fails the test under not').failure).toContain(
      'A metric that could not be computed fails the test, with or without .not.',
    )
  })

  test('misuse fails with what was expected', () => {
    expect(junitCase(junit, 'errors: a string is not a test case').failureMessage).toBe(
      "expect(testCase).toPassMetric(metric) expects a test case: a conversation { turns: [...] } or a single-turn test case { input, actualOutput }, but received 'Will it rain tomorrow?' (string).",
    )
    expect(junitCase(junit, 'errors: a threshold above 1').failureMessage).toBe(
      'Invalid options for toPassMetric(metric, options):\n' +
        '  - Expected `threshold` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got `70` (number).',
    )
    expect(junitCase(junit, 'errors: a mistyped option').failureMessage).toBe(
      'Invalid options for toPassMetric(metric, options):\n  - unknown option `treshold`; did you mean `threshold`?',
    )
    expect(junitCase(junit, 'errors: not a metric').failureMessage).toContain(
      'toPassMetric(metric) expects a judgetree metric (an object with `name` and `measure(testCase)`',
    )
  })

  test('a forgotten await fails the test, pointing at the expect line', () => {
    const failed = junitCase(junit, 'forgets to await a passing metric')
    expect(failed.failureMessage).toBe(
      '1 toPassMetric() assertion was still running when the test ended, so its judge calls were cancelled. If the test timed out, raise its timeout; otherwise write: await expect(testCase).toPassMetric(metric)',
    )
    expect(failureSection(run.output, 'tests/unawaited.test.ts > forgets to await a passing metric')).toContain(
      'tests/unawaited.test.ts:8:',
    )
  })

  test('concurrent tests: each failure, annotation and record lands on its own test', () => {
    const slow = junitCase(junit, 'concurrent > A slow, failing')
    const fast = junitCase(junit, 'concurrent > B fast, passing')
    expect(firstLine(slow.failureMessage)).toBe(
      'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge',
    )
    expect(fast.failure).toBeUndefined()
    expect(fast.properties).toEqual([])
    expect(run.output).not.toContain('Cannot annotate')
    const report = readReport(reportFile)
    if (BINDS_CONCURRENT_TESTS) {
      expect(slow.properties.map((property) => property.name)).toEqual(['judgetree'])
      expect(evaluationsOf(report, 'A slow, failing').map((record) => record.score)).toEqual([0.3])
      expect(evaluationsOf(report, 'B fast, passing').map((record) => record.score)).toEqual([0.9])
    } else {
      // Vitest 3.2 cannot tell which concurrent test is running, so nothing is attached to a wrong one.
      expect(evaluationsOf(report, 'A slow, failing')).toEqual([])
      expect(evaluationsOf(report, 'B fast, passing')).toEqual([])
    }
  })

  test('the plugin raises the default 5 s timeout: a 5.4 s evaluation passes', () => {
    expect(junitCase(junit, 'a judge slower than 5 s passes').failure).toBeUndefined()
    expect(evaluationsOf(readReport(reportFile), 'a judge slower than 5 s passes')[0]?.durationMs).toBeGreaterThan(
      5_000,
    )
  })

  test('the OpenAI judge over HTTP: tokens and cost reach the record, the API key reaches nothing', () => {
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    const [record] = evaluationsOf(readReport(reportFile), 'http: the OpenAI judge fails a flat conversation')
    expect(record).toMatchObject({
      judgeModel: 'gpt-4.1',
      score: 0.3,
      usage: {
        judgeCalls: 2,
        promptTokens: 2 * PROMPT_TOKENS,
        completionTokens: 2 * COMPLETION_TOKENS,
        costUsd: costOf('gpt-4.1', 2 * PROMPT_TOKENS, 2 * COMPLETION_TOKENS),
      },
    })
    // The server hid the key in its answer: no file the run wrote, and no output, shows it in any form.
    const surfaces = {
      report: readFileSync(reportFile, 'utf8'),
      junit: readFileSync(join(scratch, 'junit.xml'), 'utf8'),
      vitestJson: readFileSync(join(scratch, 'vitest.json'), 'utf8'),
      stepSummary: readFileSync(stepSummary, 'utf8'),
      output: run.output,
    }
    for (const [surface, text] of Object.entries(surfaces)) {
      for (const form of [API_KEY, unicodeEscaped(API_KEY), 'e2e-0123456789abcdef']) {
        expect(text.includes(form), `${surface} shows ${form}`).toBe(false)
      }
    }
    expect(surfaces.report).toContain('A bare number is not playful (sk-***).')
  })

  test('the reporter prints failed evaluations after the run and ends with the summary line', () => {
    // Counted from the fixture: concurrent.test.ts adds 2 evaluations (1 passed, 1 failed, 4 judge calls) when
    // the runner binds concurrent tests; the offline judge's errors make no judge call.
    // The un-awaited evaluation is cancelled when its test ends: it errors, and its cancelled calls are not counted.
    // user-metric.test.ts adds 3 evaluations: 1 passed, 1 failed, 1 errored (its bug), 2 judge calls.
    const concurrent = BINDS_CONCURRENT_TESTS ? 1 : 0
    const [evaluations, passed, failed] = [15 + 2 * concurrent, 5 + concurrent, 6 + concurrent]
    const calls = 18 + 4 * concurrent
    // …and 4 assertions rejected before measuring: a string, a threshold of 70, a mistyped option, not a metric.
    const failures = 14 + concurrent
    const tokens = 2 * (PROMPT_TOKENS + COMPLETION_TOKENS)
    const cost = costOf('gpt-4.1', 2 * PROMPT_TOKENS, 2 * COMPLETION_TOKENS)?.toFixed(4)
    // stdout belongs to Vitest (and machine-readable reporters): judgetree prints to stderr, after Vitest's summary.
    expect(run.stdout.split('\n').filter((line) => line.startsWith('judgetree'))).toEqual([])
    const lines = run.output.trimEnd().split('\n')
    const start = lines.indexOf(`judgetree: ${failures - 4} failed evaluations, 4 rejected assertions`)
    expect(start).toBeGreaterThan(lines.findIndex((line) => line.includes('Test Files')))
    // One line each: Vitest printed each failure's tree in its error already.
    expect(lines.slice(start + 1, start + 1 + failures)).toContain(
      '  ✗ tests/conversation.test.ts > playful chatbot > fails a flat conversation · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false',
    )
    expect(lines[start + 1 + failures]).toBe('')
    expect(lines).toContain('judgetree: JSON report in .judgetree/report.json')
    expect(lines.filter((line) => line.startsWith('judgetree: ') && line.includes(' evaluations, ')).at(-1)).toBe(
      `judgetree: ${evaluations} evaluations, ${passed} passed, ${failed} failed (1 expected by .not), 4 errored, 4 rejected · ${calls} judge calls (0 cached) · ${tokens} tokens · $${cost}`,
    )
  })

  test('the JSON report lists the assertions rejected before measuring, and where each evaluation was asserted', () => {
    const report = readReport(reportFile)
    expect(report.summary).toMatchObject({ rejected: 4 })
    const [rejected] = evaluationsOf(report, 'errors: a mistyped option')
    expect(rejected).toMatchObject({
      error: { code: 'ASSERTION_REJECTED', message: expect.stringContaining('did you mean `threshold`?') },
      assertionPassed: false,
      source: { file: 'tests/errors.test.ts', line: 24, column: expect.any(Number) },
    })
    const [flat] = evaluationsOf(report, 'playful chatbot > fails a flat conversation')
    expect(flat?.testCase).toEqual({ name: null, digest: expect.stringMatching(/^[0-9a-f]{12}$/) })
    expect(flat?.source).toMatchObject({ file: 'tests/conversation.test.ts', line: 12 })
    expect(readFileSync(stepSummary, 'utf8')).toContain(
      '| ❌ | Playful Chatbot | rejected | 0.7 | tests/errors.test.ts &gt; errors: a mistyped option |',
    )
  })

  test('the JSON report lists every evaluation by file and test, with the run totals', () => {
    const report = readReport(reportFile)
    expect(report).toMatchObject({ version: 1, runner: 'vitest', shard: null })
    expect(report.summary).toMatchObject({
      errored: 4,
      expectedFailures: 1,
      promptTokens: 2 * PROMPT_TOKENS,
      cachedCalls: 0,
    })
    // The totals count evaluations (a metric measuring a test case), not metrics: the suite has fewer metrics.
    const measured = report.tests
      .flatMap((test) => test.evaluations)
      .filter((r) => r.error?.code !== 'ASSERTION_REJECTED')
    expect(report.summary.evaluations).toBe(measured.length)
    expect(new Set(measured.map((r) => r.name)).size).toBeLessThan(report.summary.evaluations)
    // The deprecated names keep the same numbers for readers of older report.json files.
    expect(report.summary.metrics).toBe(report.summary.evaluations)
    expect(report.summary.unpricedMetrics).toBe(report.summary.unpricedEvaluations)
    const test = report.tests.find((entry) => entry.name === 'playful chatbot > fails a flat conversation')
    expect(test).toMatchObject({ file: 'tests/conversation.test.ts', state: 'failed' })
    expect(test?.evaluations[0]).toMatchObject({
      name: 'Playful Chatbot',
      score: 0.3,
      threshold: 0.7,
      success: false,
      negated: false,
      assertionPassed: false,
      error: null,
      summary: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge',
    })
    expect(test?.evaluations[0]?.trace.nodes.map((node) => node.status)).toEqual(['ran', 'ran', 'skipped', 'ran'])
    const errored = evaluationsOf(report, 'errors: a judge failure fails the test')[0]
    expect(errored?.error).toMatchObject({ code: 'JUDGE_CALL_FAILED', name: 'JudgeCallError' })
  })

  test('a user metric on BaseMetric, public API only, passes and fails with its trace; its bug is METRIC_FAILED', () => {
    expect(junitCase(junit, 'user metric: a reply without a forbidden promise passes').failure).toBeUndefined()
    const failed = junitCase(junit, 'user metric: a promised refund fails')
    expect(firstLine(failed.failureMessage)).toBe(
      'FAIL No Forbidden Promises: score 0 (threshold 0.5) · judge promise-judge',
    )
    expect(failed.failure).toContain(
      [
        'reason: Forbidden: I guarantee you a full refund.',
        '[1] Step "Promises": list what the reply promises · 1 judge call',
        '     answer: {"promises":["I guarantee you a full refund"],"reason":"1 promise(s) found."}',
        '[2] Step "Policy": no promise of: refund → false',
      ].join('\n'),
    )
    const report = readReport(reportFile)
    const [record] = evaluationsOf(report, 'user metric: a promised refund fails')
    expect(record).toMatchObject({ name: 'No Forbidden Promises', score: 0, usage: { judgeCalls: 1, cachedCalls: 0 } })
    expect(record?.trace.nodes.map((node) => [node.kind, node.status])).toEqual([
      ['JudgeCall', 'ran'],
      ['Step', 'ran'],
    ])
    const [buggy] = evaluationsOf(report, 'user metric: a bug in its own code fails the test as METRIC_FAILED')
    expect(buggy?.error).toMatchObject({
      code: 'METRIC_FAILED',
      message: `The metric "Buggy Promises" failed: Cannot read properties of undefined (reading 'length')`,
    })
  })

  test('$GITHUB_STEP_SUMMARY gets the totals, a table of evaluations and the failed ones’ traces', () => {
    const markdown = readFileSync(stepSummary, 'utf8')
    expect(markdown).toMatch(/(^|\n)## judgetree\n/)
    expect(markdown).toContain(
      '| ❌ | Playful Chatbot | 0.3 | 0.7 | tests/conversation.test.ts &gt; playful chatbot &gt; fails a flat conversation |',
    )
    expect(markdown).toContain(
      '| ✅ | Answer Correctness | 1 | 0.5 | tests/single-turn.test.ts &gt; single-turn: correct answer passes |',
    )
    expect(markdown).toContain('<details><summary>❌ FAIL Playful Chatbot: score 0.3 (threshold 0.7)')
    expect(markdown).toContain('└─ ● false → 3  ◀ score 0.3')
  })

  test('$GITHUB_STEP_SUMMARY draws the failed DAG’s walk in Mermaid, its decisive verdict red; passes get none', () => {
    const markdown = readFileSync(stepSummary, 'utf8')
    const failure = markdown.slice(markdown.indexOf('<details><summary>❌ FAIL Playful Chatbot: score 0.3'))
    const [block] = mermaidBlocks(failure.slice(0, failure.indexOf('</details>')))
    const chart = readMermaid(block as string)
    expect(chart.problems).toEqual([])
    const verdict = [...chart.nodes].find(([, label]) => label === 'false → 3')?.[0]
    expect(chart.classes.get('walked')).toContain(verdict)
    expect(chart.classDefs.get('walked')).toMatch(/^fill:#fee2e2,stroke:#b91c1c/)
    // One picture per failed DAG evaluation, and no more: the passing DAG tests have none.
    const records = readReport(reportFile).tests.flatMap((test) => test.evaluations)
    const failedDags = records.filter((record) => !record.assertionPassed && record.mermaid !== undefined)
    expect(failedDags.length).toBeGreaterThan(0)
    expect(mermaidBlocks(markdown)).toHaveLength(Math.min(failedDags.length, 5))
    expect(records.filter((record) => record.assertionPassed && record.mermaid !== undefined)).toEqual([])
  })
})

describe("a user metric's judge calls go through the judge runtime: JUDGETREE_CACHE=read-write, run twice", () => {
  const scratch = scratchDir()
  const runs: RunResult[] = []

  beforeAll(async () => {
    for (const name of ['first', 'second']) {
      runs.push(
        await runVitest('vitest-basic', ['run', 'tests/user-metric.test.ts'], {
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
    expect(readdirSync(join(scratch, 'cache')).length).toBeGreaterThan(0)
  })
})

describe('stdout belongs to the runner: vitest run --reporter=json with the plugin', () => {
  const scratch = scratchDir()
  let run: RunResult

  beforeAll(async () => {
    run = await runVitest('vitest-basic', ['run', '--reporter=json', 'tests/user-metric.test.ts'], {
      JUDGETREE_CACHE: 'off',
      FIXTURE_REPORT_FILE: join(scratch, 'report.json'),
    })
  }, 60_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('stdout is the JSON report alone; the judgetree summary is on stderr', () => {
    expect(run.stdout.split('\n').filter((line) => line.startsWith('judgetree'))).toEqual([])
    // Vitest 5 writes the JSON to .vitest/json/output.json by default and says so on stdout; earlier ones print it.
    const written = /^JSON report written to (.+)$/m.exec(run.stdout)?.[1]
    const json = JSON.parse(written === undefined ? run.stdout : readFileSync(written, 'utf8')) as {
      numTotalTests: number
      numFailedTests: number
    }
    expect(json).toMatchObject({ numTotalTests: 3, numFailedTests: 2 })
    expect(run.stderr.split('\n').findLast((line) => line.startsWith('judgetree: '))).toMatch(
      /^judgetree: 3 evaluations, 1 passed, 1 failed, 1 errored · /,
    )
  })
})

describe('inline test.projects with the plugin at the root, run with --reporter=dot --reporter=junit', () => {
  const scratch = scratchDir()
  const reportFile = join(scratch, 'report.json')
  let run: RunResult

  beforeAll(async () => {
    run = await runVitest(
      'vitest-projects',
      ['run', '--reporter=dot', '--reporter=junit', `--outputFile.junit=${join(scratch, 'junit.xml')}`],
      { FIXTURE_REPORT_FILE: reportFile },
    )
  }, 60_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('registers the matcher in every project and keeps a timeout the project set', () => {
    expect(run.output).toContain('Test timed out in 1000ms')
    expect(run.output).not.toContain('toPassMetric is not a function')
    expect(run.output).not.toContain('Invalid Chai property')
    const report = readReport(reportFile)
    // Which project finished first is not the subject here (the stable-report tests pin the order).
    expect(Object.fromEntries(report.tests.map((test) => [test.name, [test.project, test.state]]))).toEqual({
      'the plugin raised the timeout to 5 minutes, past a hung judge call': ['default-timeout', 'passed'],
      'a user-set timeout is kept': ['own-timeout', 'failed'],
    })
  })

  test('annotatePassing: true annotates passing evaluations too', () => {
    const passed = junitCase(
      readJUnit(join(scratch, 'junit.xml')),
      'the plugin raised the timeout to 5 minutes, past a hung judge call',
    )
    expect(passed.failure).toBeUndefined()
    expect(passed.properties.map((property) => property.name)).toEqual(['judgetree'])
    expect(passed.properties[0]?.value).toMatch(/^PASS Playful Chatbot: score 0\.9 \(threshold 0\.7\)/)
  })

  test('the judgetree reporter survives --reporter on the command line', () => {
    // The evaluation of the test that timed out was cancelled (the test's signal aborted), so it errored.
    expect(run.stderr.split('\n').findLast((line) => line.startsWith('judgetree: '))).toMatch(
      /^judgetree: 2 evaluations, 1 passed, 0 failed, 1 errored · /,
    )
  })
})

describe('vitest --shard=i/2 --reporter=blob, then --merge-reports', () => {
  const scratch = scratchDir()
  const blobs = join(scratch, 'blobs')
  const reportFile = join(scratch, 'report.json')
  const env = { FIXTURE_REPORT_FILE: reportFile }
  const files = ['tests/conversation.test.ts', 'tests/single-turn.test.ts', 'tests/errors.test.ts']
  let shards: RunResult[]
  let merged: RunResult

  beforeAll(async () => {
    shards = []
    for (const index of [1, 2]) {
      const blob = `--outputFile.blob=${join(blobs, `blob-${index}-2.json`)}`
      shards.push(
        await runVitest('vitest-basic', ['run', `--shard=${index}/2`, '--reporter=blob', blob, ...files], env),
      )
    }
    merged = await runVitest(
      'vitest-basic',
      [
        'run',
        `--merge-reports=${blobs}`,
        '--reporter=default',
        '--reporter=junit',
        `--outputFile.junit=${join(scratch, 'merged.xml')}`,
      ],
      env,
    )
  }, 120_000)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  test('each shard writes its own report file', () => {
    expect(readdirSync(blobs)).toHaveLength(2)
    const shardReports = [1, 2].map((index) => readReport(join(scratch, `report.shard-${index}-of-2.json`)))
    expect(shardReports.map((report) => report.shard)).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ])
    expect(shardReports.reduce((total, report) => total + report.summary.evaluations, 0)).toBe(9)
    expect(shards.map((shard) => shard.code)).toEqual([1, 1])
  })

  test('the merged run prints every shard’s failed traces, a line per failed evaluation and the summary of the whole run', () => {
    expect(merged.code).toBe(1)
    const section = failureSection(
      merged.output,
      'tests/conversation.test.ts > playful chatbot > fails a flat conversation',
    )
    expect(section).toContain('└─ ● false → 3  ◀ score 0.3')
    expect(merged.stderr).toContain(
      '  ✗ tests/single-turn.test.ts > single-turn: wrong answer fails · Answer Correctness: score 0.1 < threshold 0.5',
    )
    expect(merged.stderr.split('\n').findLast((line) => line.startsWith('judgetree: '))).toMatch(
      /^judgetree: 9 evaluations, 3 passed, 4 failed \(1 expected by \.not\), 2 errored, 4 rejected · \d+ judge calls \(0 cached\) · 0 tokens · \$0\.0000$/,
    )
  })

  test('the merged JSON report and JUnit XML still carry the traces', () => {
    const report = readReport(reportFile)
    expect(report.shard).toBeNull()
    expect(report.summary.evaluations).toBe(9)
    expect(evaluationsOf(report, 'single-turn: wrong answer fails')[0]?.verboseLogs).toContain(
      '● false → 1  ◀ score 0.1',
    )
    const junit = readJUnit(join(scratch, 'merged.xml'))
    const failed = junitCase(junit, 'playful chatbot > fails a flat conversation')
    expect(failed.failure).toContain('└─ ● false → 3  ◀ score 0.3')
    expect(failed.properties.find((property) => property.name === 'judgetree')?.value).toMatch(
      /^FAIL Playful Chatbot: score 0\.3 .*\nreason: /,
    )
    expect(failed.failure).toContain('└─ ● false → 3  ◀ score 0.3')
  })
})

describe('cancellation: a 500 ms test timeout with an OpenAI judge that answers after 4 s; a user signal', () => {
  const REPLY_MS = 4_000
  const scratch = scratchDir()
  let slow: SlowServer
  let run: RunResult
  let endedAt: number
  let junit: JUnitCase[]

  beforeAll(async () => {
    slow = await startSlowServer(REPLY_MS)
    run = await runVitest(
      'vitest-cancel',
      ['run', '--reporter=default', '--reporter=junit', `--outputFile.junit=${join(scratch, 'junit.xml')}`],
      { OPENAI_BASE_URL: slow.baseURL, OPENAI_API_KEY: API_KEY },
    )
    endedAt = Date.now()
    junit = readJUnit(join(scratch, 'junit.xml'))
  }, 60_000)

  afterAll(async () => {
    await slow?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test("the test fails with the runner's timeout, and the guard says its judge calls were cancelled", () => {
    expect(run.code).toBe(1)
    const failed = junitCase(junit, 'cancel: the test timeout cancels the OpenAI judge call')
    expect(failed.failure).toContain('Test timed out in 500ms')
  })

  test('the server saw the client disconnect within 1.5 s of the request, before it replied', () => {
    expect(slow.requests).toHaveLength(1)
    const [request] = slow.requests
    expect(request?.replied).toBe(false)
    expect(request?.disconnectedAt).toBeDefined()
    expect((request?.disconnectedAt ?? Number.POSITIVE_INFINITY) - (request?.receivedAt ?? 0)).toBeLessThan(1_500)
  })

  test('the runner exits without waiting for the reply', () => {
    expect(endedAt).toBeLessThan((slow.requests[0]?.receivedAt ?? 0) + REPLY_MS)
  })

  test("a user's signal cancels the evaluation, which fails with the metric's MEASUREMENT_ABORTED error", () => {
    const failed = junitCase(junit, 'cancel: a signal of the user cancels the evaluation')
    expect(firstLine(failed.failureMessage)).toBe(
      'ERROR Playful Chatbot: no score (threshold 0.7) · judge scripted-judge',
    )
    expect(failed.failure).toContain('error: The measurement was aborted')
  })
})

describe('one judge-call limit for the whole run: judgetree({ concurrency: 2 }), 2 files × 3 concurrent tests', () => {
  const scratch = scratchDir()
  const pidsFile = join(scratch, 'pids.txt')
  let latency: LatencyServer
  let run: RunResult

  beforeAll(async () => {
    latency = await startLatencyServer(150)
    run = await runVitest('vitest-limit', ['run'], {
      OPENAI_BASE_URL: latency.server.baseURL,
      OPENAI_API_KEY: API_KEY,
      FIXTURE_PIDS_FILE: pidsFile,
    })
  }, 60_000)

  afterAll(async () => {
    await latency?.server.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('every evaluation passes, and the two files ran in two worker processes', () => {
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(/Tests +6 passed \(6\)/)
    expect(new Set(readFileSync(pidsFile, 'utf8').trim().split('\n')).size).toBe(2)
  })

  test('the workers shared the limit: 2 judge calls in flight at most, and at times 2', () => {
    expect(latency.server.requests).toHaveLength(12)
    expect(latency.maxInFlight()).toBe(2)
  })
})

test('types: tsc on the fixtures with the judgetree types for this Vitest version (skipLibCheck: false)', async () => {
  // Vitest 5 changed the Matchers interface, hence a second type entry point. The fixtures use toPassMetric
  // with and without options, on .not, on the test context's expect, read task.meta.judgetree, and hold
  // probes marked ts-expect-error that fail the check if the matcher accepted anything.
  const result = await runTsc(VERSION >= 5 ? 'tsconfig.vitest-v5.json' : 'tsconfig.vitest.json')
  expect(result.output.trim()).toBe('')
  expect(result.code).toBe(0)
}, 60_000)

trialsSuite((env) => runVitest('vitest-trials', ['run'], env))

environmentSuite(
  (env, junitFile) =>
    runVitest(
      'vitest-environment',
      ['run', '--reporter=default', '--reporter=junit', `--outputFile.junit=${junitFile}`],
      env,
    ),
  { junit: true },
)
