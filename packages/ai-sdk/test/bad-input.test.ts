import { createOpenAI } from '@ai-sdk/openai'
import { ConfigurationError, JudgeCallError } from '@judgetree/core'
import { scriptedJudge } from '@judgetree/core/testing'
import { UnsupportedFunctionalityError } from 'ai'
import { MockEmbeddingModelV4, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { aiSdkJudge } from '../src/index.js'

const openai = createOpenAI({ apiKey: 'sk-test-not-used-0123456789' })
const messageOf = (build: () => unknown): string => {
  try {
    build()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigurationError')
}

describe('aiSdkJudge given something that is not a language model', () => {
  test('a model id string', () => {
    expect(messageOf(() => aiSdkJudge('gpt-4.1' as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got the string 'gpt-4.1'. Call a provider with it, e.g. \`openai.chat('gpt-4.1')\`; an OpenAI model name needs no adapter: \`model: 'gpt-4.1'\` uses the built-in OpenAIJudge."`,
    )
    expect(messageOf(() => aiSdkJudge('anthropic/claude-sonnet-4-5' as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got the string 'anthropic/claude-sonnet-4-5'. Call the provider's package with the model id, e.g. \`anthropic('claude-sonnet-4-5')\`, or pass \`gateway('anthropic/claude-sonnet-4-5')\` from 'ai' to go through the AI Gateway."`,
    )
  })

  test('a provider instead of one of its models', () => {
    expect(messageOf(() => aiSdkJudge(openai as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got a provider, not one of its models. Call it with a model id: \`provider('model-id')\`."`,
    )
  })

  test('an embedding model', () => {
    expect(messageOf(() => aiSdkJudge(new MockEmbeddingModelV4() as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got an embedding model (it has doEmbed, not doGenerate). Pass a language (chat) model of the provider."`,
    )
  })

  test('a judgetree judge', () => {
    expect(messageOf(() => aiSdkJudge(scriptedJudge({ rules: [] }) as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got a judgetree judge ("scripted"). Pass it as the metric's \`model\` directly, without aiSdkJudge."`,
    )
  })

  test('a model of a specification this SDK cannot call', () => {
    const future = { specificationVersion: 'v9', provider: 'x', modelId: 'y', doGenerate: () => undefined }
    expect(messageOf(() => aiSdkJudge(future as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got a language model of specification v9, which this version of 'ai' cannot call (it calls v2, v3 and v4). Update 'ai' or the provider package so their majors match."`,
    )
  })

  test('undefined, and a plain object', () => {
    expect(messageOf(() => aiSdkJudge(undefined as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got \`undefined\` (undefined)."`,
    )
    expect(messageOf(() => aiSdkJudge({ model: 'gpt-4.1' } as never))).toMatchInlineSnapshot(
      `"Expected aiSdkJudge's \`model\` to be an AI SDK language model such as \`anthropic('claude-sonnet-4-5')\` or \`openai.chat('gpt-4.1')\`, got an object with keys \`model\`, which has no \`specificationVersion\` of 'v2', 'v3' or 'v4'."`,
    )
  })

  test('out-of-range options, each named with what it expects', () => {
    const model = openai.chat('gpt-4.1')
    expect(messageOf(() => aiSdkJudge(model, { timeoutMs: 0 }))).toMatchInlineSnapshot(`
      "Invalid options for aiSdkJudge:
        - Expected \`timeoutMs\` to be a whole number of milliseconds from 1 to 2147483647 (2^31−1, the longest timer Node can set, about 24.8 days), got \`0\` (number)."
    `)
    expect(messageOf(() => aiSdkJudge(model, { maxRetries: -1 }))).toMatchInlineSnapshot(`
      "Invalid options for aiSdkJudge:
        - Expected \`maxRetries\` to be a whole number from 0 and up, got \`-1\` (number)."
    `)
    expect(messageOf(() => aiSdkJudge(model, { temperature: 3 }))).toMatchInlineSnapshot(`
      "Invalid options for aiSdkJudge:
        - Expected \`temperature\` to be a number from 0 to 2, got \`3\` (number)."
    `)
  })

  test('every wrong option at once, and an unknown one with the option it was likely meant to be', () => {
    const model = openai.chat('gpt-4.1')
    const options = { temprature: 0, maxRetries: 1.5, structuredOutputs: 'json_schema', warn: 'loud' }
    expect(messageOf(() => aiSdkJudge(model, options as never))).toMatchInlineSnapshot(`
      "Invalid options for aiSdkJudge:
        - Expected \`maxRetries\` to be a whole number from 0 and up, got \`1.5\` (number).
        - Expected \`warn\` to be a function that takes the warning text, got 'loud' (string).
        - Expected \`structuredOutputs\` to be 'auto' or 'required', got 'json_schema' (string).
        - unknown option \`temprature\`; did you mean \`temperature\`?"
    `)
    expect(messageOf(() => aiSdkJudge(model, 'fast' as never))).toMatchInlineSnapshot(`
      "Invalid options for aiSdkJudge:
        - Expected \`options\` to be an options object (or nothing), got 'fast' (string)."
    `)
  })
})

describe('aiSdkJudge with a model that cannot give structured output', () => {
  test('the provider’s UnsupportedFunctionalityError becomes a call error naming provider, model and what to do', async () => {
    const model = new MockLanguageModelV4({
      provider: 'acme.chat',
      modelId: 'acme-small',
      doGenerate: async () => {
        throw new UnsupportedFunctionalityError({ functionality: 'JSON response format' })
      },
    })
    const error = await aiSdkJudge(model, { maxRetries: 0 })
      .generate({
        messages: [{ role: 'user', content: 'Is the sky blue?' }],
        schema: z.object({ verdict: z.boolean() }),
        schemaName: 'binary_verdict',
        promptVersion: 'test@1',
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(JudgeCallError)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "acme-small" (AI SDK provider acme.chat) cannot give a structured (JSON) answer through the AI SDK: 'JSON response format' functionality not supported. Use a model of this provider that supports JSON output, or a provider that does (see docs/providers.md)."`,
    )
  })
})
