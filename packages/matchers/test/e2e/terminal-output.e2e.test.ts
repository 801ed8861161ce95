// What a default run prints for a failing evaluation, pinned whole (durations masked): the tree once, in the
// runner's failure; the judgetree closing summary in one line; no annotation under the failure (only the terminal
// would show it, and it would repeat the failure's first lines). Runs on this package's
// Vitest 4 and Jest 30 (other versions word their own output differently; compat runs the other e2e files).
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { playfulJudge } from './support/playful-judge.js'
import { fixture, masked as maskedOutput, runJest, runVitest, scratchDir } from './support/runner.js'

const scratch = scratchDir()

/** Timings, temporary paths and the server's port change from run to run. */
function masked(output: string): string {
  return maskedOutput(output, { '<fixtures>': fixture(''), '<scratch>': scratch })
}

describe('one copy of the tree per terminal', () => {
  let server: OpenAIServer

  beforeAll(async () => {
    server = await startOpenAIServer(playfulJudge())
  })
  afterAll(async () => {
    await server?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('vitest run (default reporter)', async () => {
    const run = await runVitest('vitest-html', ['run'], {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-test-terminal-0123456789',
    })
    expect(run.output.split('└─ ● false → 3  ◀ score 0.3').length - 1).toBe(1)
    expect(masked(run.output)).toMatchInlineSnapshot(`
      "
       RUN  v4.1.12 <fixtures>/vitest-html

       ❯ tests/chatbot.test.ts (2 tests | 1 failed) <time>
         ✓ passes a playful conversation <time>
         × fails a flat conversation <time>

       Test Files  1 failed (1)
            Tests  1 failed | 1 passed (2)
         Start at  <clock>
         Duration  <time> (<phases>)



      ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

       FAIL  tests/chatbot.test.ts > fails a flat conversation
      Error: FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge gpt-4.1
      reason: The walk scored 0.3. “Playful?” → false: A bare number is not playful.
      [1] Task "Describe tone": Describe the assistant's tone in one sentence. · 1 judge call
      │    Tone: The assistant answers flatly.
      └─ [2] Judgement "Playful?": Is the assistant playful, based on the description of its tone? → false · 1 judge call
         │    reason: A bare number is not playful.
         ├─ ○ true → 9
         └─ ● false → 3  ◀ score 0.3
       ❯ tests/chatbot.test.ts:10:3
            8|
            9| test('fails a flat conversation', async () => {
           10|   await expect(flatConversation).toPassMetric(playfulChatbot('gpt-4.1'…
             |   ^
           11| })
           12|

      ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯


      judgetree: 1 failed evaluation
        ✗ tests/chatbot.test.ts > fails a flat conversation · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false

      judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored · 4 judge calls (0 cached) · 60 tokens · $0.0002"
    `)
  }, 60_000)

  test('jest (default reporter and the judgetree reporter)', async () => {
    const run = await runJest('jest-reporters', [], { FIXTURE_REPORT_FILE: join(scratch, 'report.json') })
    expect(run.output.split('└─ ● false → 3  ◀ score 0.3').length - 1).toBe(1)
    expect(masked(run.output)).toMatchInlineSnapshot(`
      "
      FAIL tests/chatbot.test.ts
        ✓ passes a playful conversation (<time>)
        ✕ fails a flat conversation (<time>)

        ● fails a flat conversation

          FAIL Playful Chatbot: score 0.3 (threshold 0.7) · judge scripted-judge
          reason: The walk scored 0.3. “Playful?” → false: The assistant states a number and nothing else.
          [1] Task "Describe tone": Describe the assistant's tone in one sentence. · 1 judge call
          │    Tone: The assistant answers flatly.
          └─ [2] Judgement "Playful?": Is the assistant playful, based on the description of its tone? → false · 1 judge call
             │    reason: The assistant states a number and nothing else.
             ├─ ○ true → 9
             └─ ● false → 3  ◀ score 0.3

             7 |
             8 | test('fails a flat conversation', async () => {
          >  9 |   await expect(flatConversation).toPassMetric(playfulChatbot())
               |                                  ^
            10 | })
            11 |

            at Object.toPassMetric (tests/chatbot.test.ts:9:34)


      judgetree: 1 failed evaluation
        ✗ tests/chatbot.test.ts > fails a flat conversation · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false

      judgetree: JSON report in <scratch>/report.json
      judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored · 4 judge calls (0 cached) · 0 tokens · $0.0000

      Test Suites: 1 failed, 1 total
      Tests:       1 failed, 1 passed, 2 total
      Snapshots:   0 total
      Time: <time>
      Ran all test suites."
    `)
  }, 60_000)
})
