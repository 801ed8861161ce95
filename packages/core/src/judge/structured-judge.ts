// The judge protocol, written once: a transport sends one request and classifies its failures; this reads and
// validates the answer, re-asks once, scrubs, prices, keeps the warn-once latches (a refused schema, a sampling
// setting refused or ignored), shares samples through `n` and words every failure. OpenAIJudge and @judgetree/ai-sdk
// are transports; a new provider is one more.
import type { z } from 'zod'
import {
  ConfigurationError,
  JudgeCallError,
  JudgeOutputError,
  MeasurementAbortedError,
  withoutAdvice,
} from '../errors.js'
import { terminalSafe } from '../internal/safe-text.js'
import { type Secrets, scrubSecrets, scrubTokens, scrubValue } from '../internal/scrub.js'
import { answerExcerpt, parseJudgeAnswer, withSchemaInstruction } from './answer.js'
import { distributionOf } from './distribution.js'
import { callError, stoppedError, type TransportConnection, type TransportFailure } from './failures.js'
import { judgeJsonSchema } from './json-schema.js'
import { costOf } from './pricing.js'
import { joinReasons, type SettingNotApplied, settingReason, settingWarning } from './sampling-settings.js'
import { addTokens, shareOf, type Tokens, tokensOf } from './tokens.js'
import type { JudgeMessage, JudgeModel, JudgeRequest, JudgeResponse, TokenLogprob } from './types.js'

/** One request as the protocol hands it to a transport. */
export interface TransportCall {
  /** The conversation, with any re-ask and, in JSON mode, the schema written into the last user message. */
  readonly messages: readonly JudgeMessage[]
  readonly schema: z.ZodType<unknown>
  readonly schemaName: string
  /** The JSON schema to hold the answer to; undefined asks for JSON (mode) with the schema in the prompt. */
  readonly jsonSchema: Record<string, unknown> | undefined
  /** How many samples to answer in this one call. */
  readonly n: number
  /** Logprobs wanted, at most the 20 OpenAI takes (undefined: none, or the model refused them before). */
  readonly topLogprobs: number | undefined
  /** The request's temperature for judges given none of their own (trials). */
  readonly defaultTemperature: number | undefined
  /**
   * The temperature to send: the transport's own, else the request's default, else 0; undefined once the model
   * refused or ignored one (it then samples at its own, and results say so).
   */
  readonly temperature: number | undefined
  /**
   * Sampling settings the model refused or ignored before: the transport sends none of them. `topLogprobs` and `n`
   * already say so for logprobs and `n`; `temperature` is left to the model's own.
   */
  readonly withheld: ReadonlySet<SamplingSetting>
  readonly signal: AbortSignal | undefined
  /** Takes the judge's secrets out of a text: for errors a transport words itself. */
  readonly scrub: (text: string) => string
}

/** One answer of a call; the protocol scrubs it. */
export interface TransportSample {
  readonly text: string
  readonly logprobs?: readonly TokenLogprob[] | undefined
  /** Why the logprobs sent were not read (they were malformed), worded. */
  readonly logprobsProblem?: string | undefined
  /**
   * The model stopped before a usable answer, which is final (never re-asked): `'length'` at its output token limit,
   * `'refused'` by a refusal or a content filter, `text` then being what it wrote; the protocol words it.
   */
  readonly stopped?: 'length' | 'refused' | undefined
  /** The provider's finish reason for a stop, quoted in the error (e.g. `'content_filter'`). */
  readonly finishReason?: string | undefined
}

/** What one call returned: a sample per `n` (an Error for one that cannot be used), usage and the served model. */
export interface TransportCompletion {
  readonly samples: readonly (TransportSample | Error)[]
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of `promptTokens`, those read from the server's prompt cache, when it says. */
  readonly cachedPromptTokens?: number | undefined
  /** Of `completionTokens`, those spent reasoning, when the server says. */
  readonly reasoningTokens?: number | undefined
  readonly servedModel: string | undefined
  /**
   * Sampling settings the provider did not apply although they were sent (the AI SDK drops `temperature` for
   * reasoning models and says so in its warnings), in the provider's words. The protocol warns once per model and
   * setting and marks every result made that way.
   */
  readonly settingsIgnored?: readonly SettingIgnored[] | undefined
  /** The provider's words when it did not hold the answer to the JSON schema it was sent (it takes none). */
  readonly schemaIgnored?: string | undefined
}

