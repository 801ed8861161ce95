import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bundleScript } from '../../test/support/fork-script.js'
import { compareReports, type ReportComparison } from './compare-reports.js'
import { renderComparison } from './render.js'

const scratch = mkdtempSync(join(tmpdir(), 'judgetree-compare-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
const rendered = (comparison: ReportComparison) => renderComparison(comparison).replaceAll(scratch, '<scratch>')

/** A judgement node of a trace with its verdict, or skipped. */
function judgement(id: string, label: string, verdict: boolean | string | undefined) {
  return { id, role: 'judgement', label, text: label, status: verdict === undefined ? 'skipped' : 'ran', verdict }
}

interface Evaluation {
  test: string
  metric?: string
  score: number
  threshold?: number
  errored?: boolean
  nodes?: ReturnType<typeof judgement>[]
}

/** A runner report (the JSON report of the Vitest or Jest reporter) holding these evaluations, one per test. */
function report(name: string, evaluations: Evaluation[], summary: Partial<Record<string, number | null>> = {}) {
  const file = join(scratch, name)
  mkdirSync(join(file, '..'), { recursive: true })
  const tests = evaluations.map(({ test, metric = 'Polite', score, threshold = 0.5, errored = false, nodes = [] }) => ({
    project: '',
    file: 'tests/a.test.ts',
    name: test,
    state: 'passed',
    evaluations: [
      {
        name: metric,
        score,
        threshold,
        success: !errored && score >= threshold,
        error: errored ? { name: 'JudgeCallError', code: 'JUDGE_CALL_FAILED', message: 'boom' } : null,
        trace: { nodes: [{ id: 'n1', role: 'task', label: undefined, text: 'Describe', status: 'ran' }, ...nodes] },
        assertion: 1,
        negated: false,
      },
    ],
  }))
  const totals = {
    judgeCalls: 10,
    cachedCalls: 2,
    promptTokens: 1000,
    completionTokens: 200,
    costUsd: 0.01,
    ...summary,
  }
  writeFileSync(file, JSON.stringify({ summary: totals, tests }))
  return file
}

describe('compareReports', () => {
  test('finds flips, flipped judgements, kappa and the mean score change, as computed by hand', () => {
    // Before: a, b, c pass; d, e fail. After: a passes, b fails (its judgement flipped), c and d pass, e fails.
    const before = report('before.json', [
      { test: 'a', score: 0.9 },
      { test: 'b', score: 0.8, nodes: [judgement('n2', 'Polite?', true), judgement('n3', 'Warm?', undefined)] },
      { test: 'c', score: 0.6 },
      { test: 'd', score: 0.2 },
      { test: 'e', score: 0.1 },
    ])
    const after = report('after.json', [
      { test: 'a', score: 0.9 },
      { test: 'b', score: 0.3, nodes: [judgement('n2', 'Polite?', false), judgement('n3', 'Warm?', false)] },
      { test: 'c', score: 0.7 },
      { test: 'd', score: 0.6 },
      { test: 'e', score: 0.1 },
    ])
    const comparison = compareReports(before, after)
    expect(comparison).toMatchObject({ compared: 5, flips: 2, toFail: 1, toPass: 1, errored: 0 })
    // Agreement 3/5; both runs pass 3 of 5, so chance is 0.6·0.6 + 0.4·0.4 = 0.52: kappa (0.6 − 0.52) / 0.48 = 1/6.
    expect(comparison.kappa).toBeCloseTo(1 / 6, 12)
    // |Δ|: 0, 0.5, 0.1, 0.4, 0 → 1.0 / 5.
    expect(comparison.meanAbsoluteScoreChange).toBeCloseTo(0.2, 12)
    const b = comparison.evaluations.find((evaluation) => evaluation.label.includes('> b '))
    expect(b).toMatchObject({
      flip: 'to-fail',
      before: { score: 0.8, passed: true },
      after: { score: 0.3, passed: false },
    })
    expect(b?.flippedNodes).toEqual([
      { id: 'n2', label: 'Polite?', before: 'true', after: 'false' },
      { id: 'n3', label: 'Warm?', before: 'not reached', after: 'false' },
    ])
    expect(rendered(comparison)).toMatchInlineSnapshot(`
      "judgetree compare: <scratch>/before.json → <scratch>/after.json
        5 evaluations in both runs: 2 flips (1 to fail, 1 to pass) · Cohen's kappa 0.167 · mean |score change| 0.200
        ✗ tests/a.test.ts > b #1 · Polite: 0.8 → 0.3 (−0.5), now fails
            n2 “Polite?”: true → false
            n3 “Warm?”: not reached → false
        ✓ tests/a.test.ts > d #1 · Polite: 0.2 → 0.6 (+0.4), now passes
        ▲ tests/a.test.ts > c #1 · Polite: 0.6 → 0.7 (+0.1)
        2 unchanged
        before: 5 evaluations · 10 judge calls (2 cached) · 1,200 tokens · $0.0100
        after:  5 evaluations · 10 judge calls (2 cached) · 1,200 tokens · $0.0100"
    `)
  })

  test('lists evaluations only one run has, leaves errored ones out of the figures, and splits figures by metric', () => {
    const before = report('split-before.json', [
      { test: 'kept', score: 0.9 },
      { test: 'gone', score: 0.9 },
      { test: 'broke', score: 0.9 },
      { test: 'tone', metric: 'Tone', score: 0.2 },
    ])
    const after = report(
      'split-after.json',
      [
        { test: 'kept', score: 0.4 },
        { test: 'broke', score: 0, errored: true },
        { test: 'added', score: 0.9 },
        { test: 'tone', metric: 'Tone', score: 0.8 },
      ],
      { costUsd: null },
    )
    const comparison = compareReports(before, after)
    // The two compared disagree on both, with one pass each side: kappa (0 − 0.5) / 0.5 = −1.
    expect(comparison).toMatchObject({ compared: 2, flips: 2, errored: 1, kappa: -1 })
    expect(comparison.onlyBefore).toEqual(['tests/a.test.ts > gone #1 · Polite'])
    expect(comparison.onlyAfter).toEqual(['tests/a.test.ts > added #1 · Polite'])
    expect(
      comparison.byMetric.map(({ metric, compared, toFail, toPass }) => [metric, compared, toFail, toPass]),
    ).toEqual([
      ['Polite', 1, 1, 0],
      ['Tone', 1, 0, 1],
    ])
    expect(rendered(comparison)).toMatchInlineSnapshot(`
      "judgetree compare: <scratch>/split-before.json → <scratch>/split-after.json
        3 evaluations in both runs, 2 compared (1 errored in a run): 2 flips (1 to fail, 1 to pass) · Cohen's kappa -1.000 · mean |score change| 0.550
        ✗ tests/a.test.ts > kept #1 · Polite: 0.9 → 0.4 (−0.5), now fails
        ✓ tests/a.test.ts > tone #1 · Tone: 0.2 → 0.8 (+0.6), now passes
        ! tests/a.test.ts > broke #1 · Polite: 0.9 → error
        by metric:
          Polite: 1 compared · 1 flip (1 to fail, 0 to pass) · Cohen's kappa 0.000 · mean |score change| 0.500
          Tone: 1 compared · 1 flip (0 to fail, 1 to pass) · Cohen's kappa 0.000 · mean |score change| 0.600
        before: 4 evaluations · 10 judge calls (2 cached) · 1,200 tokens · $0.0100
        after:  4 evaluations · 10 judge calls (2 cached) · 1,200 tokens · cost unknown
        only in the before run (1):
          tests/a.test.ts > gone #1 · Polite
        only in the after run (1):
          tests/a.test.ts > added #1 · Polite"
    `)
  })

  test('reads a sharded run from its folder, and a baseline, whose `.not` entries count the metric, not the assertion', () => {
    const shards = join(scratch, 'sharded')
    report('sharded/report.shard-2-of-2.json', [{ test: 'two', score: 0.2 }], { judgeCalls: 3 })
    report('sharded/report.shard-1-of-2.json', [{ test: 'one', score: 0.9 }], { judgeCalls: 4 })
    const baseline = join(scratch, 'baseline.json')
    const entry = { project: '', file: 'tests/a.test.ts', ordinal: 1, assertion: 1, metric: 'Polite', threshold: 0.5 }
    writeFileSync(
      baseline,
      JSON.stringify({
        version: 1,
        entries: [
          { ...entry, test: 'one', score: 0.9, passed: true, negated: false },
          // Asserted with .not: the assertion held because the metric failed.
          { ...entry, test: 'two', score: 0.8, passed: false, negated: true },
        ],
      }),
    )
    const comparison = compareReports(baseline, shards)
    expect(comparison.after.files.map((file) => file.slice(shards.length + 1))).toEqual([
      'report.shard-1-of-2.json',
      'report.shard-2-of-2.json',
    ])
    expect(comparison.after.totals?.judgeCalls).toBe(7)
    expect(comparison.before.totals).toBeNull()
    expect(comparison.evaluations.map(({ label, flip, flippedNodes }) => [label, flip, flippedNodes])).toEqual([
      ['tests/a.test.ts > one #1 · Polite', null, null],
      ['tests/a.test.ts > two #1 · Polite', 'to-fail', null],
    ])
  })

  test("sums and shows each run's cached prompt and reasoning tokens, shard by shard, where its reports have them", () => {
    const before = report('tokens-before.json', [{ test: 'one', score: 0.9 }])
    report('tokens-sharded/report.shard-1-of-2.json', [{ test: 'one', score: 0.9 }], {
      cachedPromptTokens: 600,
      reasoningTokens: 150,
    })
    // A shard whose judge reported no reasoning tokens counts none.
    report('tokens-sharded/report.shard-2-of-2.json', [{ test: 'two', score: 0.2 }], { cachedPromptTokens: 500 })
    const comparison = compareReports(before, join(scratch, 'tokens-sharded'))

    expect(comparison.before.totals).not.toHaveProperty('cachedPromptTokens')
    expect(comparison.after.totals).toMatchObject({
      promptTokens: 2000,
      cachedPromptTokens: 1100,
      reasoningTokens: 150,
    })
    const totalsLines = rendered(comparison)
      .split('\n')
      .filter((line) => /^\s*(before|after):/.test(line))
    expect(totalsLines).toEqual([
      '  before: 1 evaluations · 10 judge calls (2 cached) · 1,200 tokens · $0.0100',
      '  after:  2 evaluations · 20 judge calls (4 cached) · 2,400 tokens (1,100 cached input, 150 reasoning) · $0.0200',
    ])
  })

  test('says which file is wrong and how', () => {
    const notJson = join(scratch, 'broken.json')
    writeFileSync(notJson, '{"tests": [')
    expect(() => compareReports(notJson, notJson)).toThrow(/broken\.json is not JSON/)
    const other = join(scratch, 'other.json')
    writeFileSync(other, '{"name": "package"}')
    expect(() => compareReports(other, other)).toThrow(
      /other\.json is not a judgetree report or baseline: it has none of `tests`/,
    )
    const wrongShape = join(scratch, 'wrong-shape.json')
    writeFileSync(wrongShape, JSON.stringify({ summary: {}, tests: [{ project: '' }] }))
    expect(() => compareReports(wrongShape, wrongShape)).toThrow(/wrong-shape\.json is a judgetree report file, but/)
    expect(() => compareReports(join(scratch, 'nowhere.json'), notJson)).toThrow(/nowhere\.json does not exist/)
    const twice = join(scratch, 'twice')
    report('twice/report.shard-1-of-2.json', [{ test: 'same', score: 0.9 }])
    report('twice/report.shard-2-of-2.json', [{ test: 'same', score: 0.9 }])
    expect(() => compareReports(twice, twice)).toThrow(/> same #1 · Polite appears in both .*shard-1-of-2\.json and/)
  })
})

describe('judgetree compare', () => {
  let cli: string
  beforeAll(async () => {
    cli = await bundleScript('../../src/cli.ts')
  }, 60_000)
  const run = (...args: string[]) => {
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [cli, ...args], (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
      )
    })
  }
  const before = report('cli-before.json', [
    { test: 'a', score: 0.9 },
    { test: 'b', score: 0.9 },
    { test: 'c', score: 0.9 },
    { test: 'd', score: 0.9 },
  ])
  const after = report('cli-after.json', [
    { test: 'a', score: 0.1 },
    { test: 'b', score: 0.9 },
    { test: 'c', score: 0.9 },
    { test: 'd', score: 0.9 },
  ])

  test('--max-flips sets the exit code, as a count, a fraction or a percentage', async () => {
    expect(await run('compare', before, after)).toMatchObject({ code: 0, stderr: '' })
    const within = await run('compare', before, after, '--max-flips', '1')
    expect(within.code).toBe(0)
    expect(within.stdout).toContain('judgetree compare: 1 of 4 evaluations flipped, within --max-flips 1.')
    const over = await run('compare', before, after, '--max-flips=0')
    expect(over.code).toBe(1)
    expect(over.stderr).toBe('judgetree compare: 1 of 4 evaluations flipped, more than --max-flips 0.\n')
    // 1 of 4 is 25%: above 0.2 and 20%, not above 25%.
    const codes = await Promise.all(
      ['0.2', '20%', '25%'].map((limit) => run('compare', before, after, '--max-flips', limit)),
    )
    expect(codes.map(({ code }) => code)).toEqual([1, 1, 0])
  }, 60_000)

  test('--json prints every figure for scripts; bad arguments exit 2 saying what to pass', async () => {
    const json = await run('compare', before, after, '--json', '--max-flips', '0')
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({
      compared: 4,
      flips: 1,
      toFail: 1,
      // Before passes all four, after three: chance agreement 0.75 equals the observed, so kappa is 0.
      kappa: 0,
      meanAbsoluteScoreChange: 0.2,
      maxFlips: { limit: '0', exceeded: true },
      before: { kind: 'report', evaluations: 4, totals: { judgeCalls: 10 } },
    })
    const limit = await run('compare', before, after, '--max-flips', 'many')
    expect(limit).toMatchObject({ code: 2 })
    expect(limit.stderr).toContain('--max-flips takes a count (3), a fraction (0.05) or a percentage (5%); got "many".')
    expect(await run('compare', before)).toMatchObject({ code: 2 })
    const missing = await run('compare', before, join(scratch, 'absent.json'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^judgetree compare: .*absent\.json does not exist/)
  }, 60_000)
})
