import { ConfigurationError, JudgeCallError, MeasurementAbortedError } from '@judgetree/core'
import { scrubSecrets } from '@judgetree/core/runtime'
import { APICallError, LoadAPIKeyError, RetryError, UnsupportedFunctionalityError } from 'ai'

/** Who failed, for messages: `The judge model "claude-sonnet-4-5" (AI SDK provider anthropic.messages)`. */
export interface CallSite {
  readonly where: string
  /** The AI SDK provider id, e.g. `openai.chat`. */
  readonly provider: string
  readonly timeoutMs: number
  readonly maxRetries: number
}

/**
 * An AI SDK failure as a judgetree error naming the provider and model, with what to change. Every text from the
 * provider is scrubbed of key-shaped strings before it is kept, the cause included.
 */
export function toCallError(
  error: unknown,
  site: CallSite,
  signal: AbortSignal | undefined,
  timeout: AbortSignal,
): Error {
  if (signal?.aborted) return new MeasurementAbortedError(signal.reason)
  const { where } = site
  const retries = `after ${site.maxRetries} ${site.maxRetries === 1 ? 'retry' : 'retries'}`
  if (timeout.aborted) {
    return new JudgeCallError(
      `${where} did not answer within ${site.timeoutMs} ms (timeoutMs), ${retries}. Raise timeoutMs, or shorten the input.`,
      { cause: scrubbedCause(error) },
    )
  }
  const last = RetryError.isInstance(error) ? error.lastError : error
  const cause = scrubbedCause(last)
  if (APICallError.isInstance(last)) {
    const status = last.statusCode
    const detail = scrubSecrets(last.message)
    if (status === undefined) {
      return new JudgeCallError(
        `${where} could not be reached at ${hostOf(last.url)}, ${retries}: ${detail}. Check the network and the ` +
          "provider's baseURL.",
        { cause },
      )
    }
    const hint = statusHint(status, detail, retries, site.provider)
    // A refused key is refused for every call of the run: its advice is said once per run (JudgetreeError.advice).
    if (status === 401 && hint !== undefined) {
      return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}`, { cause, status, advice: hint })
    }
    return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}${hint ? `\n${hint}` : ''}`, {
      cause,
      status,
      retryAfterMs: retryAfterOf(last.responseHeaders),
    })
  }
  if (LoadAPIKeyError.isInstance(last)) {
    // The provider's own message names its variable and option, e.g. OPENAI_API_KEY and `apiKey`.
    // Every call of the run meets it: the provider's words are the advice, said once per run.
    return new ConfigurationError(`${where} has no API key.`, { advice: scrubSecrets(last.message) })
  }
  if (UnsupportedFunctionalityError.isInstance(last)) {
    return new JudgeCallError(
      `${where} cannot give a structured (JSON) answer through the AI SDK: ${scrubSecrets(last.message)} ` +
        'Use a model of this provider that supports JSON output, or a provider that does (see docs/providers.md).',
      { cause },
    )
  }
  const message = last instanceof Error ? last.message : String(last)
  return new JudgeCallError(`${where} could not be called: ${scrubSecrets(message)}`, { cause })
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

function scrubbedCause(error: unknown): Error {
  const cause = new Error(scrubSecrets(error instanceof Error ? error.message : String(error)))
  cause.name = error instanceof Error ? error.name : 'Error'
  return cause
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'its baseURL'
  }
}

/** The wait a 429 or 503 asked for: retry-after-ms, then retry-after (seconds or a date). */
function retryAfterOf(headers: Record<string, string> | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.['retry-after-ms'] ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const header = headers?.['retry-after']
  if (!header) return undefined
  const seconds = Number.parseFloat(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
