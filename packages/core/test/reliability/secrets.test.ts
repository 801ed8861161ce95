import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  bearerKey,
  type OpenAIServer,
  type RecordedRequest,
  type ScriptedReply,
  startOpenAIServer,
  unicodeEscaped,
} from '@judgetree/test-support'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { z } from 'zod'
import {
  ConfigurationError,
  ConversationalDAGMetric,
  evaluate,
  type JudgeModel,
  type MetricResult,
  OpenAIJudge,
  renderResult,
} from '../../src/index.js'
import { createJudgeRuntime, scrubSecrets } from '../../src/runtime.js'
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
    if (request.body.model.startsWith('echo-')) return echoing(request, prompt)
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

/**
 * A hostile server that hides the key it was sent in its answers, in the encodings a scrubber of raw text misses:
 * `\\u`-escaped inside the JSON answer (it decodes into the key when parsed), URL-encoded, and split across the
 * logprob tokens it returns.
 */
function echoing(request: RecordedRequest, prompt: string): ScriptedReply {
  const key = bearerKey(request)
  const hidden =
    request.body.model === 'echo-url'
      ? encodeURIComponent(key)
      : request.body.model === 'echo-unicode'
        ? unicodeEscaped(key)
        : key.replace(/-/g, '\\u002d')
  const answer = prompt.includes(PLAYFUL.summary)
    ? `{"output": "Summary: the key is ${hidden}"}`
    : prompt.includes(PLAYFUL.satisfied)
      ? `{"reason": "key ${hidden}", "verdict": true}`
      : `{"reason": "key ${hidden}", "verdict": "Neutral"}`
  // The answer as tokens of 3 characters: the key is split across several of them, and offered as an alternative.
  const logprobs = Array.from({ length: Math.ceil(answer.length / 3) }, (_, at) => ({
    token: answer.slice(at * 3, at * 3 + 3),
    logprob: -0.01,
    top: { [key]: -5 },
  }))
  // Asked for several samples at once (trials with `n`), it hides the key in every one of them.
  const samples = Array.from({ length: request.body.n ?? 1 }, () => ({ content: answer, logprobs }))
  return { content: answer, logprobs, samples }
}

const OPTION_KEY = 'test-canary-passed-as-option-7f3a9c2e'

