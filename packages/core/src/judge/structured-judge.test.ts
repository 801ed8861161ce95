// The protocol suite against OpenAIJudge (the real openai SDK) and against a transport written here, in under 80
// lines, to show what a new provider needs: one request, and its failures classified.
import { judgeProtocolSuite } from '@judgetree/test-support'
import { retryAfterOf, type TransportFailure } from './failures.js'
import { OpenAIJudge } from './openai-judge.js'
import { createStructuredJudge, type JudgeTransport } from './structured-judge.js'
import { readTokenLogprobs } from './token-logprobs.js'

judgeProtocolSuite(
  'OpenAIJudge',
  ({ baseURL, apiKey, warn }) => new OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey, warn, maxRetries: 0 }),
)

judgeProtocolSuite('a fetch transport written in its test file', (setup) =>
  createStructuredJudge(fetchTransport(setup)),
)

class HttpFailure extends Error {
  status = 0
  headers = new Headers()
}

interface Completion {
  readonly error: { readonly message: string }
  readonly choices: readonly { message: { content: string }; logprobs?: { content?: unknown } | null }[]
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number }
  readonly model: string
}

function fetchTransport(setup: { baseURL: string; apiKey: string; warn: (message: string) => void }): JudgeTransport {
  const { baseURL, apiKey, warn } = setup
  const where = `The judge model "gpt-4.1" at ${new URL(baseURL).host}`
  return {
    name: 'gpt-4.1',
    samplesPerCall: true,
    structuredOutputs: 'auto',
    timeoutMs: 5_000,
    warn,
    label: where,
    where: () => where,
    secrets: () => apiKey,
    advice: {
      unreachable: 'Check the server.',
      cutShort: '.',
      unauthorized: 'Check the key.',
      notFound: 'Check the URL.',
      rateLimited: (retries) => `Still rate limited ${retries}.`,
      temperature: 'Lower the temperature.',
      structuredOutputs: 'Ask in JSON mode.',
    },
    wording: {
      schemaRefused: (schemaName, detail) => ({
        reason: `${where} refused "${schemaName}" (${detail})`,
        warning: `judgetree: ${where} refused "${schemaName}": ${detail}`,
      }),
    },
    async complete(call) {
      const format = call.jsonSchema
        ? { type: 'json_schema', json_schema: { name: call.schemaName, schema: call.jsonSchema, strict: true } }
        : { type: 'json_object' }
      const logprobs = call.topLogprobs === undefined ? {} : { logprobs: true, top_logprobs: call.topLogprobs }
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4.1',
          messages: call.messages,
          n: call.n,
          response_format: format,
          ...logprobs,
        }),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      })
      const body = (await response.json()) as Completion
      const { status, headers } = response
      if (!response.ok) throw Object.assign(new HttpFailure(body.error.message), { status, headers })
      return {
        samples: body.choices.map((choice) => ({
          text: choice.message.content,
          logprobs: readTokenLogprobs(choice.logprobs?.content).logprobs,
        })),
        promptTokens: body.usage.prompt_tokens,
        completionTokens: body.usage.completion_tokens,
        servedModel: body.model,
      }
    },
    classify(error): TransportFailure {
      if (!(error instanceof HttpFailure)) return { kind: 'unreachable', detail: String(error), retries: 0 }
      const refuses = error.status === 400 && /response_format/.test(error.message) ? 'schema' : undefined
      const retryAfterMs = retryAfterOf(error.headers)
      return { kind: 'http', status: error.status, detail: error.message, retries: 0, retryAfterMs, refuses }
    },
  }
}
