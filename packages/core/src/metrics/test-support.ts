// Helpers for the metric tests: real OpenAI SDK calls against the local test server.
import type { RecordedRequest, ScriptedReply } from '../../test/support/openai-server.js'
import { OpenAIJudge } from '../judge/openai-judge.js'
import { DATA_CLOSE, DATA_OPEN } from '../prompts/shared.js'

/** A judge that talks to the local test server through the real SDK, with no retries. */
export function serverJudge(baseURL: string): OpenAIJudge {
  return new OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'test-key', maxRetries: 0 })
}

/** The structured-output schema name a request asked for, e.g. `geval_steps`. */
export function schemaOf(request: RecordedRequest): string | undefined {
  const format = request.body.response_format
  return format?.type === 'json_schema' ? format.json_schema.name : undefined
}

/** The JSON document a prompt carried between the data markers (a re-ask repeats the original prompt first). */
export function dataOf(request: RecordedRequest): unknown {
  const prompt =
    request.body.messages.find((message) => message.role === 'user' && message.content.includes(`${DATA_OPEN}\n`))
      ?.content ?? ''
  const start = prompt.indexOf(`${DATA_OPEN}\n`)
  const end = prompt.lastIndexOf(`\n${DATA_CLOSE}`)
  return JSON.parse(prompt.slice(start + DATA_OPEN.length + 1, end))
}

/**
 * A G-Eval score answer with logprobs shaped like OpenAI's: one token per piece of the JSON, the score token last
 * but one. `decoy` puts the same number inside the reason, with other alternatives, to catch a forward search.
 */
export function scoreReply(
  score: number,
  top: Record<string, number> | undefined,
  options: { reason?: string; decoy?: Record<string, number> } = {},
): ScriptedReply {
  const reason = options.reason ?? `Mostly right, ${score} points of detail.`
  const logprobs =
    top === undefined
      ? undefined
      : [
          { token: '{"reason":"', logprob: 0, top: {} },
          ...(options.decoy ? [{ token: String(score), logprob: Math.log(0.9), top: options.decoy }] : []),
          { token: `${reason}","score":`, logprob: 0, top: {} },
          { token: String(score), logprob: top[String(score)] ?? Math.log(0.5), top },
          { token: '}', logprob: 0, top: {} },
        ]
  return { json: { reason, score }, ...(logprobs ? { logprobs } : {}) }
}

/** Natural-log probabilities, as logprobs arrive. */
export function ln(probabilities: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(probabilities).map(([token, p]) => [token, Math.log(p)]))
}

/** Tracks how many requests the responder is handling at once. */
export function concurrencyProbe(delayMs: number) {
  let current = 0
  const probe = {
    max: 0,
    async hold(): Promise<void> {
      current += 1
      probe.max = Math.max(probe.max, current)
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      current -= 1
    },
  }
  return probe
}
