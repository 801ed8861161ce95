import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider'
import { GEval, LLMTestCaseParams, MeasurementAbortedError } from '@judgetree/core'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { aiSdkJudge } from '../src/index.js'

/** A provider without logprobs (as Anthropic, Gemini or Bedrock through the SDK), answering with `texts` in turn. */
function mockModel(texts: string[], usage = { input: 40, output: 9 }) {
  let call = 0
  return new MockLanguageModelV4({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (): Promise<LanguageModelV4GenerateResult> => ({
      content: [{ type: 'text', text: texts[Math.min(call++, texts.length - 1)] ?? '' }],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: {
        inputTokens: { total: usage.input, noCache: usage.input, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: usage.output, text: usage.output, reasoning: undefined },
      },
      warnings: [],
    }),
  })
}

const schema = z.object({ reason: z.string(), score: z.number() })
const request = {
  messages: [
    { role: 'system' as const, content: 'You are a judge.' },
    { role: 'user' as const, content: 'Score it.' },
  ],
  schema,
  schemaName: 'geval_score',
  promptVersion: 'test@1',
}

describe('aiSdkJudge with the SDK’s mock model (a provider without logprobs)', () => {
  test('sends the messages, the JSON schema and temperature 0, and maps usage; cost is known once priced', async () => {
    const model = mockModel(['{"reason":"Good.","score":7}'])
    const response = await aiSdkJudge(model, {
      pricing: { 'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 } },
    }).generate(request)
    expect(response.value).toEqual({ reason: 'Good.', score: 7 })
    expect(response.usage).toEqual({ promptTokens: 40, completionTokens: 9, costUsd: (40 * 3 + 9 * 15) / 1_000_000 })
    const call = model.doGenerateCalls[0] as LanguageModelV4CallOptions
    expect(call.temperature).toBe(0)
    expect(call.responseFormat).toMatchObject({ type: 'json', name: 'geval_score', schema: { type: 'object' } })
    expect(call.prompt.map((message) => message.role)).toEqual(['system', 'user'])
    expect(call.providerOptions).toBeUndefined()
  })

  test('trials: no generateSamples, so one call per trial, each at temperature 1 unless the judge has its own', async () => {
    const judge = aiSdkJudge(mockModel(['{"reason":"Good.","score":7}']))
    expect('generateSamples' in judge).toBe(false)
    const model = mockModel(['{"reason":"Good.","score":7}'])
    const metric = new GEval({
      name: 'Correct',
      evaluationSteps: ['Check the answer.'],
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      model: aiSdkJudge(model),
      trials: 3,
    })
    const result = await metric.measure({ input: 'q', actualOutput: 'a' })
    expect(result.trials?.map((trial) => trial.score)).toEqual([0.7, 0.7, 0.7])
    expect(model.doGenerateCalls.map((call) => call.temperature)).toEqual([1, 1, 1])
    const own = mockModel(['{"reason":"Good.","score":7}'])
    await aiSdkJudge(own, { temperature: 0.2 }).generate({ ...request, defaultTemperature: 1 })
    expect(own.doGenerateCalls[0]?.temperature).toBe(0.2)
  })

  test('logprobs asked for are not sent to a provider that has none; the response says why', async () => {
    const model = mockModel(['{"reason":"Good.","score":7}'])
    const response = await aiSdkJudge(model).generate({ ...request, topLogprobs: 5 })
    expect(model.doGenerateCalls[0]?.providerOptions).toBeUndefined()
    expect(response.logprobs).toBeUndefined()
    expect(response.logprobsUnavailable).toBe(
      'the AI SDK provider anthropic.messages returns no logprobs, so "claude-sonnet-4-5" is asked without them',
    )
  })

  test('G-Eval through it scores with the raw score and says why in the trace', async () => {
    const model = new MockLanguageModelV4({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: async (options) => {
        const steps = (options.responseFormat as { name?: string } | undefined)?.name === 'geval_steps'
        const text = steps ? '{"steps":["Check the facts."]}' : '{"reason":"Right.","score":9}'
        return {
          content: [{ type: 'text', text }],
          finishReason: { unified: 'stop', raw: 'end_turn' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        }
      },
    })
    const result = await new GEval({
      name: 'Correctness',
      criteria: 'Is the answer right?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model: aiSdkJudge(model),
    }).measure({ input: 'Boiling point?', actualOutput: '100 °C' })
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.9)
    expect(result.trace.notes).toContain(
      'raw score: the AI SDK provider anthropic.messages returns no logprobs, so "claude-sonnet-4-5" is asked without them',
    )
  })

  test('providerOptions reach the model and the cache identity', async () => {
    const model = mockModel(['{"reason":"Good.","score":7}'])
    const judge = aiSdkJudge(model, { providerOptions: { anthropic: { thinking: { type: 'disabled' } } } })
    await judge.generate(request)
    expect(model.doGenerateCalls[0]?.providerOptions).toEqual({ anthropic: { thinking: { type: 'disabled' } } })
    expect(judge.cacheIdentity).toEqual({
      provider: 'anthropic.messages',
      model: 'claude-sonnet-4-5',
      temperature: 0,
      providerOptions: { anthropic: { thinking: { type: 'disabled' } } },
    })
  })

  test('an already aborted signal stops before the model is called', async () => {
    const model = mockModel(['{"reason":"Good.","score":7}'])
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    await expect(aiSdkJudge(model).generate({ ...request, signal: controller.signal })).rejects.toBeInstanceOf(
      MeasurementAbortedError,
    )
    expect(model.doGenerateCalls).toHaveLength(0)
  })
})
