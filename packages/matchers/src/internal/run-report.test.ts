import {
  paletteFor,
  renderMarkdown,
  renderRunOutput,
  renderFooter as renderSummaryText,
  type TerminalNote,
} from '@judgetree/core/runtime'
import { describe, expect, expectTypeOf, test } from 'vitest'
import type { JudgetreeRecord } from './record.js'
import { buildReport, summarize } from './run-report.js'

function record(overrides: Partial<JudgetreeRecord> = {}): JudgetreeRecord {
  const base = {
    name: 'Playful Chatbot',
    score: 0.9,
    threshold: 0.7,
    metricThreshold: 0.7,
    assertion: 1,
    success: true,
    reason: 'It jokes.',
    strictMode: false,
    error: null,
    trace: { metric: 'Playful Chatbot', nodes: [], roots: [], notes: [] },
    verboseLogs: '└─ ● true → 9  ◀ score 0.9',
    usage: { judgeCalls: 2, cachedCalls: 1, promptTokens: 500, completionTokens: 100, costUsd: 0.0018 },
    durationMs: 12,
    judgeModel: 'gpt-4.1',
    negated: false,
    assertionPassed: true,
    summary: 'PASS Playful Chatbot: score 0.9 (threshold 0.7) · judge gpt-4.1',
    text: 'PASS Playful Chatbot: score 0.9 (threshold 0.7) · judge gpt-4.1\nreason: It jokes.\n└─ ● true → 9  ◀ score 0.9',
  }
  return { ...base, ...overrides }
}

/** A walk's trace as reports see it: the judgement and both its verdicts, `chosen` ran. */
function walk(chosen: 'true' | 'false'): JudgetreeRecord['trace'] {
  const verdict = (id: string, text: string, score: number) => ({
    id,
    kind: 'ConversationalVerdictNode',
    role: 'verdict' as const,
    label: undefined,
    text,
    score,
    status: text === chosen ? ('ran' as const) : ('skipped' as const),
    inputs: [],
    children: [],
  })
  return {
    metric: 'Playful Chatbot',
    roots: ['n1'],
    notes: [],
    nodes: [
      {
        id: 'n1',
        kind: 'ConversationalBinaryJudgementNode',
        role: 'judgement',
        label: 'Playful?',
        text: 'Is the assistant playful?',
        verdict: chosen === 'true',
        status: 'ran',
        inputs: [],
        children: ['n2', 'n3'],
      },
      verdict('n2', 'true', 9),
      verdict('n3', 'false', 3),
    ],
  }
}

const failed = record({
  score: 0.3,
  success: false,
  assertionPassed: false,
  reason: 'A | B <flat>',
  trace: walk('false'),
  usage: { judgeCalls: 2, cachedCalls: 0, promptTokens: 400, completionTokens: 234, costUsd: 0.0001 },
  summary: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge gpt-4.1',
  text: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge gpt-4.1\nreason: A | B <flat>\n└─ ● false → 3',
})
const errored = record({
  score: 0,
  success: false,
  assertionPassed: false,
  error: { name: 'JudgeCallError', code: 'JUDGE_CALL_FAILED', message: 'down' },
  usage: { judgeCalls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: null },
  summary: 'ERROR Playful Chatbot: no score (threshold 0.7) · judge local-model',
  text: 'ERROR Playful Chatbot: no score (threshold 0.7) · judge local-model\nerror: down',
})

