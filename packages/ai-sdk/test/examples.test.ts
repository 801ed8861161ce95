// The example suite's walkthroughs (examples/walkthroughs) run with JUDGETREE_JUDGE=ai-sdk, so every metric judges
// through aiSdkJudge and the AI SDK's OpenAI provider, against the local server answering what the examples'
// scripted judges answer offline: the same tests pass and fail as offline. Needs the packages built (CI builds first).
import { spawn } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import {
  lastUserMessage,
  type RecordedRequest,
  type ScriptedReply,
  unicodeEscaped,
  useOpenAIServer,
  withDirLock,
} from '@judgetree/test-support'
import { expect, test } from 'vitest'
import { promptData } from '../../core/test/support/walkthroughs.js'

const exampleDir = fileURLToPath(new URL('../../../examples/walkthroughs/', import.meta.url))
/** Held while a test runs the example: matchers' example-failure e2e runs it too, writing the same report.json. */
const exampleLock = `${exampleDir}.judgetree/e2e.lock`
const API_KEY = 'sk-test-examples-0123456789abcdef'

/** The examples' offline answers, routed on the task part of the prompt, checked in this order. */
function exampleAnswer(request: RecordedRequest): ScriptedReply {
  const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
  const answer = (value: unknown): ScriptedReply => ({ json: value })
  if (prompt.includes('Summarize the conversation')) {
    return answer({
      output: 'The user asked about the weather in Paris and an umbrella. The assistant teased the user but answered.',
    })
  }
  if (prompt.includes("satisfy user's questions"))
    return answer({ reason: 'Each question ends up answered.', verdict: true })
  if (prompt.includes('behaviour towards user'))
    return answer({ reason: 'Teasing, but not hostile.', verdict: 'Neutral' })
  if (prompt.includes('Extract all headings')) return answer({ output: 'Intro, Body, Conclusion' })
  if (prompt.includes('contain all three')) return answer({ reason: 'All present.', verdict: true })
  if (prompt.includes('correct order')) return answer({ reason: 'In order.', verdict: 'Yes' })
  if (prompt.includes('Write the evaluation steps'))
    return answer({ steps: ['Compare the facts with the expected output.'] })
  if (prompt.includes('Evaluate it by following these steps')) {
    const actual = String(promptData(request)['Actual Output'] ?? '')
    return answer(
      actual.includes('100 degrees') ? { reason: 'Consistent.', score: 10 } : { reason: 'Contradicts.', score: 1 },
    )
  }
  return { status: 500, error: { message: `no example answer for: ${lastUserMessage(request).slice(0, 120)}` } }
}

const server = useOpenAIServer(exampleAnswer)

