// The example suite's intentional failure (examples/walkthroughs and examples/jest-quickstart,
// tests/show-failure.test.ts: a support answer that is right but rude, through a DAG four decisions deep), run by
// the examples' own Vitest and Jest with their default reporters, as CI runs them (no TTY, CI=true, NO_COLOR=1),
// against a local server that walks the DAG to its failing verdict. The whole output is pinned, and the failing
// test's report fits one screen. Runs on the examples' Vitest 4 and Jest 30 only (the compat matrix runs the files
// named after a runner).

import { join } from 'node:path'
import {
  type OpenAIServer,
  type RecordedRequest,
  type ScriptedReply,
  startOpenAIServer,
  withDirLock,
} from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXAMPLES, masked, type RunResult, runExample } from './support/runner.js'

/** What the judge answers on the way to the failure: the claims, two checks that pass, then a rude tone. */
function supportJudge(request: RecordedRequest): ScriptedReply {
  const prompt = request.body.messages.map((message) => String(message.content)).join('\n')
  if (prompt.includes('List every claim')) {
    return {
      json: { output: '1. Books can be returned within 30 days. 2. Refunds go to the original payment method.' },
    }
  }
  if (prompt.includes('expected return window')) return { json: { reason: 'Both say 30 days.', verdict: true } }
  if (prompt.includes('expected refund method')) {
    return { json: { reason: 'Both say the original payment method.', verdict: true } }
  }
  if (prompt.includes('treat the customer')) {
    return { json: { reason: 'It tells the customer to read the policy next time.', verdict: 'Rudely' } }
  }
  return { status: 500, error: { message: 'the show-failure DAG asked something this server does not answer' } }
}

/**
 * The lines of `output` from the one starting with `first` through the first one after it starting with `last`: what
 * a reader scrolls through for the failed test, from its failure to judgetree's summary line.
 */
function screenOf(output: string, first: string, last: string): string[] {
  const lines = output.split('\n')
  const from = lines.findIndex((line) => line.startsWith(first))
  const to = lines.findIndex((line, index) => index > from && line.startsWith(last))
  expect(from, `no line starts with ${first}`).toBeGreaterThanOrEqual(0)
  expect(to, `no line after ${first} starts with ${last}`).toBeGreaterThan(from)
  return lines.slice(from, to + 1)
}

