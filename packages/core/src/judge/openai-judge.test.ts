import { type AddressInfo, createServer } from 'node:net'
import { inspect } from 'node:util'
import { jsonReply, lastUserMessage, useOpenAIServer } from '@judgetree/test-support'
import OpenAI, { AzureOpenAI } from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ConfigurationError, JudgeCallError, JudgeOutputError, MeasurementAbortedError } from '../errors.js'
import { OpenAIJudge, type OpenAIJudgeOptions } from './openai-judge.js'
import type { JudgeRequest } from './types.js'

const KEY = 'sk-test-SECRET-1234567890'
const verdictSchema = z.object({ verdict: z.enum(['yes', 'no']), reason: z.string() })
type Verdict = z.infer<typeof verdictSchema>
const yes: Verdict = { verdict: 'yes', reason: 'The sky is blue.' }

const server = useOpenAIServer(() => jsonReply(yes))
afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

/** A judge of `gpt-4.1`, named so that the expected costs and messages do not follow the default model. */
function judge(options: OpenAIJudgeOptions = {}): OpenAIJudge {
  const connection = { apiKey: KEY, baseURL: server.baseURL, maxRetries: 0, timeoutMs: 2_000 }
  return new OpenAIJudge({ model: 'gpt-4.1', ...connection, ...options })
}

function ask(overrides: Partial<JudgeRequest<Verdict>> = {}): JudgeRequest<Verdict> {
  return {
    messages: [
      { role: 'system', content: 'You are a strict judge.' },
      { role: 'user', content: 'Is the sky blue?' },
    ],
    schema: verdictSchema,
    schemaName: 'binary_verdict',
    promptVersion: 'test@1',
    ...overrides,
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    if (error instanceof Error) return error
    throw new Error(`Expected an Error, got ${String(error)}`)
  }
  throw new Error('Expected the promise to reject, but it resolved.')
}

function request(index: number) {
  const recorded = server.requests[index]
  if (recorded === undefined) throw new Error(`No request #${index}; got ${server.requests.length}`)
  return recorded
}

describe('OpenAIJudge request', () => {
  it('sends the model, temperature 0, a strict JSON schema from zod and the key', async () => {
    await judge({ model: 'gpt-4.1' }).generate(ask())

    const { body, headers } = request(0)
    expect(body.model).toBe('gpt-4.1')
    expect(body.temperature).toBe(0)
    expect(body.messages).toEqual(ask().messages)
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'binary_verdict',
        strict: true,
        schema: {
          type: 'object',
          properties: { verdict: { type: 'string', enum: ['yes', 'no'] }, reason: { type: 'string' } },
          required: ['verdict', 'reason'],
          additionalProperties: false,
        },
      },
    })
    expect(body.logprobs).toBeUndefined()
    expect(headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('returns the parsed answer, its raw text and usage', async () => {
    const response = await judge().generate(ask())

    expect(response.value).toEqual(yes)
    expect(response.rawText).toBe(JSON.stringify(yes))
    expect(response.cached).toBe(false)
    expect(response.usage).toEqual({ promptTokens: 10, completionTokens: 5, costUsd: (10 * 2 + 5 * 8) / 1e6 })
    expect(judge({ model: 'gpt-4o' }).name).toBe('gpt-4o')
  })

  it('uses a preconfigured client', async () => {
    const client = new OpenAI({ apiKey: 'sk-from-the-client', baseURL: server.baseURL, maxRetries: 0 })
    const response = await new OpenAIJudge({ client, model: 'gpt-4.1-mini' }).generate(ask())

    expect(response.value).toEqual(yes)
    expect(request(0).headers.authorization).toBe('Bearer sk-from-the-client')
    expect(request(0).body.model).toBe('gpt-4.1-mini')
  })
})