/** A sampling setting a model may refuse or ignore: reasoning models take no `temperature` but 1, often no logprobs. */
export type SamplingSetting = 'temperature' | 'logprobs' | 'n'

/** A sampling setting that was sent and not applied, in the provider's words. */
export interface SettingIgnored {
  readonly setting: SamplingSetting
  readonly detail: string
}

/** The warn-once latches in the transport's words: they name its options. */
export interface LatchWording {
  /** The server refused the strict schema: why results say so, and the one warning. */
  schemaRefused(schemaName: string, detail: string): { readonly reason: string; readonly warning: string }
  /** The provider takes no schema at all: why results say so, and the warning (none to skip it); may throw. */
  schemaIgnored?(detail: string): { readonly reason: string; readonly warning: string | undefined }
  /** Why logprobs are missing when the model was asked and sent none. */
  logprobsMissing?(): string | undefined
  /** Why logprobs are no longer asked for after a response the provider could not read because of them. */
  readonly malformedLogprobs?: string | undefined
}

/** A provider: sends one request, classifies its failures, and names itself in messages. */
export interface JudgeTransport extends TransportConnection {
  /** The temperature the user gave the judge, if any (see TransportCall.temperature). */
  readonly temperature?: number | undefined
  /** Sends `n` > 1 in one call (trials then pay for the prompt once); without it, samples are asked one by one. */
  readonly samplesPerCall?: boolean | undefined
  /** 'auto' falls back to JSON mode for a refused schema; 'required' makes a refusal an error; 'json' never sends one. */
  readonly structuredOutputs: 'auto' | 'required' | 'json'
  /** Writes the schema into the prompt even when it is sent as the response format. */
  readonly schemaInPrompt?: boolean | undefined
  readonly wording: LatchWording
  readonly warn?: ((message: string) => void) | undefined
  /** Names the judge in the re-ask's error, e.g. `The judge model "gpt-4.1"`. */
  readonly label: string
  complete(call: TransportCall): Promise<TransportCompletion>
  classify(error: unknown, call: TransportCall): TransportFailure
  /** The model's shutdown date as its server lists it (see JudgeModel.shutdownDate); without it, never asked. */
  shutdownDate?(signal: AbortSignal): Promise<string | null>
}

interface Asked {
  readonly completion: TransportCompletion
  readonly scrub: (text: string) => string
  readonly secrets: Secrets
  /** Why the answer's schema was not held by the server, when it was not. */
  readonly unenforced: string | undefined
  /** Why each sampling setting this request wanted was not applied to this call's answers (left out or ignored). */
  readonly notApplied: ReadonlyMap<SamplingSetting, string>
}

/** A judge speaking the protocol through `transport`; with `generateSamples` when the transport sends `n`. */
export function createStructuredJudge(transport: JudgeTransport): JudgeModel {
  return transport.samplesPerCall ? new SamplingJudge(transport) : new StructuredJudge(transport)
}

/** The most top logprobs asked for: the most OpenAI (and the AI SDK's OpenAI providers) take. */
const MAX_TOP_LOGPROBS = 20
/** How long calls fail at once after one could not reach a server that has never answered. */
const UNREACHABLE_MEMORY_MS = 30_000

const REASK = (problem: string, schemaName: string) =>
  `Your previous answer could not be used: ${problem}\n` +
  `Answer again with only a JSON object matching the "${schemaName}" schema, and no other text.`

