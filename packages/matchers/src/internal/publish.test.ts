import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { paletteFor, startCoordinator } from '@judgetree/core/runtime'
import { ciLogProblems } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { acquireSlot } from '../../../core/src/runtime/coordinator-client.js'
import { publishReport } from './publish.js'
import type { JudgetreeRecord } from './record.js'
import { buildReport, type JudgetreeReport } from './run-report.js'

const evaluation = {
  name: 'Playful Chatbot',
  score: 0.3,
  threshold: 0.7,
  success: false,
  assertionPassed: false,
  assertion: 1,
  negated: false,
  error: null,
  usage: { judgeCalls: 2, cachedCalls: 0, promptTokens: 10, completionTokens: 5, costUsd: 0 },
  summary: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted',
  text: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted\n└─ ● false → 3',
} as JudgetreeRecord

function report(evaluations: JudgetreeRecord[], shard: JudgetreeReport['shard'] = null): JudgetreeReport {
  return buildReport(
    'vitest',
    [{ project: '', file: 'tests/a.test.ts', name: 'a', state: 'failed', evaluations }],
    shard,
  )
}

describe('publishReport', () => {
  let root: string
  let printed: string[]

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'judgetree-publish-'))
    printed = []
    vi.stubEnv('GITHUB_STEP_SUMMARY', '')
  })
  afterEach(() => {
    vi.unstubAllEnvs()
    rmSync(root, { recursive: true, force: true })
  })

  const print = (text: string) => printed.push(text)

  test('writes .judgetree/report.json under the root, leaving no temporary file, and prints the output', () => {
    publishReport(report([evaluation]), { root, options: {}, print })
    expect(JSON.parse(readFileSync(join(root, '.judgetree', 'report.json'), 'utf8'))).toEqual(report([evaluation]))
    expect(readdirSync(join(root, '.judgetree'))).toEqual(['report.json'])
    expect(printed).toHaveLength(1)
    expect(printed[0]).toContain(
      'judgetree: JSON report in .judgetree/report.json\njudgetree: 1 evaluation, 0 passed, 1 failed',
    )
  })

  test('a shard writes its own file; outputFile moves or disables the report', () => {
    publishReport(report([evaluation], { index: 2, count: 3 }), {
      root,
      options: { outputFile: 'out/run.json' },
      print,
    })
    expect(existsSync(join(root, 'out', 'run.shard-2-of-3.json'))).toBe(true)
    publishReport(report([evaluation]), { root, options: { outputFile: false }, print })
    expect(existsSync(join(root, '.judgetree'))).toBe(false)
    expect(printed[1]).not.toContain('JSON report')
  })

  test('a run without evaluations still writes its (empty) report, so none is stale, but prints nothing', () => {
    publishReport(report([]), { root, options: {}, print })
    expect(JSON.parse(readFileSync(join(root, '.judgetree', 'report.json'), 'utf8')).summary.evaluations).toBe(0)
    expect(printed).toEqual([])
  })

  test('appends to $GITHUB_STEP_SUMMARY when it is set, unless githubSummary is false', () => {
    const summary = join(root, 'summary.md')
    writeFileSync(summary, '## Earlier step\n')
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary)
    publishReport(report([evaluation]), { root, options: { githubSummary: false }, print })
    expect(readFileSync(summary, 'utf8')).toBe('## Earlier step\n')
    publishReport(report([evaluation]), { root, options: {}, print })
    expect(readFileSync(summary, 'utf8')).toMatch(/^## Earlier step\n## judgetree\n/)
  })

  test('a baseline that cannot be written is a warning, and the report is still written', () => {
    vi.stubEnv('JUDGETREE_UPDATE_BASELINE', '1')
    // A file where the baseline's directory should be: the write fails.
    writeFileSync(join(root, 'blocked'), '')
    const options = { baseline: 'blocked/baseline.json' }
    const { failure } = publishReport(report([evaluation]), { root, options, print: (text) => printed.push(text) })
    expect(failure).toBeUndefined()
    expect(printed.join('')).toMatch(/judgetree: warning: could not write the baseline blocked\/baseline\.json: /)
    expect(printed.join('')).not.toContain('baseline written')
    const written = JSON.parse(readFileSync(join(root, '.judgetree', 'report.json'), 'utf8')) as JudgetreeReport
    expect(written.summary.evaluations).toBe(1)
    expect(written.baseline).toMatchObject({ status: 'not-written', error: expect.stringContaining('blocked') })
  })

  // Last: the coordinator a process started stays its run's record, so every later publish would mention it.
  test('a report that cannot be written is a warning in the output, never an error that ends the run', () => {
    // A regular file where the report's folder should be: no user, root included, can write under it.
    writeFileSync(join(root, 'blocker'), '')
    expect(() =>
      publishReport(report([evaluation]), { root, options: { outputFile: 'blocker/report.json' }, print }),
    ).not.toThrow()
    expect(printed).toHaveLength(1)
    expect(printed[0]).toMatch(
      /judgetree: warning: could not write the JSON report blocker\/report\.json: ENOTDIR: not a directory.*\njudgetree: 1 evaluation, 0 passed, 1 failed/,
    )
  })

  test('says once, in the summary line and the JSON report, how often the run was rate-limited', async () => {
    const coordinator = await startCoordinator({ concurrency: 10 })
    try {
      for (let i = 0; i < 3; i++) await (await acquireSlot(coordinator.url)).rateLimited(10)
    } finally {
      await coordinator.close()
    }
    publishReport(report([evaluation]), { root, options: {}, print })
    // Three calls, each granted after the previous 429: three cuts, 10 → 7 → 4.9 → 3.4.
    const mentions = (printed[0] ?? '').split('\n').filter((text) => text.includes('rate-limited'))
    expect(mentions).toHaveLength(1)
    expect(mentions[0]).toMatch(/^judgetree: 1 evaluation, /)
    expect(mentions[0]).toMatch(/ · rate-limited 3 times; concurrency settled at 3$/)
    const written = JSON.parse(readFileSync(join(root, '.judgetree', 'report.json'), 'utf8')) as JudgetreeReport
    expect(written.summary.rateLimits).toEqual({ rateLimited: 3, concurrency: 3 })
  })

  test('a baseline entry written to forge CI lines prints, and lands in the step summary, as text', () => {
    const forged = 'gone\n::error file=src/x.ts,line=1::FORGED FROM BASELINE\nmid ##[error]legacy\u001b]52;c;eA==\u0007'
    const entry = { project: '', file: 'tests/a.test.ts', test: forged, assertion: 1, metric: 'Tone\r::warning::x' }
    const baseline = { version: 1, entries: [{ ...entry, score: 0.9, threshold: 0.5, passed: true, negated: false }] }
    writeFileSync(join(root, 'baseline.json'), JSON.stringify(baseline))
    const summaryFile = join(root, 'step-summary.md')
    vi.stubEnv('GITHUB_STEP_SUMMARY', summaryFile)
    publishReport(report([evaluation]), { root, options: { baseline: 'baseline.json' }, print })
    const output = printed.join('')
    const markdown = readFileSync(summaryFile, 'utf8')
    expect(output.replaceAll('\u200b', '')).toContain('::error file=src/x.ts,line=1::FORGED FROM BASELINE')
    expect(markdown.replaceAll('\u200b', '')).toContain('FORGED FROM BASELINE')
    expect(ciLogProblems(output)).toEqual([])
    expect(ciLogProblems(markdown)).toEqual([])
  })

  test('in a terminal that takes colour, the baseline lines take the tone of their change; the files stay plain', () => {
    const entry = { project: '', assertion: 1, metric: 'Playful Chatbot', threshold: 0.7, negated: false }
    const baseline = {
      version: 1,
      entries: [
        { ...entry, file: 'tests/a.test.ts', test: 'a', score: 0.9, passed: true },
        { ...entry, file: 'tests/gone.test.ts', test: 'gone', score: 0.8, passed: true },
      ],
    }
    writeFileSync(join(root, 'baseline.json'), JSON.stringify(baseline))
    const summaryFile = join(root, 'step-summary.md')
    vi.stubEnv('GITHUB_STEP_SUMMARY', summaryFile)
    const palette = paletteFor({ isTTY: true }, {}, [])
    const options = { baseline: 'baseline.json', failOnRegression: true }
    publishReport(report([evaluation]), { root, options, print, palette })
    const lines = printed.join('').split('\n')
    expect(lines).toContain(
      '\u001b[31m  ✗ tests/a.test.ts > a #1 · Playful Chatbot: 0.9 → 0.3 (−0.6), now fails\u001b[39m',
    )
    expect(lines.filter((line) => line.startsWith('\u001b[2m  − tests/gone.test.ts > gone #1'))).toHaveLength(1)
    expect(lines.find((line) => line.includes('against the baseline'))).not.toContain('\u001b')
    for (const file of [summaryFile, join(root, '.judgetree', 'report.json')]) {
      const text = readFileSync(file, 'utf8')
      expect(text, file).toContain('Playful Chatbot')
      expect(text, file).not.toContain('\u001b')
    }
  })
})