describe('OpenAIJudge on Azure OpenAI', () => {
  function azureClient(deployment: string, apiKey = KEY): AzureOpenAI {
    const endpoint = new URL(server.baseURL).origin
    return new AzureOpenAI({ endpoint, apiKey, apiVersion: '2024-10-21', deployment, maxRetries: 0 })
  }

  it('judges through an AzureOpenAI client: deployment path, api-version, api-key header, strict schema', async () => {
    const azure = new OpenAIJudge({ client: azureClient('judge-gpt41'), model: 'gpt-4.1' })

    const response = await azure.generate(ask())

    expect(response.value).toEqual(yes)
    expect(response.usage.costUsd).toBe((10 * 2 + 5 * 8) / 1e6)
    const { url, headers, body } = request(0)
    expect(url).toBe('/openai/deployments/judge-gpt41/chat/completions?api-version=2024-10-21')
    expect(headers['api-key']).toBe(KEY)
    expect(headers.authorization).toBeUndefined()
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'binary_verdict' } })
  })

  it('tells deployments apart in the cache identity, since one judge name may front different models', () => {
    const host = new URL(server.baseURL).host
    const identity = (deployment: string) =>
      new OpenAIJudge({ client: azureClient(deployment), model: 'gpt-4.1' }).cacheIdentity
    expect(identity('judge-a')).toMatchObject({ model: 'gpt-4.1', deployment: 'judge-a' })
    expect(identity('judge-b').deployment).toBe('judge-b')
    expect(new OpenAIJudge({ client: azureClient('judge-a') }).endpoint).toBe(`${host}/openai/deployments/judge-a`)
    expect(JSON.stringify(identity('judge-a'))).not.toContain('SECRET')
  })

  it('never repeats the Azure key, even when the server echoes it', async () => {
    const azureKey = '0123456789abcdef0123456789abcdef'
    server.respondWith(({ headers }) => ({
      status: 401,
      error: { message: `Access denied due to invalid subscription key ${String(headers['api-key'])}.` },
    }))

    const error = await rejection(new OpenAIJudge({ client: azureClient('judge', azureKey) }).generate(ask()))

    expect(error).toMatchObject({ name: 'JudgeCallError', status: 401 })
    expect(request(0).headers['api-key']).toBe(azureKey)
    expect(`${error.message}\n${String(error.cause)}`).not.toContain(azureKey)
  })
})