export class StructuredJudge implements JudgeModel {
  readonly name: string
  readonly cacheIdentity: unknown
  readonly endpoint: string | undefined
  readonly rateLimitRetries: number | undefined
  /** Present when the transport can look the model's shutdown date up. */
  readonly shutdownDate?: (signal: AbortSignal) => Promise<string | null>
  readonly #transport: JudgeTransport
  /** Why each schema the server refused is asked for in JSON mode, by schema name: set once, at the refusal. */
  readonly #schemasRefused = new Map<string, string>()
  /** Why every schema goes into the prompt: set once the provider said it takes none. */
  #schemaIgnored: string | undefined
  /** The sampling settings this model refused or ignored, and so is no longer sent: set once, at the first sign. */
  readonly #settings = new Map<SamplingSetting, { readonly reason: string }>()
  /** Whether the server has answered a call yet (with anything, an HTTP error included). */
  #answered = false
  /**
   * The failure of a call that could not reach a server that has never answered, and when: every call in the next
   * UNREACHABLE_MEMORY_MS would retry and fail alike, so they fail at once with it (a server that has answered once
   * is retried as usual, and after that time one is asked again: it may have been started meanwhile, in watch mode).
   */
  #neverReached: { readonly failure: JudgeCallError; readonly at: number } | undefined

  constructor(transport: JudgeTransport) {
    this.#transport = transport
    this.name = transport.name
    this.cacheIdentity = transport.cacheIdentity
    this.endpoint = transport.endpoint
    this.rateLimitRetries = transport.rateLimitRetries
    if (typeof transport.shutdownDate === 'function') this.shutdownDate = transport.shutdownDate.bind(transport)
  }

