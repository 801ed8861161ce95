// A transport's failure, classified, and the one place that words it as a judgetree error: what happened, where,
// after how many retries, and what to change (status hints, the 401 advice said once per run, the Retry-After).
import { JudgeCallError, JudgeOutputError, MeasurementAbortedError } from '../errors.js'
import type { Secrets } from '../internal/scrub.js'
import { answerExcerpt } from './answer.js'
import type { ModelPrice } from './pricing.js'
import type { SamplingSetting, TransportCall, TransportSample } from './structured-judge.js'

/**
 * What a transport's `classify` makes of a failure. `detail` is the provider's words (the protocol scrubs them);
 * `retries` is how many retries were made (undefined: not said); `skipped` says why a retry was not made.
 */
export type TransportFailure = (
  | { readonly kind: 'aborted' }
  | {
      readonly kind: 'timeout'
      readonly retries?: number | undefined
      /** The failure of the attempt before the one that timed out. */
      readonly earlier?: string | undefined
    }
  | {
      readonly kind: 'unreachable'
      readonly detail: string
      readonly retries: number
      readonly host?: string | undefined
      readonly skipped?: string | undefined
    }
  | {
      readonly kind: 'http'
      readonly status: number
      readonly detail: string
      readonly retries: number
      readonly retryAfterMs?: number | undefined
      /**
       * A refusal the protocol can work around: the strict schema, a sampling setting (reasoning models take no
       * `temperature` but 1, often no logprobs or `n`), or logprobs it could not read.
       */
      readonly refuses?: 'schema' | SamplingSetting | 'malformed-logprobs' | undefined
      readonly skipped?: string | undefined
    }
  /** The answer's body was cut short; `what` continues the sentence after the judge's name. */
  | {
      readonly kind: 'cut-short'
      readonly what: string
      readonly retries: number
      readonly skipped?: string | undefined
    }
  /** Anything else; `detail` defaults to the error's message. */
  | { readonly kind: 'other'; readonly detail?: string | undefined }
  /** An error the transport has worded itself (a missing key, a feature the model lacks). */
  | { readonly kind: 'final'; readonly error: Error }
) & {
  /** The error to keep as the cause (scrubbed), when not the one the transport threw (e.g. a retry's last). */
  readonly cause?: unknown
}

/** The transport's own words for what the user should change: its options and environment differ. */
export interface FailureAdvice {
  /** After an unreachable server, e.g. "Check the network and OPENAI_BASE_URL (or the baseURL option)." */
  readonly unreachable: string
  /** How a cut-short body's message ends, after "the server cut the answer short". */
  readonly cutShort: string
  readonly unauthorized: string
  readonly notFound: string
  readonly rateLimited: (retries: string) => string
  /** For a 400 that names the temperature, and one that names the response format. */
  readonly temperature: string
  readonly structuredOutputs: string
  /** Whether a temperature or a response-format hint wins when the server's words name both. */
  readonly structuredFirst?: boolean | undefined
}

/**
 * What every transport (chat or decision) tells the protocol about itself: its identity for the cache and the runtime,
 * how to name it and advise in errors, and the secrets to scrub from what its provider sends.
 */
export interface TransportConnection {
  readonly name: string
  readonly cacheIdentity?: unknown
  readonly endpoint?: string | undefined
  readonly rateLimitRetries?: number | undefined
  readonly pricing?: Readonly<Record<string, ModelPrice>> | undefined
  readonly timeoutMs: number
  readonly advice: FailureAdvice
  /** Names the judge and where it is in call errors; asked after `secrets`, so it may read the connection. */
  where(): string
  /** The secrets to scrub from everything the server sends (the key, in any encoding); may throw a configuration error. */
  secrets(): Secrets
  /** Learns the secrets the provider will send with the next call (its request headers), before each call. */
  refreshSecrets?(): Promise<unknown>
}

/** Who failed and how to word it. */
export interface FailureSite {
  readonly where: string
  readonly timeoutMs: number
  readonly advice: FailureAdvice
  readonly scrub: (text: string) => string
}