describe('OpenAIJudge structured outputs', () => {
  const unsupported = {
    status: 400,
    error: {
      message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      code: 'invalid_parameter',
    },
  }

  it("falls back to JSON mode once the server rejects json_schema under 'auto', and stays there", async () => {
    server.respondWith(({ body }) => (body.response_format?.type === 'json_schema' ? unsupported : jsonReply(yes)))
    const fallingBack = judge({ warn: vi.fn() })

    expect((await fallingBack.generate(ask())).value).toEqual(yes)
    expect((await fallingBack.generate(ask())).value).toEqual(yes)

    expect(server.requests.map((recorded) => recorded.body.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ])
    const prompt = lastUserMessage(request(1))
    expect(prompt).toMatch(/^Is the sky blue\?\n\n.*JSON/)
    expect(prompt).toContain('"enum":["yes","no"]')
    expect(request(1).body.messages[0]).toEqual({ role: 'system', content: 'You are a strict judge.' })
  })

  it("falls back for the refused schema only, warns once in the server's words, and marks each result", async () => {
    const refusal = {
      status: 400,
      error: {
        message:
          "Invalid schema for response_format 'steps': In context=('properties', 'steps', 'items'), 'minLength' is not permitted.",
        code: 'invalid_json_schema',
      },
    }
    const stepsSchema = z.object({ steps: z.array(z.string()) })
    const steps = { ...ask(), schema: stepsSchema, schemaName: 'steps' } as never as JudgeRequest<{ steps: string[] }>
    server.respondWith(({ body }) => {
      const format = body.response_format
      if (format?.type === 'json_schema' && format.json_schema.name === 'steps') return refusal
      return jsonReply(format?.type === 'json_schema' ? yes : { steps: ['Check the facts.'] })
    })
    const warn = vi.fn()
    const fallingBack = judge({ model: 'gpt-4.1', warn })

    // Two calls in flight when the server refuses: both are refused, the first one warns.
    const [first, second] = await Promise.all([fallingBack.generate(steps), fallingBack.generate(steps)])
    const other = await fallingBack.generate(ask())
    const later = await fallingBack.generate(steps)

    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]?.[0]).toBe(
      `judgetree: the judge model "gpt-4.1" at ${new URL(server.baseURL).host} refused the strict JSON schema "steps": ` +
        "Invalid schema for response_format 'steps': In context=('properties', 'steps', 'items'), 'minLength' is not " +
        'permitted.\nIts "steps" answers are asked for in JSON mode from now on and checked only against the local ' +
        "validation; every result made that way says so. Pass `structuredOutputs: 'json_schema'` to the judge to make " +
        'this an error instead.',
    )
    const marked =
      'the judge model "gpt-4.1" refused the strict JSON schema "steps" (Invalid schema for response_format ' +
      "'steps': In context=('properties', 'steps', 'items'), 'minLength' is not permitted.), so it answered in JSON " +
      'mode and the answer was checked only against the local validation'
    for (const result of [first, second, later]) {
      expect(result).toMatchObject({ value: { steps: ['Check the facts.'] }, structuredOutputsUnavailable: marked })
    }
    expect(other.value).toEqual(yes)
    expect(other).not.toHaveProperty('structuredOutputsUnavailable')
    const sent = server.requests.map(({ body }) => {
      const format = body.response_format
      return `${format?.type === 'json_schema' ? format.json_schema.name : 'steps'} ${format?.type}`
    })
    expect(sent.sort()).toEqual([
      'binary_verdict json_schema',
      'steps json_object',
      'steps json_object',
      'steps json_object',
      'steps json_schema',
      'steps json_schema',
    ])
  })

  it('marks only the answers that were made in JSON mode, not one the server took strictly meanwhile', async () => {
    server.respondWith(({ body, index }) => {
      if (body.response_format?.type === 'json_object') return jsonReply(yes)
      return index === 0
        ? jsonReply(yes, { delayMs: 150 })
        : { status: 400, error: { message: 'response_format refused' } }
    })
    const fallingBack = judge({ warn: vi.fn() })

    const strict = fallingBack.generate(ask())
    await vi.waitFor(() => expect(server.requests).toHaveLength(1))
    const [strictResult, jsonModeResult] = await Promise.all([strict, fallingBack.generate(ask())])

    expect(server.requests.map(({ body }) => body.response_format?.type)).toEqual([
      'json_schema',
      'json_schema',
      'json_object',
    ])
    expect(jsonModeResult.structuredOutputsUnavailable).toContain('(response_format refused)')
    expect(strictResult).not.toHaveProperty('structuredOutputsUnavailable')
  })

  it("does not fall back under 'json_schema' and says how to", async () => {
    server.respondWith(() => unsupported)

    const warn = vi.fn()
    const error = await rejection(judge({ structuredOutputs: 'json_schema', warn }).generate(ask()))

    expect(warn).not.toHaveBeenCalled()
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error).toMatchObject({ status: 400 })
    expect(error.message).toContain("structuredOutputs: 'json_object'")
    expect(server.requests).toHaveLength(1)
  })

  it('does not fall back on a 400 about something else', async () => {
    server.respondWith(() => ({
      status: 400,
      error: { message: "Unsupported value: 'temperature' does not support 0" },
    }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toMatchObject({ name: 'JudgeCallError', status: 400 })
    expect(error.message).toContain('temperature: 1')
    // A refused temperature is left out once (reasoning models); refused again, it fails, never in JSON mode.
    expect(server.requests.map(({ body }) => [body.temperature, body.response_format?.type])).toEqual([
      [0, 'json_schema'],
      [undefined, 'json_schema'],
    ])
  })

  it("asks for JSON mode from the start under 'json_object', adding a user message when there is none", async () => {
    await judge({ structuredOutputs: 'json_object' }).generate(
      ask({ messages: [{ role: 'system', content: 'Judge the sky.' }] }),
    )

    expect(server.requests).toHaveLength(1)
    expect(request(0).body.response_format).toEqual({ type: 'json_object' })
    expect(request(0).body.messages).toHaveLength(2)
    expect(lastUserMessage(request(0))).toContain('"required":["verdict","reason"]')
  })
})

