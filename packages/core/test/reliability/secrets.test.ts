import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { ConversationalDAGMetric, evaluate, type MetricResult, OpenAIJudge, renderResult } from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { PLAYFUL, playfulChatbotDag, playfulConversation } from '../support/walkthroughs.js'

const FAKE_KEY = 'sk-test-SECRET-0123456789abcdefXYZ'
let server: OpenAIServer
let cacheDir: string

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'judgetree-secrets-'))
  // A careless server: it echoes the Authorization header in its errors and in its answers.
  server = await startOpenAIServer((request) => {
    const header = String(request.headers.authorization)
    const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
    if (request.body.model === 'leaky-errors') return { status: 401, error: { message: `Invalid key: ${header}` } }
    if (prompt.includes(PLAYFUL.summary)) return { json: { output: `Summary (auth was ${header})` } }
    if (prompt.includes(PLAYFUL.satisfied)) return { json: { reason: 'ok', verdict: true } }
    return { json: { reason: 'ok', verdict: 'Neutral' } }
  })
})
afterAll(async () => {
  await server.close()
  rmSync(cacheDir, { recursive: true, force: true })
})

/** Everything a result can show a person or a program: its JSON, its rendering, its error's cause chain. */
function everything(result: MetricResult): string {
  const causes: string[] = []
  for (let error: unknown = result.error; error instanceof Error; error = error.cause) {
    causes.push(`${error.name}: ${error.message}\n${error.stack ?? ''}`)
  }
  return [JSON.stringify(result), renderResult(result), ...causes].join('\n')
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

test('a recognisable API key never reaches results, traces, errors, console output or cache files', async () => {
  vi.stubEnv('OPENAI_API_KEY', FAKE_KEY)
  const log = vi.spyOn(console, 'log').mockImplementation(() => {})
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir })
  try {
    const metric = (model: string) =>
      new ConversationalDAGMetric({
        name: model,
        dag: playfulChatbotDag(),
        model: runtime.wrap(new OpenAIJudge({ model, baseURL: server.baseURL, maxRetries: 0 })),
        verboseMode: true,
      })
    const failing = await metric('leaky-errors').measure(playfulConversation)
    const passing = await metric('leaky-answers').measure(playfulConversation)
    const evaluation = await evaluate([playfulConversation], [metric('leaky-answers')], {
      progress: false,
      summary: false,
    })
    expect(failing.error?.code).toBe('JUDGE_CALL_FAILED')
    expect(passing.score).toBe(0.5)
    expect(server.requests.some((request) => String(request.headers.authorization).includes(FAKE_KEY))).toBe(true)

    const printed = [...log.mock.calls, ...warn.mock.calls].flat().map(String).join('\n')
    const cacheFiles = filesUnder(cacheDir)
    expect(cacheFiles.length).toBeGreaterThan(0)
    const surfaces = {
      failing: everything(failing),
      passing: everything(passing),
      evaluation: JSON.stringify(evaluation),
      console: printed,
      cache: cacheFiles.map((file) => readFileSync(file, 'utf8')).join('\n'),
    }
    for (const [surface, text] of Object.entries(surfaces)) {
      expect(text.includes(FAKE_KEY), `${surface} shows the key`).toBe(false)
      expect(text.includes('SECRET-0123456789'), `${surface} shows part of the key`).toBe(false)
    }
    expect(surfaces.failing).toContain('sk-***')
  } finally {
    log.mockRestore()
    warn.mockRestore()
    vi.unstubAllEnvs()
  }
})
