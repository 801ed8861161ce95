// The gate run both runners' e2e files share: toPassMetric's minPassProbability on the gate fixture, through the real
// OpenAI judges against a local server. Its decision judge is 97% sure the reply was polite and 72% sure the issue
// was resolved; its chat judge answers the same kind of question as a point, and scores every G-Eval sample 9. The
// suite is recorded once (JUDGETREE_CACHE=read-write, writing a baseline), replayed with no request, then run again
// with the judge less sure of politeness, which the baseline flags though every score held.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { decideEach, mostProbable, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { evaluationsOf, readReport } from './reports.js'
import { type RunResult, scratchDir } from './runner.js'

/** What a runner's run left: its output and the files it wrote. */
export interface GateRun extends RunResult {
  readonly report: string
  readonly summary: string
}

/** How sure the decision judge is of each question's `true`. */
function decisions(politeness: number) {
  return decideEach((question) =>
    mostProbable(true, JSON.stringify(question.instructions).includes('polite') ? politeness : 0.72),
  )
}

/**
 * Registers the suite; `run` starts the runner on the gate fixture with the given environment (the caller adds
 * JUnit or runner-specific flags) and `checks` adds the runner's own expectations on the recorded run.
 */
export function gateSuite(
  runner: 'vitest' | 'jest',
  run: (env: Record<string, string>, scratch: string, name: string) => Promise<RunResult>,
  checks: (recorded: () => GateRun, scratch: string) => void = () => {},
): void {
  describe(`minPassProbability in ${runner}: recorded, replayed with no request, then a fall in P(pass)`, () => {
    const scratch = scratchDir()
    const baseline = join(scratch, 'baseline.json')
    let server: OpenAIServer
    let recorded: GateRun
    let replayed: GateRun
    let lessSure: GateRun
    let recordedRequests: { chat: unknown[]; decisions: number }
    let replayedRequests: { chat: number; decisions: number }

    const runNamed = async (name: string, env: Record<string, string>): Promise<GateRun> => {
      const report = join(scratch, `${name}.json`)
      const summary = join(scratch, `${name}.md`)
      const result = await run(
        {
          OPENAI_BASE_URL: server.baseURL,
          OPENAI_API_KEY: 'sk-test-e2e-0123456789abcdef',
          JUDGETREE_CACHE_DIR: join(scratch, 'cache'),
          FIXTURE_REPORT_FILE: report,
          FIXTURE_BASELINE: baseline,
          GITHUB_STEP_SUMMARY: summary,
          ...env,
        },
        scratch,
        name,
      )
      return { ...result, report, summary }
    }

    beforeAll(async () => {
      server = await startOpenAIServer(
        (request) => {
          const format = JSON.stringify(request.body.response_format ?? '')
          const samples = request.body.n ?? 1
          return format.includes('"score"')
            ? { samples: Array.from({ length: samples }, () => ({ json: { reason: 'Answers it.', score: 9 } })) }
            : { json: { reason: 'It covers everything.', verdict: true } }
        },
        { decisions: decisions(0.97) },
      )
      recorded = await runNamed('recorded', { JUDGETREE_CACHE: 'read-write', JUDGETREE_UPDATE_BASELINE: '1' })
      recordedRequests = {
        chat: server.requests.map((request) => request.body),
        decisions: server.decisionRequests.length,
      }
      replayed = await runNamed('replayed', { JUDGETREE_CACHE: 'replay' })
      replayedRequests = { chat: server.requests.length, decisions: server.decisionRequests.length }
      server.decideWith(decisions(0.91))
      lessSure = await runNamed('less-sure', { JUDGETREE_CACHE: 'off', FIXTURE_TOLERANCE: '0.05' })
    }, 180_000)

    afterAll(async () => {
      await server?.close()
      rmSync(scratch, { recursive: true, force: true })
    })

    test('a sure pass clears the gate; an unsure one, a point answer and .not fail it, each saying why', () => {
      expect(recorded.code).toBe(1)
      const report = readReport(recorded.report)
      const state = (name: string) => report.tests.find((entry) => entry.name.endsWith(name))?.state
      expect(state('a sure pass clears the gate')).toBe('passed')
      expect(state('trials until decided')).toBe('passed')
      expect(state('an unsure pass fails the gate')).toBe('failed')
      expect(state('a point answer has no probability to gate on')).toBe('failed')
      expect(state('.not with a gate is refused')).toBe('failed')

      const output = recorded.output
      // The failure header, then the gate's line (Jest indents the message).
      expect(output).toMatch(
        /FAIL Resolved: score 1 \(threshold 0\.5, minPassProbability 0\.9\) · P\(pass\) 0\.72 · judge gpt-4\.1 · decisions gpt-6-luna\n\s*gate: P\(pass\) 0\.72 is below minPassProbability 0\.9\n/,
      )
      expect(output).toContain(
        'gate: minPassProbability 0.9 needs a pass probability, and this measurement has none: [n1] “Was the reply ' +
          'complete?” was answered without probabilities (logprobs were not requested). Get one with a decision judge',
      )
      expect(output).toContain('expect(testCase).not.toPassMetric(metric, { minPassProbability }) is ambiguous')
      // The closing list names the chance and the most uncertain decision.
      expect(output).toContain(
        'Resolved: score 1 ≥ threshold 0.5, but P(pass) 0.72 is below minPassProbability 0.9 · “Was the issue resolved?” → true · most uncertain: [n1] Was the issue resolved? → true (0.72)',
      )
      expect(output).toContain(
        'Complete: score 1 ≥ threshold 0.5, but it has no P(pass) to hold to minPassProbability 0.9 (the failure says how to get one)',
      )
    })

    test('report.json keeps the chance and the minimum; the step summary shows P(pass) beside the score', () => {
      const report = readReport(recorded.report)
      const [unsure] = evaluationsOf(report, 'an unsure pass fails the gate')
      expect(unsure).toMatchObject({
        score: 1,
        success: false,
        assertionPassed: false,
        minPassProbability: 0.9,
        passProbability: {
          p: 0.72,
          source: 'judge',
          pivot: { node: 'n1', label: 'Was the issue resolved?', verdict: true, probability: 0.72 },
        },
      })
      const [point] = evaluationsOf(report, 'a point answer has no probability to gate on')
      expect(point?.passProbability).toBeUndefined()
      expect(point?.passProbabilityUnavailable).toMatch(
        /^\[n1\] “Was the reply complete\?” was answered without probabilities \(logprobs were not requested\); for P\(pass\), /,
      )
      const summary = readFileSync(recorded.summary, 'utf8')
      expect(summary).toContain(
        '| ❌ | Resolved | 1 · P(pass) 0.72 | 0.5 | tests/gate.test.ts &gt; an unsure pass fails the gate |',
      )
      expect(summary).toContain(
        '| ✅ | Polite | 1 · P(pass) 0.97 | 0.5 | tests/gate.test.ts &gt; a sure pass clears the gate |',
      )
    })

    test("until: 'decided' stops at four samples in one request, and replay asks nothing", () => {
      // One chat request for the G-Eval (four samples: the fewest whose all passing decides against 0.5), one for the
      // point-answer DAG; the decisions of the two sure DAGs (the .not one was refused before measuring).
      const geval = recordedRequests.chat.filter((body) => JSON.stringify(body).includes('"score"'))
      expect(geval).toHaveLength(1)
      expect(geval[0]).toMatchObject({ n: 4, temperature: 1 })
      expect(recordedRequests.chat).toHaveLength(2)
      expect(recordedRequests.decisions).toBeGreaterThanOrEqual(1)
      const [trials] = evaluationsOf(readReport(recorded.report), 'trials until decided')
      expect(trials?.trials).toHaveLength(4)
      expect(trials?.passProbability).toMatchObject({ p: 1, source: 'trials', stopped: 'decided' })

      expect(replayed.code).toBe(1)
      expect(replayedRequests).toEqual({ chat: recordedRequests.chat.length, decisions: recordedRequests.decisions })
      const [again] = evaluationsOf(readReport(replayed.report), 'trials until decided')
      expect(again?.trials).toHaveLength(4)
      expect(again?.passProbability).toMatchObject({ p: 1, stopped: 'decided' })
      // The one request that answered the four samples, now from the cache: counted as it was recorded.
      expect(trials?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 0 })
      expect(again?.usage).toMatchObject({ judgeCalls: 1, cachedCalls: 1, promptTokens: 0 })
    })

    test('the baseline keeps P(pass), and flags its fall though the score held; failOnRegression fails on it', () => {
      const entries = JSON.parse(readFileSync(baseline, 'utf8')).entries as { test: string; passProbability?: number }[]
      expect(entries.find((entry) => entry.test.endsWith('a sure pass clears the gate'))?.passProbability).toBe(0.97)
      expect(replayed.output).not.toMatch(/▼ /)
      expect(lessSure.output).toMatch(
        /▼ tests\/gate\.test\.ts > [^\n]*a sure pass clears the gate #1 · Polite: 1 → 1 \(±0\) · P\(pass\) 0\.97 → 0\.91/,
      )
      expect(lessSure.output).toContain(
        'judgetree: failOnRegression: 1 score or P(pass) fell below the baseline by more than 0.05; the run fails.',
      )
    })

    checks(() => recorded, scratch)
  })
}
