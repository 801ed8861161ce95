import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { type RecordedRequest, type ScriptedReply, unicodeEscaped, useOpenAIServer } from '@judgetree/test-support'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { ConfigurationError, DAGMetric, evaluate, type MetricResult, renderResult } from '../../core/src/index.js'
import { createJudgeRuntime } from '../../core/src/runtime.js'
import { MEETING, meetingSummary, meetingSummaryDag } from '../../core/test/support/walkthroughs.js'
import { aiSdkJudge } from '../src/index.js'

// The key the provider sends, whatever its shape, never reaches what a run shows or keeps: a careless server echoes
// it back in every encoding the scrubber documents, through the real AI SDK providers.

const server = useOpenAIServer()

/** Keys of providers whose keys are not `sk-…`, a local token, and one `sk-` key; then seeded random ones. */
const KEYS: Readonly<Record<string, string>> = {
  'Azure (32 hex)': 'a3f9c2e1b7d4058f6e2a9c1d3b5f7e80',
  'Groq (gsk_)': 'gsk_Wq3nR8tY2uI5oP7aS9dF1gH4jK6lZ0xC2vB5nM8qW1eR3tY6uI',
  'Mistral (32 letters and digits)': 'Zq81bXk29wLm7PtR4s6Yv0Nc3Jh5Gd8F',
  'local gateway token': 'CANARY-local-Zq81bXk29wLm7Pt',
  'OpenAI (sk-proj-)': 'sk-proj-Tz81bXk29wLm7PtR4s6Yv0Nc',
  ...randomKeys(20261126, 3),
}

/** How the key reaches the provider: each is what a user of that provider would write. */
const SETUPS = ['openai apiKey', 'OPENAI_API_KEY', 'compatible apiKey', 'api-key header', 'secrets option'] as const
type Setup = (typeof SETUPS)[number]

/** How the server hides the key in its answer: one mode per documented encoding and per path through the judge. */
const MODES = [
  'raw',
  'u-escaped',
  'U-escaped',
  'URL-encoded',
  'fenced',
  'samples',
  '401 body',
  'refusal',
  'invalid JSON',
] as const
type Mode = (typeof MODES)[number]

let cacheDir: string
beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'judgetree-ai-sdk-secrets-'))
  server.respondWith(echoing)
})
afterEach(() => {
  rmSync(cacheDir, { recursive: true, force: true })
  vi.unstubAllEnvs()
})

describe('aiSdkJudge takes the provider’s own key out of everything', () => {
  const cases = Object.entries(KEYS).flatMap(([shape, key], keyIndex) =>
    MODES.map((mode, modeIndex) => {
      // Every setup meets every mode over the run, and every key shape every mode.
      const setup = SETUPS[(keyIndex + modeIndex) % SETUPS.length] as Setup
      return { name: `${shape}, ${mode}, ${setup}`, key, mode, setup }
    }),
  )

  test.each(cases)('$name', async ({ key, mode, setup }) => {
    const shown = await runEverything(key, mode, setup)
    for (const [surface, text] of Object.entries(shown.surfaces)) {
      for (const [form, encoded] of Object.entries(formsOf(key))) {
        expect(text.includes(encoded), `${surface} shows the key ${form}`).toBe(false)
      }
    }
    expect(shown.replaced, 'the key was replaced where the server put it').toBe(true)
  })

  test.each(SETUPS)('every encoding at once, with the key set up as %s', async (setup) => {
    const key = KEYS['local gateway token'] as string
    const shown = await runEverything(key, 'all', setup)
    for (const [surface, text] of Object.entries(shown.surfaces)) {
      for (const [form, encoded] of Object.entries(formsOf(key))) {
        expect(text.includes(encoded), `${surface} shows the key ${form}`).toBe(false)
      }
    }
  })
})