test.each(['echo-unicode', 'echo-url', 'echo-mixed'])(
  'a key the server hides in its answer (%s) and its logprob tokens reaches no result, report or cache file',
  async (model) => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const dir = mkdtempSync(join(tmpdir(), 'judgetree-echo-'))
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, warn: () => {} })
    try {
      const metric = new ConversationalDAGMetric({
        name: model,
        dag: playfulChatbotDag(),
        // Passed as an option, not in the environment: the cache's own safety net knows only OPENAI_API_KEY.
        model: runtime.wrap(new OpenAIJudge({ model, baseURL: server.baseURL, apiKey: OPTION_KEY, maxRetries: 0 })),
        verboseMode: true,
      })
      const result = await metric.measure(playfulConversation)
      expect(result.error).toBeUndefined()
      expect(result.verboseLogs).toContain('sk-***')
      const files = filesUnder(dir)
      const cache = files.map((file) => readFileSync(file, 'utf8'))
      // Three entries and the cache's .gitignore (and its memory of model lookups, once the lookup has ended).
      expect(files.filter((file) => !file.endsWith('.model-lookups'))).toHaveLength(4)
      const surfaces = {
        result: everything(result),
        console: log.mock.calls.flat().map(String).join('\n'),
        cache: cache.join('\n'),
      }
      const forms = [OPTION_KEY, unicodeEscaped(OPTION_KEY), encodeURIComponent(OPTION_KEY), 'passed-as-option']
      for (const [surface, text] of Object.entries(surfaces)) {
        for (const form of forms) expect(text.includes(form), `${surface} shows ${form}`).toBe(false)
      }
    } finally {
      log.mockRestore()
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

test('with trials asked for in one request (n), no sample carries the hidden key into a result or cache file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'judgetree-echo-trials-'))
  const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, warn: () => {} })
  try {
    const judge = new OpenAIJudge({ model: 'echo-unicode', baseURL: server.baseURL, apiKey: OPTION_KEY, maxRetries: 0 })
    const metric = new ConversationalDAGMetric({
      name: 'echo-unicode trials',
      dag: playfulChatbotDag(),
      model: runtime.wrap(judge),
      trials: 3,
    })
    const before = server.requests.length
    const result = await metric.measure(playfulConversation)
    expect(result.error).toBeUndefined()
    expect(result.trials).toHaveLength(3)
    // One request per step for all three trials: the samples came back together.
    expect(server.requests.slice(before).map((request) => request.body.n)).toEqual([3, 3, 3])
    const shown = [everything(result), ...filesUnder(dir).map((file) => readFileSync(file, 'utf8'))].join('\n')
    expect(shown).toContain('sk-***')
    for (const form of [OPTION_KEY, unicodeEscaped(OPTION_KEY), 'passed-as-option']) {
      expect(shown.includes(form), form).toBe(false)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.each([
  ['a line feed', 'sk-test-line\nfeed-0123456789'],
  ['a carriage return', 'sk-test-carriage\rreturn-0123456789'],
  ['a NUL', 'sk-test-nul\u0000char-0123456789'],
])('a key with %s inside is refused with a clear error that does not print it', async (_, key) => {
  // An environment variable cannot hold a NUL, so that key is tried as an option only.
  for (const setup of key.includes('\u0000') ? (['option'] as const) : (['option', 'environment'] as const)) {
    if (setup === 'environment') vi.stubEnv('OPENAI_API_KEY', key)
    const judge = new OpenAIJudge({
      model: 'gpt-4.1',
      baseURL: server.baseURL,
      maxRetries: 0,
      ...(setup === 'option' ? { apiKey: key } : {}),
    })
    const result = await new ConversationalDAGMetric({
      name: 'Bad key',
      dag: playfulChatbotDag(),
      model: judge,
    }).measure(playfulConversation)
    vi.unstubAllEnvs()
    expect(result.error?.code, setup).toBe('CONFIGURATION_INVALID')
    expect(result.error?.message, setup).toContain('contains a control character')
    expect(result.error?.message, setup).toContain(setup === 'option' ? 'the apiKey option' : 'OPENAI_API_KEY')
    const shown = everything(result)
    for (const part of key.split(/\r|\n|\0/)) expect(shown.includes(part), `${setup}: ${part}`).toBe(false)
  }
})

describe('a base URL with credentials in it', () => {
  const PASSWORD = 'SECRETPASS1234'
  const withCredentials = () => server.baseURL.replace('http://', `http://user:${PASSWORD}@`)

  test.each(['the baseURL option', 'OPENAI_BASE_URL', "a client's baseURL"])(
    'is refused from %s with a ConfigurationError that does not print the password',
    (setting) => {
      if (setting === 'OPENAI_BASE_URL') vi.stubEnv('OPENAI_BASE_URL', withCredentials())
      try {
        const make = () =>
          new OpenAIJudge({
            apiKey: FAKE_KEY,
            ...(setting === 'the baseURL option' ? { baseURL: withCredentials() } : {}),
            ...(setting === "a client's baseURL"
              ? { client: new OpenAI({ apiKey: FAKE_KEY, baseURL: withCredentials() }) }
              : {}),
          })
        expect(make).toThrow(ConfigurationError)
        const message = messageOf(make)
        expect(message).toContain('holds credentials before its host')
        expect(message).toContain('http://***@127.0.0.1:')
        expect(message).toContain('`apiKey`')
        expect(message.includes(PASSWORD)).toBe(false)
      } finally {
        vi.unstubAllEnvs()
      }
    },
  )

  test('is taken out of any message the scrubber sees, with or without a key', () => {
    const message = `Request cannot be constructed from a URL that includes credentials: ${withCredentials()}/chat`
    for (const scrubbed of [scrubSecrets(message), scrubSecrets(message, FAKE_KEY)]) {
      expect(scrubbed).toBe(message.replace(`user:${PASSWORD}@`, '***@'))
    }
    expect(scrubSecrets('https://example.com/a@b and mail me@example.com')).toBe(
      'https://example.com/a@b and mail me@example.com',
    )
  })
})

function messageOf(make: () => unknown): string {
  try {
    make()
  } catch (error) {
    return error instanceof Error ? `${error.message}\n${(error as { advice?: string }).advice ?? ''}` : String(error)
  }
  return 'did not throw'
}

test("the cache's own scrub also takes out the key a judge knows (its scrubSecrets), not only OPENAI_API_KEY", async () => {
  const key = 'gateway-token-Zq81bXk29wLm7Pt'
  const dir = mkdtempSync(join(tmpdir(), 'judgetree-judge-scrub-'))
  try {
    // A judge that leaves its answer as the server sent it, but says how to scrub its key.
    const careless: JudgeModel = {
      name: 'careless',
      scrubSecrets: (text) => scrubSecrets(text, key),
      generate: async <T>() => ({
        value: { reason: 'ok', verdict: true } as T,
        usage: { promptTokens: 1, completionTokens: 1, costUsd: undefined },
        cached: false,
        rawText: `{"reason": "auth ${unicodeEscaped(key)} and ${key}"}`,
      }),
    }
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir: dir, warn: () => {} })
    await runtime.wrap(careless).generate({
      messages: [{ role: 'user', content: 'Is it?' }],
      schema: z.object({ reason: z.string(), verdict: z.boolean() }),
      schemaName: 'binary_verdict',
      promptVersion: 'test@1',
    })
    const cache = filesUnder(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => readFileSync(file, 'utf8'))
    expect(cache).toHaveLength(1)
    expect(cache[0]).toContain('sk-***')
    for (const form of [key, unicodeEscaped(key), 'Zq81bXk29wLm7Pt']) expect(cache[0]?.includes(form), form).toBe(false)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('OpenAIJudge tells the cache its key, so a key given as apiKey (not key-shaped) is scrubbed from cache entries too', () => {
  const key = 'gateway-token-Zq81bXk29wLm7Pt'
  const judge = new OpenAIJudge({ apiKey: key, baseURL: 'http://127.0.0.1:9/v1' })
  const scrubbed = judge.scrubSecrets(`auth ${key} and ${unicodeEscaped(key)} and ${encodeURIComponent(key)}`)
  for (const form of [key, unicodeEscaped(key), 'Zq81bXk29wLm7Pt']) expect(scrubbed.includes(form), form).toBe(false)
})