describe('run summary', () => {
  test('counts evaluations by outcome and sums usage; an unknown cost is reported as unpriced', () => {
    const summary = summarize([record(), failed, errored])
    expect(summary.costUsd).toBeCloseTo(0.0019, 12)
    expect(summary).toEqual({
      evaluations: 3,
      metrics: 3,
      passed: 1,
      failed: 1,
      expectedFailures: 0,
      errored: 1,
      failedAssertions: 2,
      rejected: 0,
      judgeCalls: 4,
      cachedCalls: 1,
      promptTokens: 900,
      completionTokens: 334,
      costUsd: summary.costUsd,
      unpricedEvaluations: 1,
      unpricedMetrics: 1,
    })
  })

  test('sums the cached prompt and reasoning tokens the judges reported, and the footer shows them', () => {
    const reasoning = (cachedPromptTokens: number, reasoningTokens: number) =>
      record({
        usage: {
          judgeCalls: 2,
          cachedCalls: 0,
          promptTokens: 500,
          completionTokens: 100,
          cachedPromptTokens,
          reasoningTokens,
          costUsd: 0.0001,
        },
      })
    // The third record's judge reported nothing: it counts none.
    const summary = summarize([reasoning(300, 80), reasoning(0, 20), failed])

    expect(summary).toMatchObject({
      promptTokens: 1400,
      completionTokens: 434,
      cachedPromptTokens: 300,
      reasoningTokens: 100,
    })
    expect(renderSummaryText(summary)).toMatch(/ · 1834 tokens \(300 cached input, 100 reasoning\) · \$0\.0003$/)
  })

  test('one metric over several test cases is one evaluation each; the deprecated names keep the same numbers', () => {
    // The same metric measuring three test cases, as a suite's `test.each` does: 3 evaluations of 1 metric.
    const report = buildReport('vitest', [
      { project: '', file: 't.test.ts', name: 'case 1', state: 'passed', evaluations: [record()] },
      { project: '', file: 't.test.ts', name: 'case 2', state: 'failed', evaluations: [failed] },
      { project: '', file: 't.test.ts', name: 'case 3', state: 'failed', evaluations: [errored] },
    ])
    expect(new Set(report.tests.flatMap((test) => test.evaluations.map((r) => r.name)))).toEqual(
      new Set(['Playful Chatbot']),
    )
    const summary = JSON.parse(JSON.stringify(report)).summary
    expect(summary).toMatchObject({ evaluations: 3, metrics: 3, unpricedEvaluations: 1, unpricedMetrics: 1 })
    expect(renderSummaryText(report.summary)).toMatch(
      /^judgetree: 3 evaluations, 1 passed, 1 failed, 1 errored · .* \(\+ 1 evaluation unpriced\)$/,
    )
  })

  test('the exported summary type has the evaluation counts and still the deprecated ones', () => {
    type Summary = import('../index.js').JudgetreeRunSummary
    expectTypeOf<Summary['evaluations']>().toEqualTypeOf<number>()
    expectTypeOf<Summary['unpricedEvaluations']>().toEqualTypeOf<number>()
    expectTypeOf<Summary['metrics']>().toEqualTypeOf<number>()
    expectTypeOf<Summary['unpricedMetrics']>().toEqualTypeOf<number>()
  })

  test('the closing line', () => {
    expect(renderSummaryText(summarize([record(), failed]))).toBe(
      'judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored · 4 judge calls (1 cached) · 1234 tokens · $0.0019',
    )
    expect(renderSummaryText(summarize([record(), errored]))).toBe(
      'judgetree: 2 evaluations, 1 passed, 0 failed, 1 errored · 2 judge calls (1 cached) · 600 tokens · $0.0018 (+ 1 evaluation unpriced)',
    )
    expect(renderSummaryText(summarize([errored]))).toBe(
      'judgetree: 1 evaluation, 0 passed, 0 failed, 1 errored · 0 judge calls (0 cached) · 0 tokens · cost unknown',
    )
  })

  test('every surface rounds scores and thresholds as the failure header does (3 decimals)', () => {
    const unrounded = record({ ...failed, score: 2 / 9, threshold: 0.6000000000000001, metricThreshold: 0.6 })
    const report = buildReport('vitest', [
      { project: '', file: 't.test.ts', name: 'flat', state: 'failed', evaluations: [unrounded] },
    ])
    expect(renderRunOutput(report)).toContain('Playful Chatbot: score 0.222 < threshold 0.6 ·')
    expect(renderMarkdown(report)).toContain('| ❌ | Playful Chatbot | 0.222 | 0.6 | t.test.ts &gt; flat |')
  })

  test('a rejected assertion (a bad option) is counted as rejected, not as a failed evaluation', () => {
    const rejected = record({
      ...errored,
      assertionPassed: false,
      error: {
        name: 'UsageError',
        code: 'ASSERTION_REJECTED',
        message: 'toPassMetric(metric, options) got unknown option `treshold`.',
      },
    })
    const report = buildReport('vitest', [
      { project: '', file: 't.test.ts', name: 'typo', state: 'failed', evaluations: [rejected] },
    ])
    const lines = renderRunOutput(report).split('\n')
    expect(lines[0]).toBe('judgetree: 1 rejected assertion')
    expect(lines.at(-1)).toMatch(/^judgetree: 0 evaluations, 0 passed, 0 failed, 0 errored, 1 rejected · /)
  })

  test('an evaluation that failed under .not (its assertion held) is counted as failed and named as expected', () => {
    const expectedFailure = record({ ...failed, negated: true, assertionPassed: true })
    const summary = summarize([record(), failed, expectedFailure, { ...errored, negated: true }])
    expect(summary).toMatchObject({ passed: 1, failed: 2, expectedFailures: 1, errored: 1, failedAssertions: 2 })
    expect(renderSummaryText(summary)).toMatch(
      /^judgetree: 4 evaluations, 1 passed, 2 failed \(1 expected by \.not\), 1 errored · /,
    )
    const green = renderSummaryText(summarize([record(), expectedFailure]))
    expect(green).toMatch(/^judgetree: 2 evaluations, 1 passed, 1 failed \(1 expected by \.not\), 0 errored · /)
    // The start keeps its shape: counts first, in this order.
    expect(green).toMatch(/^judgetree: (\d+) evaluations?, (\d+) passed, (\d+) failed/)
    const markdown = renderMarkdown(
      buildReport('vitest', [
        { project: '', file: 't.test.ts', name: 'flat', state: 'passed', evaluations: [expectedFailure] },
      ]),
    )
    expect(markdown).toContain('1 failed (1 expected by .not), 0 errored')
    expect(markdown).toContain('| ✅ | Playful Chatbot (.not) | 0.3 | 0.7 | t.test.ts &gt; flat |')
  })

  test('lists tests by project, file and place in the file, and evaluations by call, whatever finished first', () => {
    const test = (project: string, file: string, name: string, calls: number[]) => ({
      project,
      file,
      name,
      state: 'passed',
      evaluations: calls.map((assertion) => record({ assertion, name: `${name} #${assertion}` })),
    })
    // As a reporter hands them over: files in the order they finished, tests in their file's order.
    const finished = [
      test('web', 'tests/b.test.ts', 'b2', [1]),
      test('web', 'tests/b.test.ts', 'b1', [2, 1]),
      test('api', 'tests/z.test.ts', 'z1', [1]),
      test('web', 'tests/B.test.ts', 'B1', [1]),
      test('api', 'tests/a.test.ts', 'a1', [3, 1, 2]),
      test('', 'tests/root.test.ts', 'r1', [1]),
    ]
    const listed = (tests: typeof finished) =>
      buildReport('vitest', tests).tests.flatMap((entry) => entry.evaluations.map((evaluation) => evaluation.name))
    const expected = ['r1 #1', 'a1 #1', 'a1 #2', 'a1 #3', 'z1 #1', 'B1 #1', 'b2 #1', 'b1 #1', 'b1 #2']
    expect(listed(finished)).toEqual(expected)
    // Another finishing order of the files (each file's tests stay in file order) gives the same report.
    const files = [...new Set(finished.map((entry) => `${entry.project}/${entry.file}`))].reverse()
    const reordered = files.flatMap((key) => finished.filter((entry) => `${entry.project}/${entry.file}` === key))
    expect(reordered.map((entry) => entry.name)).not.toEqual(finished.map((entry) => entry.name))
    expect(listed(reordered)).toEqual(expected)
    expect(renderMarkdown(buildReport('vitest', reordered))).toBe(renderMarkdown(buildReport('vitest', finished)))
    // Two projects running one file: the project tells their tests apart.
    const failing = (project: string) => ({ ...test(project, 'tests/a.test.ts', 'a1', []), evaluations: [failed] })
    const output = renderRunOutput(buildReport('vitest', [failing('web'), failing('api'), failing('')]))
    expect(output.split('\n').filter((line) => line.includes('a1'))).toEqual([
      '  ✗ tests/a.test.ts > a1 · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false',
      '  ✗ |api| tests/a.test.ts > a1 · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false',
      '  ✗ |web| tests/a.test.ts > a1 · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false',
    ])
  })

  test('the terminal output lists failed evaluations one line each (the runner printed their trees), then the closing line', () => {
    const report = buildReport('vitest', [
      { project: '', file: 'tests/chat.test.ts', name: 'chat > jokes', state: 'passed', evaluations: [record()] },
      { project: '', file: 'tests/chat.test.ts', name: 'chat > flat', state: 'failed', evaluations: [failed] },
      {
        project: '',
        file: 'tests/chat.test.ts',
        name: 'chat > not',
        state: 'failed',
        evaluations: [record({ negated: true, assertionPassed: false, trace: walk('true') })],
      },
      {
        project: '',
        file: 'tests/chat.test.ts',
        name: 'chat > geval',
        state: 'failed',
        evaluations: [
          record({ name: 'Tone', score: 0.4, success: false, assertionPassed: false, reason: 'Flat.\nMore.' }),
        ],
      },
      { project: '', file: 'tests/chat.test.ts', name: 'chat > down', state: 'failed', evaluations: [errored] },
      { project: '', file: 'tests/chat.test.ts', name: 'chat > none', state: 'passed', evaluations: [] },
    ])
    expect(report.tests.map((test) => test.name)).toEqual([
      'chat > jokes',
      'chat > flat',
      'chat > not',
      'chat > geval',
      'chat > down',
    ])
    expect(renderRunOutput(report, ['judgetree: JSON report in .judgetree/report.json'])).toMatchInlineSnapshot(`
      "judgetree: 4 failed evaluations
        ✗ tests/chat.test.ts > chat > flat · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false
        ✗ tests/chat.test.ts > chat > not · Playful Chatbot (.not): score 0.9 ≥ threshold 0.7, expected to fail · “Playful?” → true
        ✗ tests/chat.test.ts > chat > geval · Tone: score 0.4 < threshold 0.7 · Flat.
        ✗ tests/chat.test.ts > chat > down · Playful Chatbot: error JUDGE_CALL_FAILED: down

      judgetree: JSON report in .judgetree/report.json
      judgetree: 5 evaluations, 2 passed, 2 failed, 1 errored · 8 judge calls (3 cached) · 2434 tokens · $0.0055 (+ 1 evaluation unpriced)"
    `)
  })

  test('the GitHub step summary escapes table cells and HTML, and fences each failed trace', () => {
    const report = buildReport(
      'jest',
      [
        {
          project: '',
          file: 'tests/chat.test.ts',
          name: 'chat <flat>',
          state: 'failed',
          evaluations: [failed, record()],
        },
      ],
      { index: 1, count: 2 },
    )
    expect(renderMarkdown(report)).toMatchInlineSnapshot(`
      "## judgetree (shard 1/2)

      2 evaluations, 1 passed, 1 failed, 0 errored · 4 judge calls (1 cached) · 1234 tokens · $0.0019

      | | metric | score | threshold | test |
      | --- | --- | --- | --- | --- |
      | ❌ | Playful Chatbot | 0.3 | 0.7 | tests/chat.test.ts &gt; chat &lt;flat&gt; |
      | ✅ | Playful Chatbot | 0.9 | 0.7 | tests/chat.test.ts &gt; chat &lt;flat&gt; |

      <details><summary>❌ FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge gpt-4.1 — tests/chat.test.ts &gt; chat &lt;flat&gt;</summary>

      \`\`\`text
      FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge gpt-4.1
      reason: A | B <flat>
      └─ ● false → 3
      \`\`\`

      </details>
      "
    `)
  })

  test('a problem of the environment is said once for the run, with its fix, however many evaluations it failed', () => {
    const keyless = (node: string) =>
      record({
        success: false,
        assertionPassed: false,
        score: 0,
        reason: null,
        error: {
          name: 'ConfigurationError',
          code: 'CONFIGURATION_INVALID',
          message: `${node} failed: The judge model "gpt-4.1" has no API key. Set OPENAI_API_KEY.`,
          advice: 'Set OPENAI_API_KEY.',
        },
        summary: 'ERROR Playful Chatbot: no score (threshold 0.7) · judge gpt-4.1',
        text: 'ERROR Playful Chatbot: no score (threshold 0.7) · judge gpt-4.1\nerror: … has no API key. (how to fix it …)',
      })
    const report = buildReport('vitest', [
      { project: '', file: 'tests/a.test.ts', name: 'one', state: 'failed', evaluations: [keyless('Task "Tone"')] },
      { project: '', file: 'tests/a.test.ts', name: 'two', state: 'failed', evaluations: [keyless('Task "Tone"')] },
      { project: '', file: 'tests/b.test.ts', name: 'three', state: 'failed', evaluations: [keyless('Judgement "Q"')] },
      { project: '', file: 'tests/b.test.ts', name: 'down', state: 'failed', evaluations: [errored] },
    ])
    const output = renderRunOutput(report)
    expect(output.split('Set OPENAI_API_KEY.')).toHaveLength(2)
    expect(output.split('\n').slice(0, 10)).toEqual([
      'judgetree: 4 failed evaluations',
      '  ✗ tests/a.test.ts > one · Playful Chatbot: error CONFIGURATION_INVALID, a problem of the environment (below)',
      '  ✗ tests/a.test.ts > two · Playful Chatbot: error CONFIGURATION_INVALID, a problem of the environment (below)',
      '  ✗ tests/b.test.ts > three · Playful Chatbot: error CONFIGURATION_INVALID, a problem of the environment (below)',
      '  ✗ tests/b.test.ts > down · Playful Chatbot: error JUDGE_CALL_FAILED: down',
      '',
      'judgetree: a problem of the environment failed 3 evaluations (CONFIGURATION_INVALID):',
      '  Task "Tone" failed: The judge model "gpt-4.1" has no API key.',
      '  fix: Set OPENAI_API_KEY.',
      '',
    ])
    const markdown = renderMarkdown(report)
    expect(markdown.split('Set OPENAI_API_KEY.')).toHaveLength(2)
    expect(markdown).toContain(
      '**a problem of the environment failed 3 evaluations (CONFIGURATION_INVALID):**\n\n```text\n' +
        'Task "Tone" failed: The judge model "gpt-4.1" has no API key.\nfix: Set OPENAI_API_KEY.\n```',
    )
  })

  test('in a terminal that takes colour, failures are red, passes green, what did not run dim; the words are the same', () => {
    const keyless = record({
      success: false,
      assertionPassed: false,
      score: 0,
      reason: null,
      error: { name: 'ConfigurationError', code: 'CONFIGURATION_INVALID', message: 'No key. Set X.', advice: 'Set X.' },
    })
    const report = buildReport('vitest', [
      { project: '', file: 't.test.ts', name: 'ok', state: 'passed', evaluations: [record()] },
      { project: '', file: 't.test.ts', name: '\u001b[2Jflat', state: 'failed', evaluations: [failed] },
      { project: '', file: 't.test.ts', name: 'key', state: 'failed', evaluations: [keyless] },
    ])
    const notes: TerminalNote[] = [
      { text: '  ▼ t.test.ts > flat #1 · Playful Chatbot: 0.9 → 0.3 (−0.6)', tone: 'fail' },
      { text: '  ▲ t.test.ts > ok #1 · Playful Chatbot: 0.5 → 0.9 (+0.4)', tone: 'pass' },
      { text: '  · t.test.ts > gone #1 · Playful Chatbot: not run', tone: 'dim' },
      'judgetree: JSON report in .judgetree/report.json',
    ]
    const coloured = renderRunOutput(report, notes, paletteFor({ isTTY: true }, {}, []))
    const plain = renderRunOutput(report, notes)
    const red = (text: string) => `\u001b[31m${text}\u001b[39m`
    const green = (text: string) => `\u001b[32m${text}\u001b[39m`
    const dim = (text: string) => `\u001b[2m${text}\u001b[22m`
    // Without its escapes, the coloured output is the plain one: colour changes no word.
    const ESC = '\u001b'
    expect(coloured.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')).toBe(plain)
    expect(plain).not.toContain('\u001b')
    // The test name's own escape is shown, not sent, coloured or not.
    expect(coloured).toContain('␛[2Jflat')
    expect(coloured.split('\n')).toEqual([
      red('judgetree: 2 failed evaluations'),
      `  ${red('✗')} t.test.ts > ␛[2Jflat · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false`,
      `  ${red('✗')} t.test.ts > key · Playful Chatbot: error CONFIGURATION_INVALID, a problem of the environment (below)`,
      '',
      red('judgetree: a problem of the environment failed 1 evaluation (CONFIGURATION_INVALID):'),
      '  No key.',
      '  fix: Set X.',
      '',
      red('  ▼ t.test.ts > flat #1 · Playful Chatbot: 0.9 → 0.3 (−0.6)'),
      green('  ▲ t.test.ts > ok #1 · Playful Chatbot: 0.5 → 0.9 (+0.4)'),
      dim('  · t.test.ts > gone #1 · Playful Chatbot: not run'),
      'judgetree: JSON report in .judgetree/report.json',
      `judgetree: 3 evaluations, ${green('1 passed')}, ${red('1 failed')}, ${red('1 errored')} · ` +
        '6 judge calls (2 cached) · 1834 tokens · $0.0037',
    ])
    // Counts of zero stay plain, and so do failures that `.not` expected.
    const allPassed = renderRunOutput(
      buildReport('vitest', [{ project: '', file: 't.test.ts', name: 'ok', state: 'passed', evaluations: [record()] }]),
      [],
      paletteFor({ isTTY: true }, {}, []),
    )
    expect(allPassed).toContain(`judgetree: 1 evaluation, ${green('1 passed')}, 0 failed, 0 errored · `)
    const expectedByNot = renderRunOutput(
      buildReport('vitest', [
        {
          project: '',
          file: 't.test.ts',
          name: 'not',
          state: 'passed',
          evaluations: [record({ negated: true, success: false, score: 0.2 })],
        },
      ]),
      [],
      paletteFor({ isTTY: true }, {}, []),
    )
    expect(expectedByNot).toContain(', 1 failed (1 expected by .not), 0 errored')
  })

  test('a trials evaluation shows how many trials passed and their range in the table', () => {
    const trial = (score: number, success: boolean, index: number) => ({
      trial: index + 1,
      score,
      success,
      reason: null,
      error: null,
      trace: { metric: 'Playful Chatbot', nodes: [], roots: [], notes: [] },
      usage: { judgeCalls: 1, cachedCalls: 0, promptTokens: 10, completionTokens: 5, costUsd: null },
    })
    const trials = record({
      score: 0.4,
      success: false,
      assertionPassed: false,
      trials: [0.4, 0.9, 0.2, 0.3, 0.9].map((score, index) => trial(score, score >= 0.7, index)),
      aggregate: 'median',
      passRate: 0.4,
      spread: { min: 0.2, max: 0.9, stdev: 0.3 },
      summary:
        'FAIL Playful Chatbot: score 0.4 (threshold 0.7) · 2/5 trials passed, scores 0.2–0.9 (median) · judge gpt-4.1',
    })
    const report = buildReport('vitest', [
      { project: '', file: 'tests/chat.test.ts', name: 'chat', state: 'failed', evaluations: [trials] },
    ])
    const markdown = renderMarkdown(report)
    expect(markdown).toContain(
      '| ❌ | Playful Chatbot | 0.4 (2/5 trials passed, 0.2–0.9) | 0.7 | tests/chat.test.ts &gt; chat |',
    )
    expect(markdown).toContain('2/5 trials passed, scores 0.2–0.9 (median)')
    expect(JSON.parse(JSON.stringify(report)).tests[0].evaluations[0]).toMatchObject({
      passRate: 0.4,
      aggregate: 'median',
    })
  })
})
