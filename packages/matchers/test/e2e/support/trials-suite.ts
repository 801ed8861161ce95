// The trials run both runners' e2e files share: a G-Eval with { trials: 5, aggregate } for each aggregate, through
// the real OpenAI judge against a local server that scores 2, 9, 4, 8, 9 over five samples, after answering its first
// request with a 429. Recorded once with JUDGETREE_CACHE=read-write, then replayed with JUDGETREE_CACHE=replay.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { evaluationsOf, readReport } from './reports.js'
import { type RunResult, scratchDir } from './runner.js'

const FLAKY = [2, 9, 4, 8, 9]

/** Registers the suite; `run` starts the runner on the trials fixture with the given environment. */
export function trialsSuite(run: (env: Record<string, string>) => Promise<RunResult>): void {
  describe('trials: a flaky judge, five trials per aggregate; recorded, then replayed with no request', () => {
    const scratch = scratchDir()
    let server: OpenAIServer
    let recorded: RunResult
    let replayed: RunResult
    let requestsWhileRecording = 0

    beforeAll(async () => {
      server = await startOpenAIServer((request) =>
        // The one call that asks for all five samples is rate limited once: the runtime retries it like any call.
        request.index === 0
          ? { status: 429, headers: { 'retry-after-ms': '50' }, error: { message: 'Rate limit reached' } }
          : {
              samples: Array.from({ length: request.body.n ?? 1 }, (_, index) => {
                const score = FLAKY[index % FLAKY.length] as number
                return { json: { reason: `Scored ${score}.`, score } }
              }),
            },
      )
      const env = (mode: string, name: string) => ({
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
        JUDGETREE_CACHE: mode,
        JUDGETREE_CACHE_DIR: join(scratch, 'cache'),
        FIXTURE_REPORT_FILE: join(scratch, `${name}.json`),
      })
      recorded = await run(env('read-write', 'recorded'))
      requestsWhileRecording = server.requests.length
      replayed = await run(env('replay', 'replayed'))
    }, 120_000)

    afterAll(async () => {
      await server?.close()
      rmSync(scratch, { recursive: true, force: true })
    })

    test('each aggregate decides from the same five trials; only min fails', () => {
      expect(recorded.code).toBe(1)
      expect(recorded.output).toContain(
        'FAIL Correctness: score 0.2 (threshold 0.5) · 3/5 trials passed, scores 0.2–0.9 (min) · P(pass) 0.60 · judge gpt-4.1',
      )
      const report = readReport(join(scratch, 'recorded.json'))
      const outcome = (aggregate: string) => {
        const [record] = evaluationsOf(report, `five trials, ${aggregate}`)
        const score = Math.round((record?.score ?? Number.NaN) * 1000) / 1000
        return [score, record?.passRate, record?.success, record?.trials?.map((trial) => trial.score)]
      }
      const trials = [0.2, 0.9, 0.4, 0.8, 0.9]
      expect(outcome('mean')).toEqual([0.64, 0.6, true, trials])
      expect(outcome('median')).toEqual([0.8, 0.6, true, trials])
      expect(outcome('min')).toEqual([0.2, 0.6, false, trials])
      expect(outcome('majority')).toEqual([0.8, 0.6, true, trials])
    })

    test('one request asks for all five samples (n: 5) at temperature 1, again after its 429; the others find each trial cached', () => {
      expect(requestsWhileRecording).toBe(2)
      expect(server.requests[0]?.body).toMatchObject({ n: 5, temperature: 1 })
      expect(server.requests[1]?.body).toMatchObject({ n: 5, temperature: 1 })
      const report = readReport(join(scratch, 'recorded.json'))
      // The request that answered the five trials is one call; the other aggregates find it cached, as one call.
      const [mean] = evaluationsOf(report, 'five trials, mean')
      expect(mean?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0 })
      const [median] = evaluationsOf(report, 'five trials, median')
      expect(median?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1 })
    })

    test('replay reproduces every trial with no request', () => {
      expect(server.requests).toHaveLength(requestsWhileRecording)
      expect(replayed.code).toBe(1)
      expect(replayed.output).toContain('3/5 trials passed, scores 0.2–0.9 (min)')
      const scores = (file: string) =>
        readReport(join(scratch, file)).tests.flatMap((entry) =>
          entry.evaluations.map((record) => [entry.name, record.score, record.trials?.map((trial) => trial.score)]),
        )
      expect(scores('replayed.json')).toEqual(scores('recorded.json'))
      const [replay] = evaluationsOf(readReport(join(scratch, 'replayed.json')), 'five trials, mean')
      expect(replay?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1, promptTokens: 0 })
    })

    test('the replay counts the judge calls the recording counted, all cached', () => {
      const counts = (run: RunResult) => /· (\d+) judge calls \((\d+) cached\)/.exec(run.output)?.slice(1).map(Number)
      expect(counts(recorded)).toEqual([4, 3])
      expect(counts(replayed)).toEqual([4, 4])
      const summary = (file: string) => readReport(join(scratch, file)).summary
      expect(summary('replayed.json')).toMatchObject({ judgeCalls: 4, cachedCalls: 4 })
      expect(summary('recorded.json')).toMatchObject({ judgeCalls: 4, cachedCalls: 3 })
    })
  })
}