describe('credentials the judge is told about', () => {
  test('a `secrets` item shorter than 8 characters, or not a string, is refused without being shown', () => {
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-0123456789abcdef' }).chat('m')
    expect(() => aiSdkJudge(model, { secrets: ['long-enough-1', 'tiny42'] })).toThrow(
      'Expected `secrets` to be a list of strings of 8 characters or more (shorter ones cannot be told from ordinary ' +
        'words); item 1 is a string of 6 characters, got an array of 2 (array).',
    )
    expect(() => aiSdkJudge(model, { secrets: ['long-enough-1', 'tiny42'] })).not.toThrow('tiny42')
    expect(() => aiSdkJudge(model, { secrets: 'not-a-list-of-secrets' as never })).toThrow(ConfigurationError)
    expect(() => aiSdkJudge(model, { secrets: null as never })).toThrow(
      'Expected `secrets` to be a list of strings of 8 characters or more (shorter ones cannot be told from ordinary ' +
        'words), got `null` (null).',
    )
  })

  test('a provider baseURL with a user and password is refused up front, without printing the password', () => {
    const baseURL = server.baseURL.replace('http://', 'http://user:SECRETPASS1234@')
    for (const model of [
      createOpenAI({ baseURL, apiKey: 'sk-test-0123456789abcdef' }).chat('gpt-4.1'),
      createOpenAICompatible({ name: 'local', baseURL }).chatModel('llama3.1'),
    ]) {
      let message = ''
      try {
        aiSdkJudge(model)
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError)
        message = (error as Error).message
      }
      expect(message).toContain('has a baseURL with credentials before its host (http://***@127.0.0.1:')
      expect(message).toContain("pass the key as the provider's `apiKey`")
      expect(message).not.toContain('SECRETPASS1234')
    }
    expect(server.requests).toHaveLength(0)
  })
})

/**
 * Measures the meeting-summary DAG (three judge calls) with the key set up as `setup` and the server hiding it as
 * `mode` ('all' mixes the encodings over the three calls), under a read-write cache, through measure() with verbose
 * logs and through evaluate(). Returns every text a person or a program could see, and whether `sk-***` shows where
 * the key was.
 */
async function runEverything(key: string, mode: Mode | 'all', setup: Setup) {
  const warnings: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...parts) => void warnings.push(parts.join(' ')))
  const warn = vi.spyOn(console, 'warn').mockImplementation((...parts) => void warnings.push(parts.join(' ')))
  try {
    const runtime = createJudgeRuntime({ cache: 'read-write', cacheDir, warn: (text) => warnings.push(text) })
    const metric = new DAGMetric({
      name: 'Format Correctness',
      dag: meetingSummaryDag(),
      model: runtime.wrap(judgeFor(key, mode, setup, (text) => warnings.push(text))),
      verboseMode: true,
      ...(mode === 'samples' ? { trials: 3 } : {}),
    })
    const result = await metric.measure(meetingSummary)
    const evaluation = await evaluate([meetingSummary], [metric], { progress: false, summary: false })
    const expectsError = mode === '401 body' || mode === 'refusal' || mode === 'invalid JSON'
    expect(result.error === undefined, JSON.stringify(result.error?.message)).toBe(!expectsError)
    const surfaces = {
      result: everything(result),
      evaluation: JSON.stringify(evaluation),
      console: warnings.join('\n'),
      cache: filesUnder(cacheDir)
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n'),
    }
    if (!expectsError) expect(surfaces.cache.length, 'answers were cached').toBeGreaterThan(100)
    return { surfaces, replaced: surfaces.result.includes('sk-***') }
  } finally {
    log.mockRestore()
    warn.mockRestore()
  }
}

