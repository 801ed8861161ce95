// `judgetree compare` on two real Vitest runs of one suite (test/fixtures/vitest-stable: two projects, 12
// evaluations each) under two judges: the second judge finds every conversation playful. Flips, flipped judgements,
// kappa and drift are checked against values worked out by hand from the suite.
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { jsonReply, lastUserMessage, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
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
      const run = await runVitest('vitest-stable', ['run'], {
        JUDGETREE_CACHE: 'off',
        OPENAI_API_KEY: 'sk-test-compare-0123456789abcdef',
        OPENAI_BASE_URL: server.baseURL,
        FIXTURE_REPORT_FILE: file,
      })
      await server.close()
      // Two tests of each project fail on purpose under the first judge; the second fails one more per project.
      expect(run.code, run.output).toBe(1)
    }
  }, 480_000)

  test('counts the flips, names the judgement that flipped, and computes kappa and drift as by hand', async () => {
    const { code, stdout, stderr } = await compare(before, after, '--json')
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const comparison = JSON.parse(stdout)
    // Per project: 8 Playful Chatbot evaluations (5 of a flat conversation, scored 0.3, now 0.9; 3 of a playful one,
    // 0.9 both times) and 4 Answer Correctness ones, unchanged. Of the 5 flat ones, 4 failed and now pass; the one
    // with threshold 0.2 passed both times. So 8 flips of 24, all to pass.
    expect(comparison).toMatchObject({ compared: 24, flips: 8, toFail: 0, toPass: 8, errored: 0 })
    // Agreement 16/24; before passes 12 of 24, after 20: chance 0.5·(20/24) + 0.5·(4/24) = 0.5, kappa (2/3 − 0.5)/0.5.
    expect(comparison.kappa).toBeCloseTo(1 / 3, 12)
    // 10 evaluations moved by 0.6, 14 by 0: 6/24.
    expect(comparison.meanAbsoluteScoreChange).toBeCloseTo(0.25, 12)
    expect(
      comparison.byMetric.map(({ metric, compared, flips }: Record<string, unknown>) => [metric, compared, flips]),
    ).toEqual([
      ['Answer Correctness', 8, 0],
      ['Playful Chatbot', 16, 8],
    ])
    const flipped = comparison.evaluations.filter((evaluation: { flip: string | null }) => evaluation.flip !== null)
    expect(flipped).toHaveLength(8)
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
        24 evaluations in both runs: 8 flips (0 to fail, 8 to pass) · Cohen's kappa 0.333 · mean |score change| 0.250
        ✓ |api| tests/chat.test.ts > two evaluations at once, listed in the order they were called #3 · Playful Chatbot: 0.3 → 0.9 (+0.6), now passes
            n2 “Playful?”: false → true
        ✓ |api| tests/chat.test.ts > fails on purpose: a flat conversation #1 · Playful Chatbot: 0.3 → 0.9 (+0.6), now passes
            n2 “Playful?”: false → true"
    `)
    expect(await compare(before, after, '--max-flips', '8')).toMatchObject({ code: 0 })
    const over = await compare(before, after, '--max-flips', '30%')
    expect(over.code).toBe(1)
    expect(over.stderr).toBe('judgetree compare: 8 of 24 evaluations flipped, more than --max-flips 30%.\n')
  })
})