  /** Takes this judge's secrets (its key, in any encoding) out of a text: the runtime applies it to cache entries. */
  scrubSecrets(text: string): string {
    try {
      return scrubSecrets(text, this.#transport.secrets())
    } catch {
      // No connection can be made (no key, a malformed one): there is no key of this judge to take out.
      return scrubSecrets(text)
    }
  }

  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const first = await this.#ask(request, [], 1)
    const sample = first.completion.samples[0]
    if (sample instanceof Error || sample === undefined) throw sample ?? this.#noAnswer(first)
    const text = first.scrub(sample.text)
    const answer = parseJudgeAnswer(text, request.schema)
    let final = first
    let finalSample = sample
    let finalText = text
    let value: T
    if (answer.ok) value = answer.value
    else {
      const followUp: JudgeMessage[] = [
        { role: 'assistant', content: text },
        { role: 'user', content: REASK(answer.problem, request.schemaName) },
      ]
      final = await this.#ask(request, followUp, 1)
      const again = final.completion.samples[0]
      if (again instanceof Error || again === undefined) throw again ?? this.#noAnswer(final)
      finalSample = again
      finalText = final.scrub(again.text)
      const second = parseJudgeAnswer(finalText, request.schema)
      if (!second.ok) {
        throw new JudgeOutputError(
          `${this.#transport.label} did not answer with valid "${request.schemaName}" JSON, even after being ` +
            `asked again: ${final.scrub(second.problem)}\nRaw answer: ${answerExcerpt(finalText)}`,
          finalText,
        )
      }
      value = second.value
    }
    // A re-ask costs both calls.
    const tokens =
      final === first ? tokensOf(first.completion) : addTokens(tokensOf(first.completion), tokensOf(final.completion))
    return this.#response(request, final, finalSample, finalText, value, tokens, {
      unenforced: first.unenforced ?? final.unenforced,
    })
  }

  /**
   * Asks for `count` samples of one request in one call (`n`), so the prompt is paid once: trials use it. A sample
   * that cannot be used (invalid JSON, a refusal) and samples a server did not return (some compatible servers
   * ignore `n`) are asked for alone, with the usual re-ask. The first sample carries the prompt tokens (and the cached
   * ones); completion tokens (and the reasoning ones) and their cost are shared evenly.
   */
  protected async samplesThroughN<T>(request: JudgeRequest<T>, count: number): Promise<readonly JudgeResponse<T>[]> {
    if (!(Number.isInteger(count) && count >= 1)) {
      throw new ConfigurationError(
        `generateSamples(request, count) needs a whole number count from 1 and up, got ${count}.`,
      )
    }
    if (count === 1) return [await this.generate(request)]
    if (request.signal?.aborted) throw new MeasurementAbortedError(request.signal.reason)
    const asked = await this.#ask(request, [], count)
    const { completion } = asked
    // A model that takes no `n` answered one sample: the others are asked for alone, below, and all say so.
    const oneByOne = asked.notApplied.get('n')
    const mark = <R extends JudgeResponse<T>>(response: R): R =>
      oneByOne === undefined ? response : { ...response, samplingNotApplied: joinReasons(response, oneByOne) }
    const samples = Array.from({ length: count }, async (_, position): Promise<JudgeResponse<T>> => {
      const sample = completion.samples[position]
      const text = sample === undefined || sample instanceof Error ? undefined : asked.scrub(sample.text)
      const answer = text === undefined ? undefined : parseJudgeAnswer(text, request.schema)
      const tokens = shareOf(tokensOf(completion), position, count)
      if (text === undefined || answer === undefined || !answer.ok) {
        // Asked for alone, with the usual re-ask: it then made a call of its own, and still carries its share.
        const again = await this.generate(request)
        const costUsd = this.#cost(completion.servedModel, tokens)
        const { costUsd: againCost, ...againTokens } = again.usage
        const sum = againCost === undefined || costUsd === undefined ? undefined : againCost + costUsd
        return mark({ ...again, usage: { ...addTokens(againTokens, tokens), costUsd: sum } })
      }
      return this.#response(request, asked, sample as TransportSample, text, answer.value, tokens, {
        unenforced: asked.unenforced,
        extraSample: position > 0,
      })
    })
    return Promise.all(samples)
  }

  #response<T>(
    request: JudgeRequest<T>,
    asked: Asked,
    sample: TransportSample,
    text: string,
    value: T,
    tokens: Tokens,
    marks: { readonly unenforced: string | undefined; readonly extraSample?: boolean },
  ): JudgeResponse<T> {
    // Tokens reach results and cache files; a key can be split across several of them.
    const logprobs = sample.logprobs === undefined ? undefined : scrubTokens(sample.logprobs, asked.secrets)
    const unavailable =
      request.topLogprobs === undefined ? undefined : this.#logprobsUnavailable(asked, sample, logprobs)
    const sampling = [asked.notApplied.get('temperature'), asked.notApplied.get('n')].filter((why) => why !== undefined)
    const distribution = request.question === undefined ? undefined : distributionOf(request.question, value, logprobs)
    return {
      // The raw text is scrubbed before parsing, but escapes (`\u0073k-…`) decode into the key only when parsed.
      value: scrubValue(value, asked.secrets),
      usage: { ...tokens, costUsd: this.#cost(asked.completion.servedModel, tokens) },
      logprobs,
      cached: false,
      rawText: text,
      ...(marks.extraSample ? { extraSample: true } : {}),
      ...(unavailable === undefined ? {} : { logprobsUnavailable: asked.scrub(unavailable) }),
      ...(marks.unenforced === undefined ? {} : { structuredOutputsUnavailable: marks.unenforced }),
      ...(sampling.length === 0 ? {} : { samplingNotApplied: asked.scrub(sampling.join('; ')) }),
      ...(distribution === undefined ? {} : { distribution }),
    }
  }

  /** Cost by the judge's name, then by the model the server says it served; cached prompt tokens at their price. */
  #cost(servedModel: string | undefined, tokens: Tokens): number | undefined {
    const pricing = this.#transport.pricing
    const price = (model: string) =>
      costOf(model, tokens.promptTokens, tokens.completionTokens, pricing, tokens.cachedPromptTokens ?? 0)
    return price(this.name) ?? (servedModel === undefined ? undefined : price(servedModel))
  }

  #logprobsUnavailable(
    asked: Asked,
    sample: TransportSample,
    logprobs: readonly TokenLogprob[] | undefined,
  ): string | undefined {
    const notApplied = asked.notApplied.get('logprobs')
    if (notApplied !== undefined) return notApplied
    if (sample.logprobsProblem !== undefined) return sample.logprobsProblem
    return logprobs === undefined ? this.#transport.wording.logprobsMissing?.() : undefined
  }

  /** A call not made: the server could not be reached before and has never answered; same advice, said once. */
  #unreachableAgain(first: JudgeCallError): JudgeCallError {
    const message = first.advice === undefined ? first.message : withoutAdvice(first.message, first.advice)
    return new JudgeCallError(
      `${message} This call was not made: an earlier call failed so, and no call of this judge has reached the server.`,
      { cause: first, advice: first.advice },
    )
  }

  #noAnswer(asked: Asked): Error {
    return new JudgeOutputError(`${asked.scrub(this.#transport.where())} returned no answer.`, '')
  }

  /** One call, after the latches: a call refused for its schema or a sampling setting is made again without it. */
  async #ask<T>(request: JudgeRequest<T>, followUp: readonly JudgeMessage[], n: number): Promise<Asked> {
    const transport = this.#transport
    await transport.refreshSecrets?.()
    const secrets = transport.secrets()
    const scrub = (text: string) => scrubSecrets(text, secrets)
    const refused = this.#schemasRefused.get(request.schemaName)
    const jsonMode = transport.structuredOutputs === 'json' || refused !== undefined
    const jsonSchema = judgeJsonSchema(request.schema, request.schemaName)
    const inPrompt = jsonMode || transport.schemaInPrompt || this.#schemaIgnored !== undefined
    // The settings this request wants that the model no longer gets, with why: its answers will say so.
    const notApplied = new Map<SamplingSetting, string>()
    const wanted: Record<SamplingSetting, boolean> = {
      temperature: true,
      logprobs: request.topLogprobs !== undefined,
      n: n > 1,
    }
    for (const [setting, latch] of this.#settings) if (wanted[setting]) notApplied.set(setting, latch.reason)
    const call: TransportCall = {
      messages: [...(inPrompt ? withSchemaInstruction(request.messages, jsonSchema) : request.messages), ...followUp],
      schema: request.schema,
      schemaName: request.schemaName,
      jsonSchema: jsonMode ? undefined : jsonSchema,
      n: this.#settings.has('n') ? 1 : n,
      topLogprobs:
        this.#settings.has('logprobs') || request.topLogprobs === undefined
          ? undefined
          : Math.min(request.topLogprobs, MAX_TOP_LOGPROBS),
      defaultTemperature: request.defaultTemperature,
      temperature: this.#settings.has('temperature')
        ? undefined
        : (transport.temperature ?? request.defaultTemperature ?? 0),
      withheld: new Set(this.#settings.keys()),
      signal: request.signal,
      scrub,
    }
    const unreachable = this.#neverReached
    if (unreachable !== undefined && !this.#answered) {
      if (performance.now() - unreachable.at < UNREACHABLE_MEMORY_MS) throw this.#unreachableAgain(unreachable.failure)
      this.#neverReached = undefined
    }
    let completion: TransportCompletion
    try {
      completion = await transport.complete(call)
      this.#answered = true
    } catch (error) {
      if (error instanceof MeasurementAbortedError) throw error
      const failure = transport.classify(error, call)
      if (failure.kind !== 'unreachable') this.#answered = true
      if (
        failure.kind === 'http' &&
        failure.refuses !== undefined &&
        this.#workAround(failure.refuses, failure, call)
      ) {
        return this.#ask(request, followUp, n)
      }
      const site = { where: transport.where(), timeoutMs: transport.timeoutMs, advice: transport.advice, scrub }
      const thrown = callError(failure, error, site, request.signal)
      if (failure.kind === 'unreachable' && !this.#answered && thrown instanceof JudgeCallError) {
        this.#neverReached ??= { failure: thrown, at: performance.now() }
      }
      throw thrown
    }
    if (completion.schemaIgnored !== undefined && !jsonMode) this.#noteSchemaIgnored(scrub(completion.schemaIgnored))
    for (const { setting, detail } of completion.settingsIgnored ?? []) {
      const latch = this.#latch(setting, 'ignored', scrub(detail))
      if (wanted[setting] && !notApplied.has(setting)) notApplied.set(setting, latch.reason)
    }
    const unenforced = (jsonMode ? refused : undefined) ?? this.#schemaIgnored
    // A model that stopped (its output limit, a refusal) gave its final word: an error, never re-asked.
    const samples = completion.samples.map((sample) =>
      sample instanceof Error || sample.stopped === undefined
        ? sample
        : stoppedError(scrub(transport.where()), call, scrub(sample.text), sample),
    )
    return { completion: { ...completion, samples }, scrub, secrets, unenforced, notApplied }
  }

  /** True when the refusal was worked around (a latch set) and the call should be made again. */
  #workAround(refuses: Refusal, failure: { detail: string }, call: TransportCall) {
    const transport = this.#transport
    const detail = call.scrub(failure.detail)
    if (refuses === 'schema') {
      if (call.jsonSchema === undefined || transport.structuredOutputs === 'required') return false
      // Calls in flight when the server refused may be refused too; the first one decides and warns.
      if (!this.#schemasRefused.has(call.schemaName)) {
        const { reason, warning } = transport.wording.schemaRefused(call.schemaName, detail)
        this.#schemasRefused.set(call.schemaName, reason)
        this.#warn(warning)
      }
      return true
    }
    if (refuses === 'malformed-logprobs') {
      const reason = transport.wording.malformedLogprobs
      if (call.topLogprobs === undefined || reason === undefined) return false
      if (!this.#settings.has('logprobs')) this.#settings.set('logprobs', { reason })
      return true
    }
    // A setting the call did not send cannot be what was refused: the refusal is the error it is.
    const sent = {
      temperature: !call.withheld.has('temperature'),
      logprobs: call.topLogprobs !== undefined,
      n: call.n > 1,
    }
    if (!sent[refuses]) return false
    // Reasoning models refuse sampling settings (any temperature but 1, logprobs, `n`); the answer is as usable without.
    this.#latch(refuses, 'refused', detail)
    return true
  }

  /**
   * Stops sending `setting` to this model, refused (the call is made again without it) or ignored (the provider
   * said it did not apply it), and warns once: calls in flight when it happened may hit it too, the first decides.
   */
  #latch(setting: SamplingSetting, how: SettingNotApplied, detail: string): { readonly reason: string } {
    const known = this.#settings.get(setting)
    if (known !== undefined) return known
    const latch = { reason: settingReason(this.name, setting, how, detail) }
    this.#settings.set(setting, latch)
    this.#warn(settingWarning(this.#transport.where(), setting, how, detail))
    return latch
  }

  #noteSchemaIgnored(detail: string): void {
    if (this.#schemaIgnored !== undefined || this.#transport.wording.schemaIgnored === undefined) return
    const { reason, warning } = this.#transport.wording.schemaIgnored(detail)
    this.#schemaIgnored = reason
    if (warning !== undefined) this.#warn(warning)
  }

  /** Every latch's one warning quotes the server's words: they reach a terminal or CI log as plain text. */
  #warn(message: string): void {
    const warn = this.#transport.warn ?? ((text: string) => console.warn(text))
    warn(terminalSafe(message))
  }
}

/** What a refusal the protocol can work around names: the strict schema, a sampling setting, or unreadable logprobs. */
type Refusal = NonNullable<Extract<TransportFailure, { kind: 'http' }>['refuses']>

/** The protocol's judge for a transport that answers several samples in one call (`n`). */
export class SamplingJudge extends StructuredJudge {
  generateSamples<T>(request: JudgeRequest<T>, count: number): Promise<readonly JudgeResponse<T>[]> {
    return this.samplesThroughN(request, count)
  }
}
