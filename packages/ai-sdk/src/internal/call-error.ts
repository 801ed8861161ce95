import { ConfigurationError, JudgeCallError, MeasurementAbortedError } from '@judgetree/core'
import { APICallError, LoadAPIKeyError, RetryError, UnsupportedFunctionalityError } from 'ai'
import { type CallHistory, isTruncatedBody, retryAfterMs } from './retries.js'

/** Who failed, for messages: `The judge model "claude-sonnet-4-5" (AI SDK provider anthropic.messages)`. */
export interface CallSite {
  readonly where: string
  /** The AI SDK provider id, e.g. `openai.chat`. */
  readonly provider: string
  readonly timeoutMs: number
  readonly maxRetries: number
}

/**
 * An AI SDK failure as a judgetree error naming the provider and model, with what to change, worded from what
 * happened (`history`: the retries made, a retry skipped for timeoutMs). Every text from the provider goes through
 * `scrub` (the judge's secrets and key-shaped strings) before it is kept, the cause included.
 */
export function toCallError(
  error: unknown,
  site: CallSite,
  signal: AbortSignal | undefined,
  timeout: AbortSignal,
  history: CallHistory,
  scrub: (text: string) => string,
): Error {
  if (signal?.aborted) return new MeasurementAbortedError(signal.reason)
  const { where } = site
  const retries = `after ${history.retries} ${history.retries === 1 ? 'retry' : 'retries'}`
  if (timeout.aborted) {
    const earlier =
      history.retries === 0 || history.earlier === undefined
        ? ''
        : ` (the attempt before failed: ${scrub(messageOf(history.earlier))})`
    return new JudgeCallError(
      `${where} did not answer within ${site.timeoutMs} ms (timeoutMs)${history.retries === 0 ? '' : `, ${retries}`}` +
        `${earlier}. Raise timeoutMs, or shorten the input.`,
      { cause: scrubbedCause(error, scrub) },
    )
  }
  const last = RetryError.isInstance(error) ? error.lastError : error
  const cause = scrubbedCause(last, scrub)
  // A retry that would have started after timeoutMs is not made; the usual "raise maxRetries" would not help.
  const skipped =
    history.skippedWaitMs === undefined
      ? undefined
      : `It was not retried: the next retry was due in ${Math.round(history.skippedWaitMs)} ms, after timeoutMs ` +
        `(${site.timeoutMs} ms) would have ended the call. Raise timeoutMs above the wait, or pass maxRetries: 0.`
  if (isTruncatedBody(last)) {
    return new JudgeCallError(
      `${where} answered HTTP ${last.statusCode} with a truncated body (not valid JSON), ${retries}. A proxy, a load ` +
        `balancer or the server cut the answer short. ${skipped ?? 'Raise maxRetries if it keeps happening.'}`,
      { cause },
    )
  }
  if (APICallError.isInstance(last)) {
    const status = last.statusCode
    const detail = scrub(last.message)
    if (status === undefined) {
      return new JudgeCallError(
        `${where} could not be reached at ${hostOf(last.url)}, ${retries}: ${detail}. ` +
          `${skipped === undefined ? '' : `${skipped} `}Check the network and the provider's baseURL.`,
        { cause },
      )
    }
    const hint =
      (status === 429 || status >= 500 ? skipped : undefined) ?? statusHint(status, detail, retries, site.provider)
    // A refused key is refused for every call of the run: its advice is said once per run (JudgetreeError.advice).
    if (status === 401 && hint !== undefined) {
      return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}`, { cause, status, advice: hint })
    }
    return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}${hint ? `\n${hint}` : ''}`, {
      cause,
      status,
      retryAfterMs: retryAfterMs(last.responseHeaders),
    })
  }
  if (LoadAPIKeyError.isInstance(last)) {
    // The provider's own message names its variable and option, e.g. OPENAI_API_KEY and `apiKey`.
    // Every call of the run meets it: the provider's words are the advice, said once per run.
    return new ConfigurationError(`${where} has no API key.`, { advice: scrub(last.message) })
  }
  if (UnsupportedFunctionalityError.isInstance(last)) {
    return new JudgeCallError(
      `${where} cannot give a structured (JSON) answer through the AI SDK: ${scrub(last.message)} ` +
        'Use a model of this provider that supports JSON output, or a provider that does (see docs/providers.md).',
      { cause },
    )
  }
  return new JudgeCallError(`${where} could not be called: ${scrub(messageOf(last))}`, { cause })
}

// Where the common providers read their key, for the 401 hint; others get the generic wording.
const KEY_SOURCES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY, or createOpenAI({ apiKey })',
  azure: 'AZURE_API_KEY, or createAzure({ apiKey })',
  anthropic: 'ANTHROPIC_API_KEY, or createAnthropic({ apiKey })',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY, or createGoogle({ apiKey })',
  mistral: 'MISTRAL_API_KEY, or createMistral({ apiKey })',
}

function statusHint(status: number, detail: string, retries: string, provider: string): string | undefined {
  if (status === 401) {
    const family = provider.split('.')[0] ?? ''
    const source = Object.hasOwn(KEY_SOURCES, family)
      ? KEY_SOURCES[family]
      : "its environment variable, or the apiKey given to the provider's create function"
    return `Check the API key the provider sends: ${source}.`
  }
  if (status === 403) return 'The key is not allowed to use this model; check its project and permissions.'
  if (status === 404)
    return "Check the model id, and the provider's baseURL (for OpenAI-compatible servers, the API root ending in /v1)."
  if (status === 429)
    return `Still rate limited ${retries}: lower the concurrency, raise maxRetries or check your quota.`
  if (status >= 500) return `The server kept failing ${retries}; try again later or raise maxRetries.`
  if (/response_format|json_schema|structured/i.test(detail)) {
    return (
      'The server may not support structured outputs (JSON schema). Leave `structuredOutputs` at its default, ' +
      "'auto', so that aiSdkJudge writes the schema into the prompt instead (and says so in every result)."
    )
  }
  if (/temperature/i.test(detail))
    return 'This model may not accept that temperature; pass `temperature: 1` to aiSdkJudge.'
  return undefined
}

function scrubbedCause(error: unknown, scrub: (text: string) => string): Error {
  const cause = new Error(scrub(messageOf(error)))
  cause.name = error instanceof Error ? error.name : 'Error'
  return cause
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'its baseURL'
  }
}