describe('OpenAIJudge re-ask', () => {
  it('re-asks once with the JSON error when the answer is not JSON, and sums usage', async () => {
    server.respondWith(({ index }) => (index === 0 ? { content: 'Sure! {verdict: yes}' } : jsonReply(yes)))

    const response = await judge().generate(ask())

    expect(response.value).toEqual(yes)
    expect(server.requests).toHaveLength(2)
    const followUp = request(1).body.messages
    expect(followUp.slice(0, 2)).toEqual(ask().messages)
    expect(followUp[2]).toEqual({ role: 'assistant', content: 'Sure! {verdict: yes}' })
    expect(followUp[3]?.role).toBe('user')
    expect(followUp[3]?.content).toContain('not valid JSON')
    expect(response.usage).toMatchObject({ promptTokens: 20, completionTokens: 10 })
    expect(response.rawText).toBe(JSON.stringify(yes))
  })

  it('re-asks with the zod issues when the JSON breaks the schema', async () => {
    server.respondWith(({ index }) => (index === 0 ? jsonReply({ verdict: 'maybe', reason: 'hm' }) : jsonReply(yes)))

    const response = await judge().generate(ask())

    expect(response.value).toEqual(yes)
    expect(server.requests).toHaveLength(2)
    expect(lastUserMessage(request(1))).toContain('expected one of "yes"|"no"')
    expect(lastUserMessage(request(1))).toContain('→ at verdict')
  })

  it('keeps a length check out of the sent schema but still re-asks when the answer breaks it', async () => {
    const stepsSchema = z.object({ steps: z.array(z.string().min(1)).min(1) })
    server.respondWith(({ index }) => jsonReply({ steps: index === 0 ? [''] : ['Check the facts.'] }))

    const response = await judge().generate({ ...ask(), schema: stepsSchema, schemaName: 'steps' } as never)

    expect(response.value).toEqual({ steps: ['Check the facts.'] })
    expect(request(0).body.response_format).toMatchObject({
      json_schema: { schema: { properties: { steps: { type: 'array', items: { type: 'string' }, minItems: 1 } } } },
    })
    expect(JSON.stringify(request(0).body.response_format)).not.toContain('minLength')
    expect(lastUserMessage(request(1))).toContain('→ at steps[0]')
  })

  it('accepts JSON wrapped in a Markdown fence without a re-ask', async () => {
    server.respondWith(() => ({ content: `\`\`\`json\n${JSON.stringify(yes)}\n\`\`\`` }))

    expect((await judge().generate(ask())).value).toEqual(yes)
    expect(server.requests).toHaveLength(1)
  })

  it('throws JudgeOutputError with the raw text when the second answer is still bad', async () => {
    const rambling = `I think yes. ${'Because the sky scatters blue light. '.repeat(60)}`
    server.respondWith(() => ({ content: rambling }))

    const error = await rejection(judge({ model: 'gpt-4.1-mini' }).generate(ask()))

    expect(error).toBeInstanceOf(JudgeOutputError)
    expect(server.requests).toHaveLength(2)
    expect((error as JudgeOutputError).rawOutput).toBe(rambling)
    expect(error.message).toContain('"gpt-4.1-mini"')
    expect(error.message).toContain('"binary_verdict"')
    expect(error.message).toContain('not valid JSON')
    expect(error.message).toContain('I think yes.')
    expect(error.message).toContain(`(${rambling.length - 500} more characters)`)
    expect(error.message.length).toBeLessThan(1_000)
  })
})

