// What the AI SDK reports of a reasoning model reaches the protocol: the sampling settings the provider did not
// apply, in its words, and the cached prompt and reasoning tokens of its usage. Through the real @ai-sdk/openai
// provider, which drops `temperature` and logprobs for reasoning model names and warns, against the local server.
import { createOpenAI } from '@ai-sdk/openai'
import type { TransportCall } from '@judgetree/core/runtime'
import { jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { aiSdkTransport } from '../src/ai-sdk-judge.js'
import { aiSdkJudge } from '../src/index.js'
import { settingsIgnoredOf } from '../src/internal/provider.js'

const server = useOpenAIServer()
const schema = z.object({ reason: z.string(), verdict: z.boolean() })
const openai = () => createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-reasoning-0123456789' })

/** One call as the protocol hands it to the transport. */
const call = (topLogprobs?: number): TransportCall => ({
  messages: [{ role: 'user', content: 'Is the sky blue?' }],
  schema,
  schemaName: 'binary_verdict',
  jsonSchema: { type: 'object' },
  n: 1,
  topLogprobs,
  defaultTemperature: undefined,
  temperature: 0,
  signal: undefined,
  withheld: new Set(),
  scrub: (text) => text,
})

/** A Chat Completions body whose usage has the details a reasoning model sends. */
const withUsageDetails = (request: { body: { model: string } }) => ({
  rawBody: JSON.stringify({
    id: 'chatcmpl-reasoning',
    object: 'chat.completion',
    created: 0,
    model: request.body.model,
    choices: [
      { index: 0, message: { role: 'assistant', content: '{"reason":"Yes.","verdict":true}' }, finish_reason: 'stop' },
    ],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 256 },
    },
  }),
})

describe('aiSdkJudge with a reasoning model', () => {
  test('the temperature @ai-sdk/openai drops for gpt-5 is reported in its words, and not sent', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const completion = await aiSdkTransport(openai().chat('gpt-5'), { maxRetries: 0 }).complete(call())
    expect(completion.settingsIgnored).toEqual([
      { setting: 'temperature', detail: 'temperature is not supported for reasoning models' },
    ])
    expect(server.requests[0]?.body.temperature).toBeUndefined()
  })

  test('logprobs dropped for a reasoning model are reported too, and neither logprobs nor top_logprobs is sent', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const completion = await aiSdkTransport(openai().chat('o3'), { maxRetries: 0 }).complete(call(5))
    expect(completion.settingsIgnored).toEqual([
      { setting: 'temperature', detail: 'temperature is not supported for reasoning models' },
      { setting: 'logprobs', detail: 'logprobs is not supported for reasoning models' },
    ])
    expect(server.requests[0]?.body).not.toHaveProperty('logprobs')
    expect(server.requests[0]?.body).not.toHaveProperty('top_logprobs')
  })

  test('a model that takes the settings reports none ignored, and gets temperature 0', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const completion = await aiSdkTransport(openai().chat('gpt-4.1'), { maxRetries: 0 }).complete(call(5))
    expect(completion.settingsIgnored).toBeUndefined()
    expect(server.requests[0]?.body).toMatchObject({ temperature: 0, logprobs: true, top_logprobs: 5 })
  })

  test('cached prompt tokens and reasoning tokens are read from the usage, besides the totals', async () => {
    server.respondWith(withUsageDetails)
    const completion = await aiSdkTransport(openai().chat('gpt-5'), { maxRetries: 0 }).complete(call())
    expect(completion).toMatchObject({
      promptTokens: 1200,
      completionTokens: 300,
      cachedPromptTokens: 1024,
      reasoningTokens: 256,
    })
  })

  test('a provider that reports no details leaves them unsaid', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: '{"reason":"Yes.","verdict":true}' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 40, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 9, text: undefined, reasoning: undefined },
        },
        warnings: [],
      }),
    })
    const completion = await aiSdkTransport(model, {}).complete(call())
    expect(completion).toMatchObject({ promptTokens: 40, completionTokens: 9 })
    expect(completion.cachedPromptTokens).toBeUndefined()
    expect(completion.reasoningTokens).toBeUndefined()
    expect(completion.settingsIgnored).toBeUndefined()
  })

  test('the judge still answers through the protocol when the provider dropped its temperature', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const response = await aiSdkJudge(openai().chat('gpt-5'), { maxRetries: 0 }).generate({
      messages: [{ role: 'user', content: 'Is the sky blue?' }],
      schema,
      schemaName: 'binary_verdict',
      promptVersion: 'test@1',
    })
    expect(response.value).toEqual({ reason: 'Yes.', verdict: true })
  })

  test('a dropped temperature is warned once, marks every result, and is no longer passed to the SDK', async () => {
    server.respondWith(withUsageDetails)
    const warnings: string[] = []
    const judge = aiSdkJudge(openai().chat('gpt-5'), { maxRetries: 0, warn: (text) => warnings.push(text) })
    const request = {
      messages: [{ role: 'user' as const, content: 'Is the sky blue?' }],
      schema,
      schemaName: 'binary_verdict',
      promptVersion: 'test@1',
    }
    const first = await judge.generate(request)
    const second = await judge.generate(request)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/temperature/)
    for (const response of [first, second]) {
      expect(response.samplingNotApplied).toMatch(/temperature/)
      expect(response.usage).toMatchObject({ promptTokens: 1200, cachedPromptTokens: 1024, reasoningTokens: 256 })
    }
  })
})

describe('settingsIgnoredOf', () => {
  test('reads the warning shapes of every model specification the SDK calls, once per setting', () => {
    expect(
      settingsIgnoredOf([
        // Specification v2 (AI SDK 5 providers).
        { type: 'unsupported-setting', setting: 'temperature', details: 'not for o1' },
        // v3 and v4, repeated: one entry per setting.
        { type: 'unsupported', feature: 'temperature', details: 'temperature is not supported' },
        { type: 'unsupported', feature: 'topLogprobs' },
        { type: 'unsupported', feature: 'topP', details: 'topP is not supported for reasoning models' },
        { type: 'other', message: 'logitBias is not supported for reasoning models' },
      ]),
    ).toEqual([
      { setting: 'temperature', detail: 'not for o1' },
      { setting: 'logprobs', detail: 'topLogprobs is not supported' },
    ])
    expect(settingsIgnoredOf([{ type: 'unsupported', feature: 'responseFormat' }])).toBeUndefined()
    expect(settingsIgnoredOf(undefined)).toBeUndefined()
  })
})
