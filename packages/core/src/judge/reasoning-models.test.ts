// OpenAIJudge against a reasoning model (the local server's reasoning mode, through the real openai SDK): the
// settings it refuses are left out after one warning each, and every answer made without one says so.
import { jsonReply, useOpenAIServer } from '@judgetree/test-support'
import OpenAI from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ConfigurationError, JudgeCallError } from '../errors.js'
import { OpenAIJudge, type OpenAIJudgeOptions } from './openai-judge.js'
import type { JudgeRequest } from './types.js'

const KEY = 'sk-test-REASONING-1234567890'
const verdictSchema = z.object({ verdict: z.enum(['yes', 'no']), reason: z.string() })
type Verdict = z.infer<typeof verdictSchema>
const yes: Verdict = { verdict: 'yes', reason: 'The sky is blue.' }

const server = useOpenAIServer(() => jsonReply(yes), { reasoningModel: { refuses: ['temperature', 'logprobs', 'n'] } })
afterEach(() => {
  vi.unstubAllEnvs()
})

function judge(options: OpenAIJudgeOptions = {}) {
  const warnings: string[] = []
  const made = new OpenAIJudge({
    model: 'gpt-6-luna',
    apiKey: KEY,
    baseURL: server.baseURL,
    maxRetries: 0,
    timeoutMs: 30_000,
    warn: (message) => warnings.push(message),
    ...options,
  })
  return { judge: made, warnings }
}

function ask(overrides: Partial<JudgeRequest<Verdict>> = {}): JudgeRequest<Verdict> {
  return {
    messages: [{ role: 'user', content: 'Is the sky blue?' }],
    schema: verdictSchema,
    schemaName: 'binary_verdict',
    promptVersion: 'test@1',
    ...overrides,
  }
}

const bodies = () => server.requests.map((request) => request.body)

describe('OpenAIJudge reasoningEffort', () => {
  it('sends reasoning_effort, and never a token limit (no max_tokens, no max_completion_tokens)', async () => {
    await judge({ reasoningEffort: 'low' }).judge.generate(ask())

    expect(bodies().at(-1)).toMatchObject({ reasoning_effort: 'low' })
    for (const body of bodies()) {
      expect(body).not.toHaveProperty('max_tokens')
      expect(body).not.toHaveProperty('max_completion_tokens')
    }
  })

  it('reads JUDGETREE_REASONING_EFFORT, the option wins, and neither is sent when both are unset', async () => {
    vi.stubEnv('JUDGETREE_REASONING_EFFORT', 'minimal')
    await judge().judge.generate(ask())
    await judge({ reasoningEffort: 'xhigh' }).judge.generate(ask())
    vi.stubEnv('JUDGETREE_REASONING_EFFORT', '')
    await judge().judge.generate(ask())

    const efforts = bodies()
      .filter((body) => body.temperature === undefined)
      .map((body) => body.reasoning_effort)
    expect(efforts).toEqual(['minimal', 'xhigh', undefined])
  })

  it('takes an effort OpenAI does not name, for servers that do', async () => {
    await judge({ reasoningEffort: 'turbo-think' }).judge.generate(ask())

    expect(bodies().at(-1)?.reasoning_effort).toBe('turbo-think')
  })

  it('is part of the cache identity when set, and absent from it when not', () => {
    expect(judge({ reasoningEffort: 'high' }).judge.cacheIdentity).toMatchObject({ reasoningEffort: 'high' })
    expect(judge().judge.cacheIdentity).not.toHaveProperty('reasoningEffort')
  })

  it.each([[''], ['   '], [3]])('refuses %j, naming the option', (effort) => {
    expect(() => judge({ reasoningEffort: effort as never })).toThrow(ConfigurationError)
    expect(() => judge({ reasoningEffort: effort as never })).toThrow(
      /Invalid options for OpenAIJudge:\n {2}- Expected `reasoningEffort` to be a non-empty effort such as 'low'/,
    )
  })
})