function judgeFor(key: string, mode: Mode | 'all', setup: Setup, warn: (text: string) => void) {
  const baseURL = server.baseURL
  const model = `echo-${mode}`
  const options = { maxRetries: 0, warn }
  switch (setup) {
    case 'openai apiKey':
      return aiSdkJudge(createOpenAI({ baseURL, apiKey: key }).chat(model), options)
    case 'OPENAI_API_KEY':
      vi.stubEnv('OPENAI_API_KEY', key)
      return aiSdkJudge(createOpenAI({ baseURL }).chat(model), options)
    case 'compatible apiKey':
      return aiSdkJudge(
        createOpenAICompatible({ name: 'gateway', baseURL, apiKey: key, supportsStructuredOutputs: true }).chatModel(
          model,
        ),
        options,
      )
    case 'api-key header':
      return aiSdkJudge(
        createOpenAICompatible({
          name: 'azure-like',
          baseURL,
          headers: { 'api-key': key },
          supportsStructuredOutputs: true,
        }).chatModel(model),
        options,
      )
    case 'secrets option': {
      // A proxy token added by the user's own fetch: the provider never sees it, so the judge is told.
      const withToken: typeof fetch = (input, init) =>
        fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-proxy-token': key } })
      const provider = createOpenAICompatible({
        name: 'proxy',
        baseURL,
        fetch: withToken,
        supportsStructuredOutputs: true,
      })
      return aiSdkJudge(provider.chatModel(model), { ...options, secrets: [key] })
    }
  }
}

/** A careless server: it answers with the credential it was sent, hidden as the model name says. */
function echoing(request: RecordedRequest): ScriptedReply {
  const headers = request.headers
  const key = String(headers['x-proxy-token'] ?? headers['api-key'] ?? headers.authorization ?? '').replace(
    /^Bearer /,
    '',
  )
  const requested = request.body.model.replace(/^echo-/, '') as Mode | 'all'
  const prompt = request.body.messages.find((message) => message.role === 'user')?.content ?? ''
  const step = prompt.includes(MEETING.extract) ? 0 : prompt.includes(MEETING.present) ? 1 : 2
  const mode = requested === 'all' ? (['U-escaped', 'URL-encoded', 'fenced'] as const)[step] : requested
  if (mode === '401 body') return { status: 401, error: { message: `Incorrect API key provided: ${key}.` } }
  if (mode === 'refusal') {
    return {
      content: `I will not judge this. (Your key ${unicodeEscaped(key)} was logged.)`,
      finishReason: 'content_filter',
    }
  }
  if (mode === 'invalid JSON') return { content: `Sure! The key is ${key}, or ${unicodeEscaped(key)}: {"reason": ` }
  const hidden = hide(key, mode)
  const answer = [
    `{"output": "Intro, Body, Conclusion (auth ${hidden})"}`,
    `{"reason": "All three are there; auth ${hidden}", "verdict": true}`,
    `{"reason": "In order; auth ${hidden}", "verdict": "Yes"}`,
  ][step] as string
  return { content: mode === 'fenced' ? `\`\`\`json\n${answer}\n\`\`\`` : answer }
}

function hide(key: string, mode: Mode): string {
  if (mode === 'u-escaped' || mode === 'fenced') return unicodeEscaped(key)
  if (mode === 'U-escaped')
    return unicodeEscaped(key).replace(/\\u([0-9a-f]{4})/g, (_, hex) => `\\u${hex.toUpperCase()}`)
  // Every character encoded, so that even a key of letters and digits is not left as it is.
  if (mode === 'URL-encoded') return Array.from(key, (char) => `%${char.charCodeAt(0).toString(16)}`).join('')
  return key
}

/** The key as it could appear anywhere: raw, its middle (a partial leak), escaped, URL-encoded. */
function formsOf(key: string): Record<string, string> {
  return {
    raw: key,
    'in part': key.slice(4, -4),
    'u-escaped': unicodeEscaped(key),
    'U-escaped': unicodeEscaped(key).replace(/\\u([0-9a-f]{4})/g, (_, hex) => `\\u${hex.toUpperCase()}`),
    'URL-encoded': Array.from(key, (char) => `%${char.charCodeAt(0).toString(16)}`).join(''),
  }
}

/** Everything a result can show: its JSON, its rendering, its error's cause chain with stacks. */
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

/** Keys of letters, digits, `-` and `_` (what a header can carry), from a seeded generator. */
function randomKeys(seed: number, count: number): Record<string, string> {
  let state = seed
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => {
      const length = 20 + Math.floor(next() * 40)
      const key = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('')
      return [`random key ${index + 1} (seed ${seed})`, key]
    }),
  )
}
