import type { z } from 'zod'

/** One chat message sent to a judge. */
export interface JudgeMessage {
  readonly role: 'system' | 'user' | 'assistant'
  readonly content: string
}

/** What a judge call cost. Token counts are 0 when the server did not report them. */
export interface JudgeUsage {
  readonly promptTokens: number
  readonly completionTokens: number
  /**
   * Of `promptTokens`, how many the server read from its prompt cache (priced at the model's cached-input price).
   * @default 0 (absent when the server did not report it)
   */
  readonly cachedPromptTokens?: number | undefined
  /** Of `completionTokens`, how many the model spent reasoning (billed as output, never shown). @default 0 */
  readonly reasoningTokens?: number | undefined
  /** Cost in USD; undefined when the model's price is unknown. */
  readonly costUsd: number | undefined
}

/** The alternatives the model considered for one output token. */
export interface TokenLogprob {
  readonly token: string
  readonly logprob: number
  readonly topLogprobs: readonly { readonly token: string; readonly logprob: number }[]
}

/**
 * The decision a request asks for, typed, so a judge can answer it with probabilities: a yes/no `predicate`, a
 * `choice` among options (in declaration order), or a `score` on integer levels. `field` names the schema property
 * holding the answer. Requests that are not decisions (a task's output, G-Eval's steps) carry none.
 */
export type JudgeQuestion =
  | { readonly kind: 'predicate'; readonly instructions: string; readonly state: unknown; readonly field: string }
  | {
      readonly kind: 'choice'
      readonly instructions: string
      readonly state: unknown
      readonly options: readonly string[]
      readonly field: string
    }
  | {
      readonly kind: 'score'
      readonly instructions: string
      readonly state: unknown
      readonly levels: readonly number[]
      /** What each level means, in the order of `levels` (a rubric's descriptions); shown to a decision model. */
      readonly descriptions?: readonly (string | undefined)[] | undefined
      readonly field: string
    }

/** A request for one structured judgement. */
export interface JudgeRequest<T> {
  /** The conversation with the judge, usually one system and one user message. */
  readonly messages: readonly JudgeMessage[]
  /** The answer's shape: sent to the model as its JSON schema and used to validate the reply. */
  readonly schema: z.ZodType<T>
  /** A short identifier for the schema, e.g. `binary_verdict` (letters, digits, `_` and `-`). */
  readonly schemaName: string
  /** Asks for token logprobs with this many alternatives per token, when the model supports them. */
  readonly topLogprobs?: number | undefined
  /** Identifies the prompt template and its version, e.g. `binary-judgement@1`; part of the cache key. */
  readonly promptVersion: string
  /**
   * Which trial of a `trials` run this call belongs to (1-based); part of the cache key, so every trial has its own
   * answer on disk. Undefined outside trials runs.
   */
  readonly trial?: number | undefined
  /**
   * The sampling temperature to use when the judge was given none of its own: trials set it (to 1) so that their
   * samples can differ. A judge whose temperature its user set keeps that one. Part of the cache key.
   */
  readonly defaultTemperature?: number | undefined
  /** Cancels the call. */
  readonly signal?: AbortSignal | undefined
  /** The decision this request asks for, when it is one; not part of the cache key (the messages state it). */
  readonly question?: JudgeQuestion | undefined
}

/**
 * A judge's validated answer and what it cost. A decision judge's `value` holds only the question's `field` (no
 * `reason`: it writes no text) and its `distribution`.
 */
export interface JudgeResponse<T> {
  readonly value: T
  readonly usage: JudgeUsage
  /** Present when logprobs were requested and the model returned them. */
  readonly logprobs?: readonly TokenLogprob[] | undefined
  /** True when the answer came from a cache rather than a model call. */
  readonly cached: boolean
  /** The raw text the model answered with (after any re-ask). */
  readonly rawText?: string | undefined
  /** Why logprobs are missing although they were requested, e.g. the model rejects them; shown in traces. */
  readonly logprobsUnavailable?: string | undefined
  /**
   * Why the server did not hold the answer to its JSON schema, e.g. it refused the strict schema and the judge
   * asked in JSON mode; the answer was then checked only by the local validation. Shown in traces.
   */
  readonly structuredOutputsUnavailable?: string | undefined
  /**
   * Why a sampling setting judgetree sends was not applied to this answer: the model refused it (a reasoning model
   * takes no `temperature` but 1, or no `n`) and was asked again without it, or the provider said it ignored it. A
   * refused temperature means the answer was sampled at the model's own temperature, trials' samples included.
   * Shown in traces. Refused logprobs are told by `logprobsUnavailable`.
   */
  readonly samplingNotApplied?: string | undefined
  /**
   * True for the second and later answers one call returned (OpenAI's `n` samples, or a decision model's several
   * questions in one request): this answer made no call of its own and its usage holds no tokens (the first's does).
   */
  readonly extraSample?: boolean | undefined
  /**
   * For a request with a `question`, the probability of each option, level or `true`/`false`, read from the answer
   * token's logprobs (renormalised over the alternatives the model returned); absent when there were none to read.
   */
  readonly distribution?: Readonly<Record<string, number>> | undefined
  /**
   * A jury's answer only: each juror that answered, in declaration order, with its own response (whose usage is that
   * juror's); for a decision, with its verdict. The jury's own `usage` is their sum.
   */
  readonly jurors?: readonly JurorResponse[] | undefined
}