describe('OpenAIJudge transport errors', () => {
  it('leaves a 429 to the judge runtime: the SDK does not retry it, and the error carries the Retry-After', async () => {
    server.respondWith(({ index }) =>
      index === 0
        ? { status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after': '0' } }
        : jsonReply(yes),
    )
    const rateLimited = judge({ maxRetries: 1 })
    expect(rateLimited.rateLimitRetries).toBe(1)

    const error = await rejection(rateLimited.generate(ask()))

    expect(error).toMatchObject({ status: 429, retryAfterMs: 0 })
    expect(server.requests).toHaveLength(1)
  })

  it('still lets the SDK retry a 5xx', async () => {
    server.respondWith(({ index }) =>
      index === 0 ? { status: 503, error: { message: 'busy' }, headers: { 'retry-after': '0' } } : jsonReply(yes),
    )

    const response = await judge({ maxRetries: 1 }).generate(ask())

    expect(response.value).toEqual(yes)
    expect(server.requests).toHaveLength(2)
  })

  it('gives up with JudgeCallError after maxRetries + 1 server errors', async () => {
    server.respondWith(() => ({
      status: 500,
      error: { message: 'The engine is overloaded' },
      headers: { 'retry-after': '0' },
    }))

    const error = await rejection(judge({ maxRetries: 2 }).generate(ask()))

    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error).toMatchObject({ status: 500 })
    expect(server.requests).toHaveLength(3)
    const host = new URL(server.baseURL).host
    expect(error.message).toContain(`"gpt-4.1" at ${host} answered HTTP 500: The engine is overloaded`)
    expect(error.message).toContain('after 2 retries')
  })

  it('turns a timeout into JudgeCallError naming timeoutMs', async () => {
    server.respondWith(() => ({ ...jsonReply(yes), delayMs: 2_000 }))
    const started = Date.now()

    const error = await rejection(judge({ timeoutMs: 50 }).generate(ask()))

    expect(Date.now() - started).toBeLessThan(1_500)
    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error).toMatchObject({ status: undefined })
    expect(error.message).toContain('did not answer within 50 ms (timeoutMs)')
  })

  it('turns a dropped connection into JudgeCallError', async () => {
    server.respondWith(() => ({ resetConnection: true }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error).toMatchObject({ status: undefined })
    expect(error.message).toContain('could not be reached')
  })

  it('a server never reached fails the later calls at once, with the advice said once per run', async () => {
    // A server that takes each connection and closes it at once: nothing ever answers.
    let connections = 0
    const closing = createServer((socket) => {
      connections += 1
      socket.destroy()
    })
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = closing.address() as AddressInfo
      const unreachable = judge({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 })
      const first = await rejection(unreachable.generate(ask()))
      expect(connections).toBe(2)
      expect(first).toMatchObject({
        name: 'JudgeCallError',
        advice: 'Check the network and OPENAI_BASE_URL (or the baseURL option).',
      })
      expect(first.message).toMatch(/at 127\.0\.0\.1:\d+ could not be reached, after 1 retry: .+\. Check the network/)

      const second = await rejection(unreachable.generate(ask()))
      expect(connections).toBe(2)
      expect(second).toMatchObject({ name: 'JudgeCallError', advice: (first as JudgeCallError).advice })
      expect(second.message).toContain('This call was not made: an earlier call failed so')

      // Half a minute on, the server may have been started (watch mode): it is asked again.
      const later = performance.now() + 31_000
      vi.spyOn(performance, 'now').mockReturnValue(later)
      const third = await rejection(unreachable.generate(ask()))
      expect(connections).toBe(4)
      expect(third.message).not.toContain('This call was not made')
      const fourth = await rejection(unreachable.generate(ask()))
      expect(connections).toBe(4)
      expect(fourth.message).toContain('This call was not made')
    } finally {
      await new Promise((resolve) => closing.close(resolve))
    }
  })

  it('a server that answered once is retried as usual after a dropped connection', async () => {
    const reached = judge({ maxRetries: 1 })
    await reached.generate(ask())
    server.respondWith(() => ({ resetConnection: true }))
    const error = await rejection(reached.generate(ask()))
    expect(error.message).toContain('after 1 retry')
    expect(server.requests).toHaveLength(3)
  })

  it('points at the model name and base URL on a 404', async () => {
    server.respondWith(() => ({ status: 404, error: { message: 'The model `gpt-9` does not exist' } }))

    const error = await rejection(judge({ model: 'gpt-9' }).generate(ask()))

    expect(error).toMatchObject({ name: 'JudgeCallError', status: 404 })
    expect(error.message).toContain('The model `gpt-9` does not exist')
    expect(error.message).toContain('Check the model name')
  })

  it('turns an abort mid-call into MeasurementAbortedError quickly', async () => {
    server.respondWith(() => ({ ...jsonReply(yes), delayMs: 5_000 }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    const started = Date.now()

    const error = await rejection(judge({ maxRetries: 3 }).generate(ask({ signal: controller.signal })))

    expect(error).toBeInstanceOf(MeasurementAbortedError)
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(server.requests).toHaveLength(1)
  })

  it('does not call the server when the signal is already aborted', async () => {
    const error = await rejection(judge().generate(ask({ signal: AbortSignal.abort('stopped by the user') })))

    expect(error).toBeInstanceOf(MeasurementAbortedError)
    expect(error.message).toContain('stopped by the user')
    expect(server.requests).toHaveLength(0)
  })
})

describe('OpenAIJudge unusable answers', () => {
  it('reports a completion without choices', async () => {
    server.respondWith(() => ({ emptyChoices: true }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toBeInstanceOf(JudgeCallError)
    expect(error.message).toContain('returned no choices')
  })

  it('reports an answer cut off at the token limit, without re-asking', async () => {
    server.respondWith(() => ({ content: '{"verdict": "yes", "reas', finishReason: 'length' }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toBeInstanceOf(JudgeOutputError)
    expect(error.message).toContain('cut off')
    expect(error.message).toContain('max output tokens')
    expect((error as JudgeOutputError).rawOutput).toBe('{"verdict": "yes", "reas')
    expect(server.requests).toHaveLength(1)
  })

  it('quotes a refusal', async () => {
    server.respondWith(() => ({ refusal: "I can't help with judging that." }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toBeInstanceOf(JudgeOutputError)
    expect(error.message).toContain('refused')
    expect(error.message).toContain(`"I can't help with judging that."`)
  })

  it('reports null content', async () => {
    server.respondWith(() => ({}))

    const error = await rejection(judge().generate(ask()))

    expect(error).toBeInstanceOf(JudgeOutputError)
    expect(error.message).toContain('no content')
  })
})

describe('OpenAIJudge logprobs and cost', () => {
  it('asks for at most 20 top logprobs and maps them', async () => {
    server.respondWith(() => ({
      ...jsonReply(yes),
      logprobs: [{ token: 'yes', logprob: -0.1, top: { yes: -0.1, no: -2.4 } }],
    }))

    const response = await judge().generate(ask({ topLogprobs: 50 }))

    expect(request(0).body).toMatchObject({ logprobs: true, top_logprobs: 20 })
    expect(response.logprobs).toEqual([
      {
        token: 'yes',
        logprob: -0.1,
        topLogprobs: [
          { token: 'yes', logprob: -0.1 },
          { token: 'no', logprob: -2.4 },
        ],
      },
    ])
  })

  it('prices gpt-4.1 at 2 / 8 USD per million tokens', async () => {
    server.respondWith(() => ({ ...jsonReply(yes), usage: { promptTokens: 1_000, completionTokens: 500 } }))

    const response = await judge({ model: 'gpt-4.1' }).generate(ask())

    expect(response.usage).toEqual({ promptTokens: 1_000, completionTokens: 500, costUsd: 0.006 })
  })

  it('leaves the cost of an unknown model undefined unless priced', async () => {
    const unknown = await judge({ model: 'llama3.1:8b' }).generate(ask())
    const priced = await judge({
      model: 'llama3.1:8b',
      pricing: { 'llama3.1:8b': { inputPerMillion: 1, outputPerMillion: 1 } },
    }).generate(ask())

    expect(unknown.usage.costUsd).toBeUndefined()
    expect(priced.usage.costUsd).toBe(15 / 1e6)
  })

  it('reads cached prompt and reasoning tokens from the usage details, pricing cached input at its own price', async () => {
    server.respondWith(() => ({
      ...jsonReply(yes),
      usage: { promptTokens: 10_000, cachedTokens: 8_000, completionTokens: 700, reasoningTokens: 600 },
    }))

    const response = await judge({ model: 'gpt-6-luna' }).generate(ask())

    // gpt-6-luna per 1M tokens: $0.10 input, $0.01 cached input, $0.50 output (reasoning included).
    // 2,000 × 0.10 + 8,000 × 0.01 + 700 × 0.50 = 200 + 80 + 350 = 630 micro-USD.
    expect(response.usage).toEqual({
      promptTokens: 10_000,
      completionTokens: 700,
      cachedPromptTokens: 8_000,
      reasoningTokens: 600,
      costUsd: expect.closeTo(0.00063, 12),
    })
  })

  it('sums the details over a re-ask, and shares them between the samples of one call', async () => {
    server.respondWith(({ index }) =>
      index === 0
        ? { content: 'Yes.', usage: { promptTokens: 100, cachedTokens: 60, completionTokens: 9, reasoningTokens: 8 } }
        : { ...jsonReply(yes), usage: { promptTokens: 120, completionTokens: 20 } },
    )
    const reasked = await judge({ model: 'gpt-6-luna' }).generate(ask())
    expect(reasked.usage).toMatchObject({
      promptTokens: 220,
      completionTokens: 29,
      cachedPromptTokens: 60,
      reasoningTokens: 8,
    })
    expect(reasked.usage.costUsd).toBeCloseTo((160 * 0.1 + 60 * 0.01 + 29 * 0.5) / 1e6, 12)

    server.respondWith(() => ({
      samples: [{ json: yes }, { json: yes }, { json: yes }],
      usage: { promptTokens: 900, cachedTokens: 600, completionTokens: 10, reasoningTokens: 7 },
    }))
    const samples = await judge({ model: 'gpt-6-luna' }).generateSamples(ask(), 3)
    expect(samples.map(({ usage }) => [usage.promptTokens, usage.cachedPromptTokens, usage.reasoningTokens])).toEqual([
      [900, 600, 7],
      [0, 0, 7],
      [0, 0, 7],
    ])
    const total = samples.reduce((sum, { usage }) => sum + (usage.costUsd ?? Number.NaN), 0)
    expect(total).toBeCloseTo((300 * 0.1 + 600 * 0.01 + 30 * 0.5) / 1e6, 12)
  })

  it('reports no details for a server that sends none, or sends them malformed', async () => {
    server.respondWith(() => ({
      rawBody: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-6-luna',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(yes) }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: null },
          completion_tokens_details: { reasoning_tokens: -3 },
        },
      }),
    }))

    const response = await judge({ model: 'gpt-6-luna' }).generate(ask())

    expect(response.usage).toEqual({ promptTokens: 10, completionTokens: 5, costUsd: (10 * 0.1 + 5 * 0.5) / 1e6 })
  })
})

describe('OpenAIJudge secrets', () => {
  function everythingSaid(error: unknown): string {
    const parts: string[] = [inspect(error, { depth: 20, showHidden: true })]
    for (let current: unknown = error; current instanceof Error; current = current.cause) {
      parts.push(String(current), current.message, current.stack ?? '', JSON.stringify(current))
    }
    return parts.join('\n')
  }

  it('never repeats the API key, even when the server echoes it', async () => {
    server.respondWith(({ headers }) => ({
      status: 401,
      error: { message: `Incorrect API key provided: ${String(headers.authorization)}.`, code: 'invalid_api_key' },
    }))

    const error = await rejection(judge().generate(ask()))

    expect(error).toMatchObject({ name: 'JudgeCallError', status: 401 })
    expect(error.message).toContain('Incorrect API key provided: Bearer sk-***')
    expect(error.message).toContain('OPENAI_API_KEY')
    // A refused key is refused for every call of the run: how to fix it is advice, said once per run.
    expect((error as JudgeCallError).advice).toBe(
      'Check that OPENAI_API_KEY (or the apiKey option) holds a valid key for this server.',
    )
    expect(error.cause).toBeInstanceOf(Error)
    expect(everythingSaid(error)).not.toContain('SECRET')
  })

  it('keeps the key out of the JSON-mode warning and the mark on results, even when the refusal echoes it', async () => {
    server.respondWith(({ body, headers }) =>
      body.response_format?.type === 'json_schema'
        ? { status: 400, error: { message: `response_format refused for ${String(headers.authorization)}` } }
        : jsonReply(yes),
    )
    const warn = vi.fn()

    const response = await judge({ warn }).generate(ask())

    expect(warn.mock.calls[0]?.[0]).toContain('response_format refused for Bearer sk-***')
    expect(response.structuredOutputsUnavailable).toContain('response_format refused for Bearer sk-***')
    expect(JSON.stringify([warn.mock.calls, response])).not.toContain('SECRET')
  })

  it('scrubs a key that does not look like an OpenAI key, in answers and errors', async () => {
    const azureKey = '0123456789abcdef0123456789abcdef'
    server.respondWith(({ headers }) => ({ content: `not json, but your key is ${String(headers.authorization)}` }))

    const error = await rejection(judge({ apiKey: azureKey }).generate(ask()))

    expect(error).toBeInstanceOf(JudgeOutputError)
    expect(request(0).headers.authorization).toBe(`Bearer ${azureKey}`)
    expect(everythingSaid(error)).not.toContain(azureKey)
    expect((error as JudgeOutputError).rawOutput).toBe('not json, but your key is Bearer sk-***')
  })
})

describe('OpenAIJudge configuration', () => {
  it('throws ConfigurationError on the first generate, not at construction, when there is no key', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')
    vi.stubEnv('OPENAI_BASE_URL', '')

    const keyless = new OpenAIJudge()
    const error = await rejection(keyless.generate(ask()))

    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error.message).toContain('OPENAI_API_KEY')
    expect(error.message).toContain('OPENAI_BASE_URL')
    // Every test of the run would say it: the runners print the problem per test and this advice once per run.
    expect(error.message).toMatch(/^The judge model "gpt-6-luna" has no API key\. Set OPENAI_API_KEY, /)
    expect((error as ConfigurationError).advice).toMatch(/^Set OPENAI_API_KEY, .*as the metric’s model\.$/)
  })

  it('reads the model, key and base URL from the environment', async () => {
    vi.stubEnv('JUDGETREE_MODEL', 'gpt-5-mini')
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment')
    vi.stubEnv('OPENAI_BASE_URL', server.baseURL)

    const fromEnvironment = new OpenAIJudge({ maxRetries: 0 })
    await fromEnvironment.generate(ask())

    expect(fromEnvironment.name).toBe('gpt-5-mini')
    expect(request(0).body.model).toBe('gpt-5-mini')
    expect(request(0).headers.authorization).toBe('Bearer sk-from-the-environment')
  })

  it('sends a placeholder key to a base URL without one', async () => {
    vi.stubEnv('OPENAI_API_KEY', '')

    await new OpenAIJudge({ baseURL: server.baseURL, maxRetries: 0 }).generate(ask())

    expect(request(0).headers.authorization).toBe('Bearer not-needed')
  })

  it('rejects a base URL that is not an http(s) URL when the judge is built, naming where it came from', () => {
    vi.stubEnv('OPENAI_BASE_URL', 'not a url')
    expect(() => new OpenAIJudge()).toThrow(
      'OPENAI_BASE_URL is not an http(s) URL: got "not a url". Set OPENAI_BASE_URL to the API root of an ' +
        'OpenAI-compatible server, such as `http://localhost:11434/v1`.',
    )
    // An explicit baseURL wins over the environment, and is checked itself.
    expect(() => new OpenAIJudge({ baseURL: 'http://127.0.0.1:1/v1' })).not.toThrow()
    expect(() => new OpenAIJudge({ baseURL: 'ftp://example.com' })).toThrow('baseURL is not an http(s) URL')
    vi.unstubAllEnvs()
  })

  it('rejects nonsensical options at construction, every one at once, in the words of every option bag', () => {
    expect(() => new OpenAIJudge({ timeoutMs: 0 })).toThrow(
      new ConfigurationError(
        'Invalid options for OpenAIJudge:\n  - Expected `timeoutMs` to be a whole number of milliseconds from 1 to ' +
          '2147483647 (2^31−1, the longest timer Node can set, about 24.8 days), got `0` (number).',
      ),
    )
    expect(() => new OpenAIJudge({ maxRetries: -1 })).toThrow(ConfigurationError)
    const options = { modle: 'gpt-4.1', warn: 'stderr', structuredOutputs: 'strict', apiKey: 12345678901234 }
    expect(() => new OpenAIJudge(options as never)).toThrow(
      new ConfigurationError(
        [
          'Invalid options for OpenAIJudge:',
          "  - Expected `warn` to be a function that takes the warning text, got 'stderr' (string).",
          // A key given in the wrong type is still a key: its type is named, never its value.
          '  - Expected `apiKey` to be a string, got a number.',
          "  - Expected `structuredOutputs` to be one of 'auto', 'json_schema', 'json_object', got 'strict' (string).",
          '  - unknown option `modle`; did you mean `model`?',
        ].join('\n'),
      ),
    )
  })
})