describe('OpenAIJudge and a model that refuses sampling settings', () => {
  it('asks again without the temperature, warns once in the server’s words, and marks every answer', async () => {
    const { judge: luna, warnings } = judge()

    const first = await luna.generate(ask())
    const second = await luna.generate(ask())

    expect(first.value).toEqual(yes)
    // The refused call is made again at once (not a retry), and the next one goes out without it.
    expect(bodies().map((body) => body.temperature)).toEqual([0, undefined, undefined])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(
      `judgetree: the judge model "gpt-6-luna" at ${new URL(server.baseURL).host} refused \`temperature\`: ` +
        "Unsupported value: 'temperature' does not support 0 with this model.",
    )
    expect(warnings[0]).toContain('it samples at its own temperature, trials too')
    for (const response of [first, second]) {
      expect(response.samplingNotApplied).toMatch(
        /^the judge model "gpt-6-luna" refused `temperature` \(Unsupported value: .*\), so it sampled at its own temperature$/,
      )
    }
    // Usage is the answer's: the refused call cost nothing.
    expect(first.usage).toMatchObject({ promptTokens: 10, completionTokens: 5 })
  })

  it('one warning per parameter however many calls are in flight when the model refuses', async () => {
    const { judge: luna, warnings } = judge()

    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        luna.generate(ask({ topLogprobs: 5, messages: [{ role: 'user', content: `Question ${index}` }] })),
      ),
    )

    expect(warnings).toHaveLength(2)
    expect(warnings.filter((warning) => warning.includes('refused `temperature`'))).toHaveLength(1)
    expect(warnings.filter((warning) => warning.includes('refused logprobs'))).toHaveLength(1)
    for (const answer of answers) {
      expect(answer.samplingNotApplied).toContain('refused `temperature`')
      expect(answer.logprobsUnavailable).toMatch(/^the model "gpt-6-luna" does not accept logprobs \(Unsupported/)
      expect(answer.logprobs).toBeUndefined()
    }
    // Every question got one answered call, sent with neither setting.
    const answered = bodies().filter((body) => body.temperature === undefined && body.logprobs === undefined)
    expect(answered).toHaveLength(24)
  })

  it('asks a model that refuses `n` for the samples one by one, each marked and counted as its own call', async () => {
    const { judge: luna, warnings } = judge({ temperature: 1 })

    const samples = await luna.generateSamples(ask({ defaultTemperature: 1 }), 3)

    // The refused call with n = 3, the same call with none, then the two samples it did not answer.
    expect(bodies().map((body) => body.n)).toEqual([3, undefined, undefined, undefined])
    expect(samples).toHaveLength(3)
    for (const sample of samples) {
      expect(sample.value).toEqual(yes)
      expect(sample.extraSample).toBeUndefined()
      expect(sample.samplingNotApplied).toMatch(/refused `n` \(.*\), so the samples were asked for one by one$/)
    }
    expect(samples.reduce((sum, sample) => sum + sample.usage.promptTokens, 0)).toBe(30)
    expect(warnings).toEqual([expect.stringContaining('refused `n`: ')])

    server.requests.length = 0
    await luna.generateSamples(ask({ defaultTemperature: 1 }), 2)
    expect(bodies().map((body) => body.n)).toEqual([undefined, undefined])
    expect(warnings).toHaveLength(1)
  })

  it('trials then sample at the model’s own temperature, and say so', async () => {
    const { judge: luna } = judge()
    await luna.generate(ask())

    const samples = await luna.generateSamples(ask({ defaultTemperature: 1 }), 2)

    expect(
      bodies()
        .slice(-3)
        .map((body) => body.temperature),
    ).toEqual([undefined, undefined, undefined])
    for (const sample of samples) expect(sample.samplingNotApplied).toContain('so it sampled at its own temperature')
  })

  it('answers at temperature 1, when the model takes it, with no mark', async () => {
    const { judge: luna, warnings } = judge({ temperature: 1 })

    const response = await luna.generate(ask())

    expect(bodies()).toEqual([expect.objectContaining({ temperature: 1 })])
    expect(response).not.toHaveProperty('samplingNotApplied')
    expect(warnings).toEqual([])
  })

  it('scrubs the key from the server’s words in the warning and the mark', async () => {
    // Temperature 1 gets past the reasoning mode's own refusal, to the echoing one.
    const { judge: luna, warnings } = judge({ temperature: 1 })
    const echo = useEcho()

    const response = await luna.generate(ask())

    expect(echo.count()).toBe(1)
    expect(warnings.join('\n')).not.toContain(KEY)
    expect(response.samplingNotApplied).not.toContain(KEY)
    expect(response.samplingNotApplied).toContain('(key sk-***)')
  })

  it('fails with the server’s words when the model refuses the call again without the setting', async () => {
    server.respondWith(() => ({
      status: 400,
      error: { message: "Unsupported value: 'temperature' is not supported", param: 'temperature' },
    }))
    const { judge: luna } = judge({ temperature: 1 })

    const error = await luna.generate(ask()).catch((caught: unknown) => caught)

    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as Error).message).toContain("answered HTTP 400: Unsupported value: 'temperature' is not supported")
    expect(bodies().map((body) => body.temperature)).toEqual([1, undefined])
  })
})

describe('the local server as a reasoning model', () => {
  it('reports reasoning tokens within the completion tokens, and cached prompt tokens for a prompt it saw before', async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 })
    const ask = () =>
      client.chat.completions.create({ model: 'gpt-6-luna', messages: [{ role: 'user', content: 'Again?' }] })

    const first = await ask()
    const again = await ask()

    expect(first.usage).toMatchObject({
      prompt_tokens: 10,
      completion_tokens: 5,
      completion_tokens_details: { reasoning_tokens: 3 },
      prompt_tokens_details: { cached_tokens: 0 },
    })
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBe(5)
  })
})

/** The server echoes the request's key in its refusal, as a hostile or careless proxy might. */
function useEcho() {
  let refusals = 0
  server.respondWith((request) => {
    if (request.body.temperature !== undefined) {
      refusals += 1
      const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '')
      return {
        status: 400,
        error: { message: `Unsupported value: 'temperature' (key ${key})`, param: 'temperature' },
      }
    }
    return jsonReply(yes)
  })
  return { count: () => refusals }
}
