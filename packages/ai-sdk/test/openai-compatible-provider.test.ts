import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { GEval, JudgeOutputError, LLMTestCaseParams } from '@judgetree/core'
import { jsonReply, ln, schemaOf, scoreReply, useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { type AiSdkJudgeOptions, aiSdkJudge } from '../src/index.js'

const server = useOpenAIServer()

/** A judge on the local server through `@ai-sdk/openai-compatible`, as for Ollama, vLLM or LM Studio. */
function judge(
  settings: { supportsStructuredOutputs?: boolean } = { supportsStructuredOutputs: true },
  options: AiSdkJudgeOptions = {},
) {
  const local = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, ...settings })
  return aiSdkJudge(local.chatModel('llama3.1'), { maxRetries: 0, ...options })
}

const schema = z.object({ reason: z.string(), verdict: z.boolean() })
const request = {
  messages: [{ role: 'user' as const, content: 'Is the sky blue?' }],
  schema,
  schemaName: 'binary_verdict',
  promptVersion: 'test@1',
}

describe('aiSdkJudge through @ai-sdk/openai-compatible', () => {
  test('answers with the parsed value and usage; an unpriced local model costs undefined', async () => {
    server.respondWith(() =>
      jsonReply({ reason: 'Yes.', verdict: true }, { usage: { promptTokens: 12, completionTokens: 3 } }),
    )
    const response = await judge().generate(request)
    expect(response.value).toEqual({ reason: 'Yes.', verdict: true })
    expect(response.usage).toEqual({ promptTokens: 12, completionTokens: 3, costUsd: undefined })
    expect(server.requests[0]?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'binary_verdict' },
    })
  })

  test('the provider returns no logprobs, so the response says why and G-Eval uses the raw score', async () => {
    server.respondWith((recorded) =>
      schemaOf(recorded) === 'geval_steps'
        ? jsonReply({ steps: ['Check the facts.'] })
        : scoreReply(8, ln({ '8': 0.5, '10': 0.5 })),
    )
    const response = await judge().generate({
      ...request,
      schema: z.object({ reason: z.string(), score: z.number() }),
      topLogprobs: 5,
    })
    expect(response.logprobs).toBeUndefined()
    expect(response.logprobsUnavailable).toBe(
      'the AI SDK provider local.chat returns no logprobs, so "llama3.1" is asked without them',
    )
    const metric = new GEval({
      name: 'Correctness',
      criteria: 'Is the answer right?',
      evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
      model: judge(),
    })
    const result = await metric.measure({ input: 'Boiling point?', actualOutput: '100 °C' })
    expect(result.error).toBeUndefined()
    expect(result.score).toBe(0.8)
    expect(result.trace.notes).toContain(
      'raw score: the AI SDK provider local.chat returns no logprobs, so "llama3.1" is asked without them',
    )
  })

  test('a server in JSON mode that wraps the answer in a Markdown fence is still understood', async () => {
    server.respondWith(() => ({ content: '```json\n{"reason":"Fenced.","verdict":false}\n```' }))
    // The SDK warns (through process.emitWarning) that this provider ignores the schema; collected here, not printed.
    const warnings: unknown[] = []
    const sdkGlobal = globalThis as { AI_SDK_LOG_WARNINGS?: unknown }
    sdkGlobal.AI_SDK_LOG_WARNINGS = (options: { warnings: unknown[] }) => warnings.push(...options.warnings)
    try {
      const response = await judge({}, { warn: () => {} }).generate(request)
      expect(server.requests[0]?.body.response_format).toEqual({ type: 'json_object' })
      expect(response.value).toEqual({ reason: 'Fenced.', verdict: false })
      expect(warnings).toMatchObject([{ type: 'unsupported', feature: 'responseFormat' }])
    } finally {
      delete sdkGlobal.AI_SDK_LOG_WARNINGS
    }
  })

  test('schemaInPrompt writes the JSON schema into the last user message, for servers that get JSON mode only', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const sdkGlobal = globalThis as { AI_SDK_LOG_WARNINGS?: unknown }
    sdkGlobal.AI_SDK_LOG_WARNINGS = false
    try {
      const withSchema = judge({}, { schemaInPrompt: true, warn: () => {} })
      await withSchema.generate(request)
      expect(server.requests[0]?.body.messages.at(-1)?.content).toBe(
        'Is the sky blue?\n\nAnswer with only a JSON object, and no other text, matching this JSON schema:\n' +
          '{"type":"object","properties":{"reason":{"type":"string"},"verdict":{"type":"boolean"}},"required":["reason","verdict"],"additionalProperties":false}',
      )
      expect(withSchema.cacheIdentity).toMatchObject({ schemaInPrompt: true })
      expect(judge({}).cacheIdentity).not.toHaveProperty('schemaInPrompt')
    } finally {
      delete sdkGlobal.AI_SDK_LOG_WARNINGS
    }
  })

  test('a malformed answer is asked again once, with what was wrong, and both calls are counted', async () => {
    server.respondWith((recorded) =>
      recorded.index === 0
        ? jsonReply({ reason: 'Yes.', verdict: 'yes' })
        : jsonReply({ reason: 'Yes.', verdict: true }),
    )
    const response = await judge().generate(request)
    expect(response.value).toEqual({ reason: 'Yes.', verdict: true })
    expect(response.usage).toMatchObject({ promptTokens: 20, completionTokens: 10 })
    const reask = server.requests[1]?.body.messages.at(-1)?.content
    expect(reask).toMatchInlineSnapshot(`
      "Your previous answer could not be used: it does not match the schema:
      ✖ Invalid input: expected boolean, received string
        → at verdict
      Answer again with only a JSON object matching the "binary_verdict" schema, and no other text."
    `)
  })

  test('an answer malformed twice fails with the schema problem and the raw answer', async () => {
    server.respondWith(() => jsonReply({ reason: 'Cheeky.', verdict: 'maybe' }))
    const error = await judge()
      .generate(request)
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(2)
    expect(error).toBeInstanceOf(JudgeOutputError)
    expect((error as JudgeOutputError).rawOutput).toBe('{"reason":"Cheeky.","verdict":"maybe"}')
    expect((error as Error).message).toMatchInlineSnapshot(`
      "The judge model "llama3.1" (AI SDK provider local.chat) did not answer with valid "binary_verdict" JSON, even after being asked again: it does not match the schema:
      ✖ Invalid input: expected boolean, received string
        → at verdict
      Raw answer: "{\\"reason\\":\\"Cheeky.\\",\\"verdict\\":\\"maybe\\"}""
    `)
  })

  test('a refusal is final: not asked again, and the message says what to change', async () => {
    server.respondWith(() => ({ content: 'I cannot help with that.', finishReason: 'content_filter' }))
    const error = await judge()
      .generate(request)
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(1)
    expect(error).toBeInstanceOf(JudgeOutputError)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "llama3.1" (AI SDK provider local.chat) refused to give the "binary_verdict" answer (finish reason 'content-filter'): "I cannot help with that.". Rephrase the criteria, or use a model that answers this kind of input."`,
    )
  })

  test('an answer cut off at the output limit is final and names the limit', async () => {
    server.respondWith(() => ({ content: '{"reason":"It is bec', finishReason: 'length' }))
    const error = await judge()
      .generate(request)
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(1)
    expect((error as Error).message).toMatchInlineSnapshot(
      `"The judge model "llama3.1" (AI SDK provider local.chat) was cut off at its output token limit (finish reason 'length') before finishing the "binary_verdict" answer. Raise the model's max output tokens or shorten the input. Raw answer: "{\\"reason\\":\\"It is bec""`,
    )
  })

  test('a server that refuses the JSON schema: one warning in its words, the schema asked as text, results marked, other schemas unaffected', async () => {
    const refusal = "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
    server.respondWith((recorded) => {
      const format = recorded.body.response_format
      if (format?.type === 'json_schema' && format.json_schema.name === 'binary_verdict') {
        return { status: 400, error: { message: refusal } }
      }
      return schemaOf(recorded) === 'other' || recorded.body.messages.at(-1)?.content.startsWith('Other')
        ? jsonReply({ note: 'fine' })
        : jsonReply({ reason: 'Yes.', verdict: true })
    })
    const warnings: string[] = []
    const refusing = judge(undefined, { warn: (message) => warnings.push(message) })
    const first = await refusing.generate(request)
    const second = await refusing.generate(request)
    const other = await refusing.generate({
      ...request,
      messages: [{ role: 'user', content: 'Other question?' }],
      schema: z.object({ note: z.string() }),
      schemaName: 'other',
    })
    expect(first.value).toEqual({ reason: 'Yes.', verdict: true })
    expect(second.value).toEqual({ reason: 'Yes.', verdict: true })
    expect(other.value).toEqual({ note: 'fine' })
    // Refused once; then the same schema as text with the schema in the prompt; the other schema still as json_schema.
    expect(server.requests.map((recorded) => recorded.body.response_format?.type ?? 'text')).toEqual([
      'json_schema',
      'text',
      'text',
      'json_schema',
    ])
    expect(server.requests[1]?.body.messages.at(-1)?.content).toContain(
      'Answer with only a JSON object, and no other text, matching this JSON schema:',
    )
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchInlineSnapshot(`
      "judgetree: The judge model "llama3.1" (AI SDK provider local.chat) refused the JSON schema "binary_verdict": Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.
      Its "binary_verdict" answers are asked for as text with the schema in the prompt from now on, and checked only against the local validation; every result made that way says so. Pass \`structuredOutputs: 'required'\` to aiSdkJudge to make this an error instead."
    `)
    expect(first.structuredOutputsUnavailable).toBe(
      `The judge model "llama3.1" (AI SDK provider local.chat) refused the JSON schema "binary_verdict" (${refusal}), ` +
        'so it was asked for the answer as text with the schema in the prompt, and the answer was checked only ' +
        'against the local validation',
    )
    expect(second.structuredOutputsUnavailable).toBe(first.structuredOutputsUnavailable)
    expect(other.structuredOutputsUnavailable).toBeUndefined()
  })

  test("with structuredOutputs: 'required' a refused schema is an error saying what to change", async () => {
    server.respondWith(() => ({
      status: 400,
      error: {
        message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      },
    }))
    const error = await judge(undefined, { structuredOutputs: 'required', warn: () => {} })
      .generate(request)
      .catch((caught: unknown) => caught)
    expect(server.requests).toHaveLength(1)
    expect((error as Error).message).toMatchInlineSnapshot(`
      "The judge model "llama3.1" (AI SDK provider local.chat) answered HTTP 400: Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.
      The server may not support structured outputs (JSON schema). Leave \`structuredOutputs\` at its default, 'auto', so that aiSdkJudge writes the schema into the prompt instead (and says so in every result)."
    `)
  })

  test('a provider that takes no schema: warned once in the SDK words, the schema then in every prompt, every result marked', async () => {
    server.respondWith(() => jsonReply({ reason: 'Yes.', verdict: true }))
    const sdkGlobal = globalThis as { AI_SDK_LOG_WARNINGS?: unknown }
    sdkGlobal.AI_SDK_LOG_WARNINGS = false
    try {
      const warnings: string[] = []
      const jsonModeOnly = judge({}, { warn: (message) => warnings.push(message) })
      const first = await jsonModeOnly.generate(request)
      const second = await jsonModeOnly.generate(request)
      expect(server.requests.map((recorded) => recorded.body.response_format)).toEqual([
        { type: 'json_object' },
        { type: 'json_object' },
      ])
      // The first call learnt it: only later prompts carry the schema.
      expect(server.requests[0]?.body.messages.at(-1)?.content).toBe('Is the sky blue?')
      expect(server.requests[1]?.body.messages.at(-1)?.content).toContain('matching this JSON schema:')
      expect(warnings).toMatchInlineSnapshot(`
        [
          "judgetree: The judge model "llama3.1" (AI SDK provider local.chat) does not take a JSON schema for its answers (the AI SDK says: JSON response format schema is only supported with structuredOutputs).
        The schema is written into the prompt from now on and answers are checked only against the local validation; every result made that way says so. Pass \`schemaInPrompt: true\` to aiSdkJudge to say this up front, or \`structuredOutputs: 'required'\` to make it an error.",
        ]
      `)
      expect(first.structuredOutputsUnavailable).toBe(
        'The judge model "llama3.1" (AI SDK provider local.chat) does not take a JSON schema (the AI SDK says: JSON ' +
          'response format schema is only supported with structuredOutputs), so the schema was written into the ' +
          'prompt and the answer was checked only against the local validation',
      )
      expect(second.structuredOutputsUnavailable).toBe(first.structuredOutputsUnavailable)

      // Said up front with schemaInPrompt: no warning, but the results are still marked.
      const quiet: string[] = []
      const upFront = await judge({}, { schemaInPrompt: true, warn: (message) => quiet.push(message) }).generate(
        request,
      )
      expect(quiet).toEqual([])
      expect(upFront.structuredOutputsUnavailable).toBe(first.structuredOutputsUnavailable)

      const required = await judge({}, { structuredOutputs: 'required' })
        .generate(request)
        .catch((caught: unknown) => caught)
      expect((required as Error).message).toContain("`structuredOutputs: 'required'` was set")
    } finally {
      delete sdkGlobal.AI_SDK_LOG_WARNINGS
    }
  })

  test('an unreachable server names the host and what to check', async () => {
    const local = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:9/v1' })
    const error = await aiSdkJudge(local.chatModel('llama3.1'), { maxRetries: 0 })
      .generate(request)
      .catch((caught: unknown) => caught)
    expect((error as Error).message).toMatch(
      /^The judge model "llama3\.1" \(AI SDK provider local\.chat\) could not be reached at 127\.0\.0\.1:9, after 0 retries: .+\. Check the network and the provider's baseURL\.$/,
    )
  })
})
