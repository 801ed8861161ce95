// `judgetree compare` on two real Vitest runs of one suite (test/fixtures/vitest-stable: two projects) under two
// judges: the second judge finds every conversation playful. Flips, flipped judgements, kappa and drift are checked
// against values worked out by hand from the suite. The test making three assertions at once is left out: under the
// second judge one of them fails, Promise.all rejects, and the others are cancelled mid-way or not, by timing.
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { jsonReply, lastUserMessage, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readReport } from './support/reports.js'
import { HOME, NODE, runVitest, scratchDir } from './support/runner.js'
import { startStableJudge } from './support/stable-suite.js'

const CLI = join(HOME, 'node_modules', '@judgetree', 'core', 'dist', 'cli.js')

/** The stable suite's judge, but every conversation is playful. */
function startLenientJudge(): Promise<OpenAIServer> {
  return startOpenAIServer((request) => {
    const prompt = lastUserMessage(request)
    if (prompt.includes("Describe the assistant's tone")) return jsonReply({ output: 'The assistant answers flatly.' })
    if (prompt.includes('Is the assistant playful')) {
      return jsonReply({ reason: 'Flat, but friendly enough to count.', verdict: true })
    }
    return prompt.includes('Paris')
      ? jsonReply({ reason: 'Paris is the capital of France.', verdict: true })
      : jsonReply({ reason: 'The capital of France is Paris, not Lyon.', verdict: false })
  })
}

function compare(...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(NODE, [CLI, 'compare', ...args], (error, stdout, stderr) =>
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
    )
  })
}

describe('judgetree compare on two Vitest runs under two judges', () => {
  const scratch = scratchDir()
  const before = join(scratch, 'before.json')
  const after = join(scratch, 'after.json')
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  beforeAll(async () => {
    for (const [file, start] of [
      [before, startStableJudge],
      [after, startLenientJudge],
    ] as const) {
      const server = await start()
      const run = await runVitest('vitest-stable', ['run', '-t', '^(?!two evaluations at once)'], {
        JUDGETREE_CACHE: 'off',
        OPENAI_API_KEY: 'sk-test-compare-0123456789abcdef',
        OPENAI_BASE_URL: server.baseURL,
        FIXTURE_REPORT_FILE: file,
      })
      await server.close()
      // Tests fail on purpose under the first judge, and `.not` ones under the second.
      expect(run.code, run.output).toBe(1)
    }
  }, 480_000)

  test('counts the flips, names the judgement that flipped, and computes kappa and drift as by hand', async () => {
    const { code, stdout, stderr } = await compare(before, after, '--json')
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const comparison = JSON.parse(stdout)
    const errored = comparison.evaluations.filter(
      (evaluation: { scoreChange: number | null }) => evaluation.scoreChange === null,
    )
    const errors = [before, after].flatMap((file) =>
      readReport(file).tests.flatMap((test) =>
        test.evaluations.filter((record) => record.error).map((record) => `${test.name}: ${record.error?.message}`),
      ),
    )
    expect(errors).toEqual([])
    expect(errored).toEqual([])
    // Per project: 5 Playful Chatbot evaluations (3 of a flat conversation, scored 0.3 and failing, now 0.9 and
    // passing; 2 of a playful one, 0.9 both times) and 4 Answer Correctness ones, unchanged. So 6 flips of 18, to pass.
    expect(comparison).toMatchObject({ compared: 18, flips: 6, toFail: 0, toPass: 6, errored: 0 })
    // Agreement 12/18; before passes 8 of 18, after 14: chance (8/18)(14/18) + (10/18)(4/18) = 38/81, so kappa is
    // (2/3 − 38/81) / (1 − 38/81) = 16/43.
    expect(comparison.kappa).toBeCloseTo(16 / 43, 12)
    // 6 evaluations moved by 0.6, 12 by 0: 3.6/18.
    expect(comparison.meanAbsoluteScoreChange).toBeCloseTo(0.2, 12)
    expect(
      comparison.byMetric.map(({ metric, compared, flips }: Record<string, unknown>) => [metric, compared, flips]),
    ).toEqual([
      ['Answer Correctness', 8, 0],
      ['Playful Chatbot', 10, 6],
    ])
    const flipped = comparison.evaluations.filter((evaluation: { flip: string | null }) => evaluation.flip !== null)
    expect(flipped).toHaveLength(6)
    for (const evaluation of flipped) {
      expect(evaluation.flippedNodes).toEqual([
        expect.objectContaining({ label: 'Playful?', before: 'false', after: 'true' }),
      ])
    }
    // The runs' own cost: every judge call of each run was made live, none cached.
    expect(comparison.before.totals).toMatchObject({ cachedCalls: 0 })
    expect(comparison.before.totals.judgeCalls).toBeGreaterThan(0)
  })

  test('prints the changes for a reader, and --max-flips gates on them', async () => {
    const printed = await compare(before, after)
    const lines = printed.stdout.replaceAll(scratch, '<scratch>').split('\n')
    expect(lines.slice(0, 6).join('\n')).toMatchInlineSnapshot(`
      "judgetree compare: <scratch>/before.json → <scratch>/after.json
        18 evaluations in both runs: 6 flips (0 to fail, 6 to pass) · Cohen's kappa 0.372 · mean |score change| 0.200
        ✓ |api| tests/chat.test.ts > fails on purpose: a flat conversation #1 · Playful Chatbot: 0.3 → 0.9 (+0.6), now passes
            n2 “Playful?”: false → true
        ✓ |api| tests/chat.test.ts > concurrent > first #1 · Playful Chatbot: 0.3 → 0.9 (+0.6), now passes
            n2 “Playful?”: false → true"
    `)
    expect(await compare(before, after, '--max-flips', '6')).toMatchObject({ code: 0 })
    const over = await compare(before, after, '--max-flips', '30%')
    expect(over.code).toBe(1)
    expect(over.stderr).toBe('judgetree compare: 6 of 18 evaluations flipped, more than --max-flips 30%.\n')
  })
})
