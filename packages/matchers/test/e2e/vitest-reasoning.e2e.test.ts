// The trials fixture (a G-Eval through the real OpenAI judge, five trials per aggregate) run by the real Vitest CLI
// against a judge that behaves like a reasoning model: it takes temperature 1, which trials send, and refuses
// logprobs. The run passes as it would, says once why, and every evaluation's trace says G-Eval used the raw score.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { evaluationsOf, readReport } from './support/reports.js'
import { type RunResult, runVitest, scratchDir } from './support/runner.js'

describe('trials against a reasoning model that refuses logprobs, through the Vitest matchers', () => {
  const scratch = scratchDir()
  const reportFile = join(scratch, 'report.json')
  let server: OpenAIServer
  let run: RunResult

  beforeAll(async () => {
    server = await startOpenAIServer(
      (request) => ({
        samples: Array.from({ length: request.body.n ?? 1 }, () => ({ json: { reason: 'Correct.', score: 8 } })),
      }),
      { reasoningModel: true },
    )
    run = await runVitest('vitest-trials', ['run'], {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-test-e2e-reasoning-0123456789',
      JUDGETREE_CACHE: 'off',
      FIXTURE_REPORT_FILE: reportFile,
    })
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('every aggregate passes on the raw score, and the refusal is warned once', () => {
    expect(run.code).toBe(0)
    const warnings = run.output.split('judgetree: the judge model "gpt-4.1" at').length - 1
    expect(warnings).toBe(1)
    expect(run.output).toContain(
      "refused logprobs: Unsupported parameter: 'logprobs' is not supported with this model.",
    )
    for (const aggregate of ['mean', 'median', 'min', 'majority']) {
      const [record] = evaluationsOf(readReport(reportFile), `five trials, ${aggregate}`)
      expect(record?.score).toBeCloseTo(0.8, 10)
      expect(JSON.stringify(record?.trace)).toContain(
        'raw score: the model \\"gpt-4.1\\" does not accept logprobs (Unsupported parameter:',
      )
    }
  })

  test('the refused call is made again without logprobs; trials keep temperature 1 and n, which the model takes', () => {
    const [refused, ...answered] = server.requests.map(({ body }) => [body.n, body.temperature, body.logprobs])
    expect(refused).toEqual([5, 1, true])
    expect(answered).toEqual(Array(4).fill([5, 1, undefined]))
  })
})