/** One juror's part in a jury's answer. */
export interface JurorResponse {
  /** The juror's name. */
  readonly juror: string
  readonly response: JudgeResponse<unknown>
  /** Its verdict (the question's field), when the request was a decision. */
  readonly verdict?: string | number | boolean | undefined
  /** Its probability of that verdict, when it gave a distribution. */
  readonly probability?: number | undefined
}

/** Anything that can judge: the built-in OpenAI judge, the scripted judge, or your own. */
export interface JudgeModel {
  /** The model's name as shown in results and reports, e.g. `gpt-4.1`. */
  readonly name: string
  /**
   * Everything besides the request that changes this judge's answers (sampling options, endpoint), as plain JSON;
   * part of the cache key. Never include secrets: it is hashed, and judges built on it may be logged.
   * @default undefined (only `name` identifies the judge)
   */
  readonly cacheIdentity?: unknown
  /**
   * Where the judge sends its calls (host and path, no credentials), for messages and cache entries; not part of
   * the cache key. @default undefined
   */
  readonly endpoint?: string | undefined
  /** False when answers must never be cached, e.g. a scripted judge whose script is edited. @default true */
  readonly cacheable?: boolean | undefined
  /**
   * How many times the judge runtime may retry a call that ends in a 429 (a JudgeCallError with status 429). A judge
   * that sets it leaves 429 retries to the runtime, which pauses every worker of the run for the server's
   * Retry-After before retrying. @default 0 (the judge retries 429s itself, if at all)
   */
  readonly rateLimitRetries?: number | undefined
  /**
   * Takes the judge's own credentials (its provider's key, in any encoding) out of a text. The judge runtime applies
   * it to every cache entry it writes, as a safety net behind the judge's own scrubbing of its answers; a judge that
   * knows a key the process environment does not name should have it. @default undefined (only OPENAI_API_KEY and
   * key-shaped text are scrubbed from cache entries)
   */
  scrubSecrets?(text: string): string
  generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>>
  /**
   * The day the judge's server says this model shuts down (`YYYY-MM-DD`), or null when it names none. The judge
   * runtime asks at most once a day per model and endpoint (with its cache read-write, beside which it remembers the
   * answer), never waiting for it in a measurement, and warns once per run when there is a date; a failure or an
   * abort (after 5 s) is silent.
   * OpenAIJudge reads `shutdown_date` from `GET /v1/models/{model}`. @default undefined (never asked)
   */
  shutdownDate?(signal: AbortSignal): Promise<string | null>
  /**
   * Answers `count` independent samples of one request in one call, paying for the prompt once (OpenAI's `n`).
   * Optional: trials ask a judge without it once per trial. Resolves to `count` responses; the first carries the
   * prompt tokens, the others are marked `extraSample`.
   */
  generateSamples?<T>(request: JudgeRequest<T>, count: number): Promise<readonly JudgeResponse<T>[]>
  /**
   * True for a decision model: it answers only requests that carry a `question`, with a `distribution` and no text
   * (its value holds only the question's `field`). A metric sends it its decisions (`decisionModel`) and everything
   * else to its chat `model`. @default false
   */
  readonly decides?: boolean | undefined
  /**
   * Answers several decisions about one state in one call (a decision model takes many questions per request). The
   * judge runtime uses it for requests with a `question` asked together about the same `state`. Resolves to one
   * entry per request, in order: its response, or the Error that request alone ended in (a refused question); rejects
   * when the call as a whole failed. The first response carries the call's usage; the others are marked
   * `extraSample`. Optional: without it each decision is its own call.
   */
  generateMany?(requests: readonly JudgeRequest<unknown>[]): Promise<readonly (JudgeResponse<unknown> | Error)[]>
}