function runExamples(
  files: string[],
  env: Record<string, string | undefined> = {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: API_KEY,
    JUDGETREE_JUDGE: 'ai-sdk',
    // Named, so that the costs below are gpt-4.1's whatever the examples' default model.
    JUDGETREE_MODEL: 'gpt-4.1',
  },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...files], {
      cwd: exampleDir,
      env: withoutUnset({ ...process.env, ...env, JUDGETREE_CACHE: 'off', NO_COLOR: '1', CI: 'true' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

test(
  'the playful-chatbot, meeting-summary and G-Eval examples pass through aiSdkJudge as they do offline',
  () =>
    withDirLock(exampleLock, async () => {
      const { code, output } = await runExamples([
        'tests/playful-chatbot.test.ts',
        'tests/meeting-summary.test.ts',
        'tests/geval-correctness.test.ts',
      ])
      expect(output).toContain('through the AI SDK (@judgetree/ai-sdk)')
      expect(output).toMatch(/Tests\s+5 passed \(5\)/)
      expect(code).toBe(0)
      // 3 playful + 3 meeting calls per way of building it, and for G-Eval the steps once and one score per answer.
      expect(server.requests).toHaveLength(12)
      expect(new Set(server.requests.map((request) => request.body.model))).toEqual(new Set(['gpt-4.1']))
      expect(server.requests.every((request) => request.headers.authorization === `Bearer ${API_KEY}`)).toBe(true)
      expect(output).not.toContain(API_KEY)
      // The judgetree reporter's summary: as offline, the .not.toPassMetric test's evaluation counts as failed, and the G-Eval
      // steps are generated once for both answers; tokens and cost are the server's usage priced as gpt-4.1.
      expect(output).toContain(
        'judgetree: 5 evaluations, 4 passed, 1 failed (1 expected by .not), 0 errored · 13 judge calls (1 cached) · 180 tokens · $0.0007',
      )
    }),
  240_000,
)

/** The environment with every variable set to undefined left out, rather than passed on as the text "undefined". */
function withoutUnset(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

interface ReportTest {
  file: string
  name: string
  state: string
  evaluations: {
    name: string
    score: number | null
    success: boolean
    reason: string | null
    error: unknown
    trace?: { nodes: { label?: string; status?: string; verdict?: unknown; score?: unknown }[] }
  }[]
}

/** What a run decided, per test and verdict: everything but timings, tokens, cost and the judge's name. */
async function outcomes(): Promise<unknown> {
  const report = JSON.parse(await readFile(`${exampleDir}.judgetree/report.json`, 'utf8')) as {
    summary: Record<string, number>
    tests: ReportTest[]
  }
  const { evaluations, passed, failed, expectedFailures, errored, judgeCalls, cachedCalls } = report.summary
  return {
    summary: { evaluations, passed, failed, expectedFailures, errored, judgeCalls, cachedCalls },
    tests: report.tests.map((test) => ({
      test: `${test.file} > ${test.name}: ${test.state}`,
      evaluations: test.evaluations.map((evaluation) => ({
        metric: evaluation.name,
        score: evaluation.score,
        success: evaluation.success,
        reason: evaluation.reason,
        error: evaluation.error,
        path: evaluation.trace?.nodes.map((node) => [node.label, node.status, node.verdict, node.score]),
      })),
    })),
  }
}

test(
  'every example file gives the same scores, verdicts and paths through aiSdkJudge over HTTP as offline',
  () =>
    withDirLock(exampleLock, async () => {
      // JUDGETREE_SHOW_FAILURE=1 brings in the one example that fails on purpose, so all 8 files run.
      await rm(`${exampleDir}.judgetree/report.json`, { force: true })
      const offline = await runExamples([], {
        JUDGETREE_SHOW_FAILURE: '1',
        OPENAI_API_KEY: undefined,
        OPENAI_BASE_URL: undefined,
      })
      expect(offline.output).toContain('the judge is SCRIPTED')
      const expected = await outcomes()
      // All 8 files: 14 evaluations, 11 passing, 2 failing under .not and the one failing on purpose.
      expect(expected).toMatchObject({
        summary: { evaluations: 14, passed: 11, failed: 3, expectedFailures: 2, errored: 0 },
      })

      await rm(`${exampleDir}.judgetree/report.json`, { force: true })
      // Each example's offline answers, served by a server in the test worker: every call crosses the AI SDK and HTTP.
      const throughAiSdk = await runExamples([], {
        JUDGETREE_SHOW_FAILURE: '1',
        JUDGETREE_JUDGE: 'ai-sdk-loopback',
        // Named, so that the usage below is priced (as gpt-4.1's) whatever the examples' default model.
        JUDGETREE_MODEL: 'gpt-4.1',
        OPENAI_API_KEY: undefined,
        OPENAI_BASE_URL: undefined,
      })
      expect(throughAiSdk.output).toContain('served over HTTP on 127.0.0.1 and judged through the AI SDK')
      expect(throughAiSdk.output).toMatch(/Test Files\s+1 failed \| 7 passed \(8\)/)
      expect(throughAiSdk.code).toBe(offline.code)
      expect(await outcomes()).toEqual(expected)
      // The offline run reports no tokens; the HTTP run reports the server's usage, priced as gpt-4.1.
      expect(offline.output).toMatch(/judge calls \(\d+ cached\) · 0 tokens/)
      expect(throughAiSdk.output).toMatch(/judge calls \(\d+ cached\) · [1-9]\d* tokens · \$0\.\d+/)
    }),
  300_000,
)

test(
  'through real Vitest, a key that is not sk-shaped, echoed by the server, reaches neither the output nor report.json',
  () =>
    withDirLock(exampleLock, async () => {
      // An Azure-style key (32 hex characters): only the key itself, read from the provider, can find it.
      const key = 'a3f9c2e1b7d4058f6e2a9c1d3b5f7e80'
      server.respondWith((request) => {
        const reply = exampleAnswer(request)
        const value = reply.json as Record<string, unknown> | undefined
        if (value === undefined || typeof value.reason !== 'string') return reply
        // Raw in the reason, and \u-escaped so that it decodes into the key only when the answer is parsed.
        const reason = `${value.reason} (auth ${String(request.headers.authorization)})`
        return { content: JSON.stringify({ ...value, reason }).replace('(auth', `(${unicodeEscaped(key)}, auth`) }
      })
      await rm(`${exampleDir}.judgetree/report.json`, { force: true })
      const { code, output } = await runExamples(['tests/playful-chatbot.test.ts', 'tests/meeting-summary.test.ts'], {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: key,
        JUDGETREE_JUDGE: 'ai-sdk',
      })
      expect(server.requests.every((request) => request.headers.authorization === `Bearer ${key}`)).toBe(true)
      const report = await readFile(`${exampleDir}.judgetree/report.json`, 'utf8')
      expect(report).toContain('(sk-***, auth Bearer sk-***)')
      for (const form of [key, unicodeEscaped(key), key.slice(4, -4)]) {
        expect(output.includes(form), `the output shows ${form}`).toBe(false)
        expect(report.includes(form), `report.json shows ${form}`).toBe(false)
      }
      expect(output).toMatch(/Tests\s+\d+ passed/)
      expect(code).toBe(0)
    }),
  240_000,
)
