// Scripted replies and probes for tests that talk to the local server.
import type { RecordedRequest, Responder, ScriptedReply } from './openai-server.js'

/** The structured-output schema name a request asked for, e.g. `geval_steps`. */
export function schemaOf(request: RecordedRequest): string | undefined {
  const format = request.body.response_format
  return format?.type === 'json_schema' ? format.json_schema.name : undefined
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

/**
 * A decision answer (a `reason`, then `field` holding a boolean or an option) with logprobs shaped like OpenAI's: the
 * JSON up to the answer in one token, the answer token with `top` (token → logprob) as its alternatives, the rest.
 */
export function decisionReply(
  field: string,
  answer: boolean | string,
  top: Record<string, number>,
  reason = 'It shows in the data.',
): ScriptedReply {
  const quote = typeof answer === 'string' ? '"' : ''
  const logprobs = [
    { token: `{"reason":${JSON.stringify(reason)},"${field}":${quote}`, logprob: 0, top: {} },
    { token: String(answer), logprob: top[String(answer)] ?? Math.log(0.5), top },
    { token: `${quote}}`, logprob: 0, top: {} },
  ]
  return { json: { reason, [field]: answer }, logprobs }
}

/** `responder`, sending its logprobs only to a request that asked for them, as OpenAI does. */
export function logprobsIfAsked(responder: Responder): Responder {
  return async (request) => {
    const { logprobs, ...reply } = await responder(request)
    return request.body.logprobs === true && logprobs !== undefined ? { ...reply, logprobs } : reply
  }
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

/** The key the request was sent with (the Authorization header without `Bearer `), for servers that echo it. */
export function bearerKey(request: RecordedRequest): string {
  return String(request.headers.authorization ?? '').replace(/^Bearer /, '')
}

/** Every UTF-16 unit as a JSON backslash-u escape: text that JSON.parse (inside a string) turns back into `text`. */
export function unicodeEscaped(text: string): string {
  return Array.from({ length: text.length }, (_, at) => `\\u${text.charCodeAt(at).toString(16).padStart(4, '0')}`).join(
    '',
  )
}

/**
 * A completion answering the score 7, sent verbatim with `logprobs` as given (malformed ones included), so that a
 * judge's own reading of a server's logprobs is tested, not the local server's.
 */
export function scoreSevenWithRawLogprobs(logprobs: unknown) {
  return {
    rawBody: JSON.stringify({
      id: 'chatcmpl-malformed',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4.1',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '{"reason":"Close.","score":7}', refusal: null },
          finish_reason: 'stop',
          logprobs,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }),
  }
}