/** The failure as the error a measurement ends with; every text from the server is scrubbed, the cause included. */
export function callError(
  failure: TransportFailure,
  error: unknown,
  site: FailureSite,
  signal: AbortSignal | undefined,
): Error {
  if (failure.kind === 'aborted' || signal?.aborted) return new MeasurementAbortedError(signal?.reason)
  if (failure.kind === 'final') return failure.error
  const { where, scrub, advice } = site
  // A server may echo the request (and so the key) in its error text; only a scrubbed copy leaves here.
  const original = failure.cause ?? error
  const cause = new Error(scrub(original instanceof Error ? original.message : String(original)))
  cause.name = original instanceof Error ? original.name : 'Error'
  switch (failure.kind) {
    case 'timeout': {
      const retries = failure.retries === undefined ? '' : `, ${retriesText(failure.retries)}`
      const earlier = failure.earlier === undefined ? '' : ` (the attempt before failed: ${scrub(failure.earlier)})`
      return new JudgeCallError(
        `${where} did not answer within ${site.timeoutMs} ms (timeoutMs)${retries}${earlier}. ` +
          'Raise timeoutMs, or shorten the input.',
        { cause },
      )
    }
    case 'unreachable': {
      const at = failure.host === undefined ? '' : ` at ${failure.host}`
      const skipped = failure.skipped === undefined ? '' : ` ${failure.skipped}`
      // A server that cannot be reached fails every call of the run alike: its advice is said once per run.
      return new JudgeCallError(
        `${where} could not be reached${at}, ${retriesText(failure.retries)}: ${scrub(failure.detail)}.${skipped}`,
        { cause, advice: advice.unreachable },
      )
    }
    case 'cut-short':
      return new JudgeCallError(
        `${where}${scrub(failure.what)}, ${retriesText(failure.retries)}. A proxy, a load balancer or the server cut ` +
          `the answer short${failure.skipped === undefined ? advice.cutShort : `. ${failure.skipped}`}`,
        { cause },
      )
    case 'http': {
      const { status } = failure
      const detail = scrub(failure.detail)
      const hint =
        (status === 429 || status >= 500 ? failure.skipped : undefined) ??
        statusHint(status, detail, retriesText(failure.retries), advice)
      // A refused key is refused for every call of the run: its advice is said once per run (JudgetreeError.advice).
      if (status === 401 && hint !== undefined) {
        return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}`, { cause, status, advice: hint })
      }
      return new JudgeCallError(`${where} answered HTTP ${status}: ${detail}${hint ? `\n${hint}` : ''}`, {
        cause,
        status,
        retryAfterMs: failure.retryAfterMs,
      })
    }
    case 'other':
      return new JudgeCallError(`${where} could not be called: ${scrub(failure.detail ?? cause.message)}`, { cause })
  }
}

/**
 * The error for a model that stopped before a usable answer (see TransportSample.stopped): final, with what it wrote
 * (`text`, scrubbed) and what to change.
 */
export function stoppedError(
  where: string,
  call: Pick<TransportCall, 'schemaName'>,
  text: string,
  sample: Pick<TransportSample, 'stopped' | 'finishReason'>,
): JudgeOutputError {
  const reason = sample.finishReason === undefined ? '' : ` (finish reason '${sample.finishReason}')`
  if (sample.stopped === 'length') {
    return new JudgeOutputError(
      `${where} was cut off at its output token limit${reason} before finishing the "${call.schemaName}" answer. ` +
        `Raise the model's max output tokens or shorten the input. Raw answer: ${answerExcerpt(text)}`,
      text,
    )
  }
  return new JudgeOutputError(
    `${where} refused to give the "${call.schemaName}" answer${reason}: ${answerExcerpt(text)}. Rephrase the ` +
      'criteria, or use a model that answers this kind of input.',
    text,
  )
}

/** "after 1 retry", "after 3 retries". */
export function retriesText(retries: number): string {
  return `after ${retries} ${retries === 1 ? 'retry' : 'retries'}`
}

function statusHint(status: number, detail: string, retries: string, advice: FailureAdvice): string | undefined {
  if (status === 401) return advice.unauthorized
  if (status === 403) return 'The key is not allowed to use this model; check its project and permissions.'
  if (status === 404) return advice.notFound
  if (status === 429) return advice.rateLimited(retries)
  if (status >= 500) return `The server kept failing ${retries}; try again later or raise maxRetries.`
  const temperature = /temperature/i.test(detail) ? advice.temperature : undefined
  const structured = /response_format|json_schema|structured/i.test(detail) ? advice.structuredOutputs : undefined
  return advice.structuredFirst ? (structured ?? temperature) : (temperature ?? structured)
}

/**
 * The wait a 429 or 503 asked for, in the OpenAI SDK's order of preference: retry-after-ms, then retry-after
 * (seconds or an HTTP date).
 */
export function retryAfterOf(headers: Headers | Readonly<Record<string, string>> | undefined): number | undefined {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers?.[name] ?? undefined))
  const ms = Number.parseFloat(get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const header = get('retry-after')
  if (!header) return undefined
  const seconds = Number.parseFloat(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** The innermost cause's message: undici's `terminated` wraps the socket's own words (`other side closed`). */
export function rootMessage(error: unknown): string {
  let current = error
  for (let depth = 0; depth < 8 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause
  }
  return current instanceof Error ? current.message : String(current)
}
