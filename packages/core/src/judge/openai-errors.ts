// How OpenAIJudge reads the openai SDK's failures: which refusals it can work around (logprobs, a strict schema),
// what to tell the user for each HTTP status, and how long a 429 asked to wait.
import { APIError } from 'openai'

export function statusHint(status: number, detail: string, retries: string): string | undefined {
  if (status === 401) return 'Check that OPENAI_API_KEY (or the apiKey option) holds a valid key for this server.'
  if (status === 403) return 'The key is not allowed to use this model; check its project and permissions.'
  if (status === 404) {
    return 'Check the model name, and that OPENAI_BASE_URL (or the baseURL option) points at the API root, e.g. ending in /v1.'
  }
  if (status === 429) {
    return (
      'Still rate limited after the judge runtime’s retries (up to maxRetries, each after the pause the server asked ' +
      'for): raise maxRetries, lower JUDGETREE_CONCURRENCY or check your quota.'
    )
  }
  if (status >= 500) return `The server kept failing ${retries}; try again later or raise maxRetries.`
  if (/temperature/i.test(detail))
    return 'This model may not accept that temperature; pass `temperature: 1` to the judge.'
  if (/response_format|json_schema/i.test(detail)) {
    return "The server may not support structured outputs; pass `structuredOutputs: 'json_object'` to the judge."
  }
  return undefined
}

export function rejectsLogprobs(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status !== 400) return false
  return /logprobs/i.test(`${error.message} ${error.param ?? ''} ${error.code ?? ''}`)
}

export function rejectsSchema(error: unknown): boolean {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false
  return /response_format|json_schema/i.test(`${error.message} ${error.param ?? ''} ${error.code ?? ''}`)
}

export function rootMessage(error: Error): string {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause
  }
  return current instanceof Error ? current.message : error.message
}

/**
 * A fetch whose 429 answers tell the SDK not to retry (its `x-should-retry` header), so the 429 reaches the judge
 * runtime, which pauses every worker for it and retries; the SDK keeps retrying 5xx and connection errors.
 */
export function leavingRateLimitsToTheRuntime(custom: typeof fetch | undefined): typeof fetch {
  return async (input, init) => {
    const response = await (custom ?? globalThis.fetch)(input, init)
    if (response.status !== 429) return response
    const headers = new Headers(response.headers)
    headers.set('x-should-retry', 'false')
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  }
}

/** The wait a 429 or 503 asked for, in the SDK's order of preference: retry-after-ms, then retry-after. */
export function retryAfterOf(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const header = headers?.get('retry-after')
  if (!header) return undefined
  const seconds = Number.parseFloat(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