describe('the example suite’s intentional failure: one screen for a failing 4-level DAG', () => {
  let server: OpenAIServer
  let vitest: RunResult
  let jest: RunResult

  beforeAll(async () => {
    server = await startOpenAIServer(supportJudge)
    const env = { JUDGETREE_SHOW_FAILURE: '1', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-screen-0123' }
    // @judgetree/ai-sdk's examples test runs this example too, writing the same .judgetree/report.json: take turns.
    vitest = await withDirLock(join(EXAMPLES, 'walkthroughs', '.judgetree', 'e2e.lock'), () =>
      runExample('walkthroughs', 'vitest', ['tests/show-failure.test.ts'], env),
    )
    jest = await runExample('jest-quickstart', 'jest', ['tests/show-failure.test.ts'], env)
  }, 300_000)
  afterAll(async () => {
    await server?.close()
  })

  test('vitest run (default reporter)', () => {
    expect(vitest.code).toBe(1)
    // The failure, and judgetree's closing lines: the run's summary (Test Files, Tests) is printed above them.
    const screen = screenOf(vitest.output, ' FAIL  tests/show-failure.test.ts', 'judgetree: 1 evaluation')
    expect(screen.length).toBeLessThanOrEqual(40)
    expect(masked(vitest.output, { '<examples>': EXAMPLES })).toMatchInlineSnapshot(`
      "
       RUN  v4.1.12 <examples>/walkthroughs


      judgetree examples: judging with gpt-6-luna via http://127.0.0.1:<port>/v1.
      JUDGETREE_SHOW_FAILURE=1: tests/show-failure.test.ts fails on purpose, to show a failure report.

       ❯ tests/show-failure.test.ts (1 test | 1 failed) <time>
         × fails on purpose: a right answer, given rudely <time>

       Test Files  1 failed (1)
            Tests  1 failed (1)
         Start at  <clock>
         Duration  <time> (<phases>)



      ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

       FAIL  tests/show-failure.test.ts > fails on purpose: a right answer, given rudely
      Error: FAIL Support Answer: score 0.2 (threshold 0.5) · judge gpt-6-luna
      reason: The walk scored 0.2. “Tone” → Rudely: It tells the customer to read the policy next time.
      [1] Task "Claims": List every claim the actual output makes about returns and refunds. · 1 judge call
      │    Claims: 1. Books can be returned within 30 days. 2. Refunds go to the original payment method.
      └─ [2] Judgement "Window": Do the claims give the expected return window? → true · 1 judge call
         │    reason: Both say 30 days.
         ├─ ○ false → 0
         └─ ● true
            └─ [3] Judgement "Refund": Do the claims give the expected refund method? → true · 1 judge call
               │    reason: Both say the original payment method.
               ├─ ○ false → 3
               └─ ● true
                  └─ [4] Judgement "Tone": How does the actual output treat the customer? → Rudely · 1 judge call
                     │    reason: It tells the customer to read the policy next time.
                     ├─ ○ Warmly → 10
                     ├─ ○ Neutrally → 7
                     └─ ● Rudely → 2  ◀ score 0.2
       ❯ tests/show-failure.test.ts:75:3
           73|
           74| test.runIf(showFailure)('fails on purpose: a right answer, given rudel…
           75|   await expect(rightButRude).toPassMetric(supportAnswer)
             |   ^
           76| })
           77|

      ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯


      judgetree: 1 failed evaluation
        ✗ tests/show-failure.test.ts > fails on purpose: a right answer, given rudely · Support Answer: score 0.2 < threshold 0.5 · “Tone” → Rudely

      judgetree: JSON report in .judgetree/report.json
      judgetree: 1 evaluation, 0 passed, 1 failed, 0 errored · 4 judge calls (0 cached) · 60 tokens · $0.0000"
    `)
  })

  test('jest (default reporter and the judgetree reporter)', () => {
    expect(jest.code).toBe(1)
    // The failure, and judgetree's closing lines; Jest's summary (Test Suites, Tests) follows them.
    const screen = screenOf(jest.output, '  ● fails on purpose', 'judgetree: 1 evaluation')
    expect(screen.length).toBeLessThanOrEqual(40)
    expect(masked(jest.output, { '<examples>': EXAMPLES })).toMatchInlineSnapshot(`
      "
      judgetree Jest example: judging with gpt-6-luna via http://127.0.0.1:<port>/v1.
      JUDGETREE_SHOW_FAILURE=1: tests/show-failure.test.ts fails on purpose, to show a failure report.


      FAIL tests/show-failure.test.ts
        ✕ fails on purpose: a right answer, given rudely (<time>)

        ● fails on purpose: a right answer, given rudely

          FAIL Support Answer: score 0.2 (threshold 0.5) · judge gpt-6-luna
          reason: The walk scored 0.2. “Tone” → Rudely: It tells the customer to read the policy next time.
          [1] Task "Claims": List every claim the actual output makes about returns and refunds. · 1 judge call
          │    Claims: 1. Books can be returned within 30 days. 2. Refunds go to the original payment method.
          └─ [2] Judgement "Window": Do the claims give the expected return window? → true · 1 judge call
             │    reason: Both say 30 days.
             ├─ ○ false → 0
             └─ ● true
                └─ [3] Judgement "Refund": Do the claims give the expected refund method? → true · 1 judge call
                   │    reason: Both say the original payment method.
                   ├─ ○ false → 3
                   └─ ● true
                      └─ [4] Judgement "Tone": How does the actual output treat the customer? → Rudely · 1 judge call
                         │    reason: It tells the customer to read the policy next time.
                         ├─ ○ Warmly → 10
                         ├─ ○ Neutrally → 7
                         └─ ● Rudely → 2  ◀ score 0.2

            74 |
            75 | testIfShown('fails on purpose: a right answer, given rudely', async () => {
          > 76 |   await expect(rightButRude).toPassMetric(supportAnswer)
               |                              ^
            77 | })
            78 |

            at Object.toPassMetric (tests/show-failure.test.ts:76:30)


      judgetree: 1 failed evaluation
        ✗ tests/show-failure.test.ts > fails on purpose: a right answer, given rudely · Support Answer: score 0.2 < threshold 0.5 · “Tone” → Rudely

      judgetree: JSON report in .judgetree/report.json
      judgetree: 1 evaluation, 0 passed, 1 failed, 0 errored · 4 judge calls (0 cached) · 60 tokens · $0.0000

      Test Suites: 1 failed, 1 total
      Tests:       1 failed, 1 total
      Snapshots:   0 total
      Time: <time>
      Ran all test suites matching tests/show-failure.test.ts."
    `)
  })
})
