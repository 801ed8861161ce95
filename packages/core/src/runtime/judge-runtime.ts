import { resolve } from 'node:path'
import { CacheMissError, ConfigurationError, JudgeCallError } from '../errors.js'
import { readEnv } from '../internal/env.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from '../judge/types.js'
import { CACHE_MODES, type CacheLookup, type CacheMode, JudgeCacheStore } from './cache.js'
import { cacheKeyOf } from './cache-key.js'
import { CallLimiter } from './limiter.js'
import { envCacheDir, envCacheMode, envConcurrency, envRequestsPerMinute, validateLimits } from './limits.js'
import { SharedCall, type SharedOutcome } from './shared-call.js'
import { currentTrial, TRIAL_TEMPERATURE } from './trial-batch.js'

/** Options of {@link createJudgeRuntime}; each one left out is read from its JUDGETREE_* variable, then defaulted. */
export interface JudgeRuntimeOptions {
  /** @default process.env.JUDGETREE_CACHE ?? 'read-write' */
  cache?: CacheMode | undefined
  /** Relative paths are resolved against process.cwd(). @default process.env.JUDGETREE_CACHE_DIR ?? '.judgetree/cache' */
  cacheDir?: string | undefined
  /** Judge calls in flight at once in this process. @default process.env.JUDGETREE_CONCURRENCY ?? 8 */
  concurrency?: number | undefined
  /** Judge calls started per minute in this process, spaced evenly; pass `undefined` for no limit. @default process.env.JUDGETREE_RPM, else unlimited */
  requestsPerMinute?: number | undefined
  /** A coordinator (see startCoordinator) whose limit this process shares. @default process.env.JUDGETREE_COORDINATOR_URL at the first call */
  coordinatorUrl?: string | undefined
  /** Where warnings go (damaged cache entries, rate limits, an unreachable coordinator). @default console.warn */
  warn?: ((message: string) => void) | undefined
}

/** Counters of one runtime since it was created. */
export interface JudgeRuntimeStats {
  /** Requests received from metrics. */
  readonly requests: number
  /** Requests answered from the cache on disk. */
  readonly cacheHits: number
  /** Requests that waited on an identical request already in flight instead of calling again. */
  readonly sharedCalls: number
  /** Calls that reached the judge itself. */
  readonly judgeCalls: number
  readonly inFlight: number
  readonly queued: number
  /** 429s the judge answered in this process; each paused the calls (of every worker, with a coordinator). */
  readonly rateLimited: number
  /** This process's adaptive limit on judge calls now (at most `concurrency`); with a coordinator, the run's is there. */
  readonly currentConcurrency: number
}

/** Caches, limits and shares judge calls for every judge it wraps. */
export interface JudgeRuntime {
  readonly cache: CacheMode
  /** The absolute cache directory. */
  readonly cacheDir: string
  readonly concurrency: number
  readonly requestsPerMinute: number | undefined
  /** A judge that answers through this runtime; a judge that already does (through any runtime) is returned as is. */
  wrap(judge: JudgeModel): JudgeModel
  stats(): JudgeRuntimeStats
}

const RUNTIME = Symbol.for('judgetree.judgeRuntime')

/**
 * Builds a judge runtime: a content-addressed cache of judge answers on disk, a limit on judge calls in flight (and
 * per minute), and one shared call for identical requests in flight. Metrics use the process's default runtime,
 * configured by JUDGETREE_* variables; pass `model: runtime.wrap(judge)` to use another.
 *
 * @example
 * const runtime = createJudgeRuntime({ cache: 'replay', concurrency: 4 })
 * const metric = new DAGMetric({ name: 'Format', dag, model: runtime.wrap(new OpenAIJudge()) })
 */
export function createJudgeRuntime(options: JudgeRuntimeOptions = {}): JudgeRuntime {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `createJudgeRuntime(options) takes an options object (or nothing); got \`${String(options)}\`.`,
    )
  }
  // `undefined` reads the JUDGETREE_* variable; `null` is a value, refused below like any other wrong one.
  const mode = options.cache === undefined ? envCacheMode() : options.cache
  const cacheDir = options.cacheDir === undefined ? envCacheDir() : options.cacheDir
  const concurrency = options.concurrency === undefined ? envConcurrency() : options.concurrency
  const requestsPerMinute = 'requestsPerMinute' in options ? options.requestsPerMinute : envRequestsPerMinute()
  if (!CACHE_MODES.includes(mode)) {
    throw new ConfigurationError(
      `Expected \`cache\` to be one of ${CACHE_MODES.map((m) => `'${m}'`).join(', ')}, got \`${String(mode)}\`.`,
    )
  }
  if (typeof cacheDir !== 'string' || cacheDir.trim() === '' || cacheDir.includes('\0')) {
    throw new ConfigurationError(
      `Expected \`cacheDir\` to be a directory path (without NUL characters), got ${typeof cacheDir === 'string' ? JSON.stringify(cacheDir) : `\`${String(cacheDir)}\``}.`,
    )
  }
  validateLimits('createJudgeRuntime', { concurrency, requestsPerMinute })
  if (options.warn !== undefined && typeof options.warn !== 'function') {
    throw new ConfigurationError(
      `Expected \`warn\` to be a function that takes the warning text, got \`${String(options.warn)}\` (${typeof options.warn}).`,
    )
  }
  if (options.coordinatorUrl !== undefined) checkCoordinatorUrl(options.coordinatorUrl, '`coordinatorUrl`')
  const envCoordinator = readEnv('JUDGETREE_COORDINATOR_URL')
  if (envCoordinator !== undefined) checkCoordinatorUrl(envCoordinator, 'JUDGETREE_COORDINATOR_URL')
  const warn = options.warn ?? ((message: string) => console.warn(message))
  const store = new JudgeCacheStore(resolve(cacheDir), warn)
  const limiter = new CallLimiter({
    concurrency,
    requestsPerMinute,
    coordinatorUrl: () => {
      if (options.coordinatorUrl !== undefined) return options.coordinatorUrl
      // Read at the first call, as a runner's set-up may set it after this runtime was made.
      const url = readEnv('JUDGETREE_COORDINATOR_URL')
      if (url !== undefined) checkCoordinatorUrl(url, 'JUDGETREE_COORDINATOR_URL')
      return url
    },
    warn,
  })
  const inFlight = new Map<string, SharedCall>()
  const wrappers = new WeakMap<JudgeModel, JudgeModel>()
  const counts = { requests: 0, cacheHits: 0, sharedCalls: 0, judgeCalls: 0 }

  const callJudge = <T>(judge: JudgeModel, request: JudgeRequest<T>, signal: AbortSignal | undefined) =>
    limiter.run(
      () => {
        counts.judgeCalls += 1
        return judge.generate(request.signal === signal ? request : { ...request, signal })
      },
      signal,
      judge.rateLimitRetries ?? 0,
    )

  const lookupOrCall = async (judge: JudgeModel, request: JudgeRequest<unknown>, key: string, signal: AbortSignal) => {
    const found = await store.read(key, request.schema)
    if (found.status === 'hit') {
      counts.cacheHits += 1
      return { response: found.response, fromCache: true } satisfies SharedOutcome
    }
    if (mode === 'replay') throw replayMiss(judge, request, key, found, store)
    const response = await callJudge(judge, request, signal)
    if (mode === 'read-write') {
      const summary = {
        judge: judge.name,
        promptVersion: request.promptVersion,
        schemaName: request.schemaName,
        ...(judge.endpoint === undefined ? {} : { endpoint: judge.endpoint }),
      }
      await store.write(key, summary, response, judgeScrubOf(judge))
    }
    return { response, fromCache: false } satisfies SharedOutcome
  }

  const generate = <T>(judge: JudgeModel, request: JudgeRequest<T>): Promise<JudgeResponse<T>> => {
    const scope = currentTrial()
    if (scope !== undefined && request.trial === undefined) {
      // A call of one trial waits for the same call of the other trials, so that all go out as one request.
      const key = `${judgeIdOf(judge)}:${cacheKeyOf(judge, request as JudgeRequest<unknown>)}`
      const send = (shared: JudgeRequest<unknown>, trials: readonly number[]) => generateTrials(judge, shared, trials)
      return scope.group.ask(scope.trial, key, request as JudgeRequest<unknown>, send) as Promise<JudgeResponse<T>>
    }
    counts.requests += 1
    if (mode === 'off' || judge.cacheable === false) return callJudge(judge, request, request.signal)
    const key = cacheKeyOf(judge, request as JudgeRequest<unknown>)
    let shared = inFlight.get(key)
    if (shared === undefined) {
      const call = new SharedCall((signal) => lookupOrCall(judge, request as JudgeRequest<unknown>, key, signal))
      inFlight.set(key, call)
      void call.settled.then(() => inFlight.delete(key))
      shared = call
    } else {
      counts.sharedCalls += 1
    }
    return shared.join<T>(request.signal)
  }

  /**
   * One request for several trials: each trial's answer is its own cache entry (the trial number is in the key);
   * the trials the cache cannot answer are asked in one call when the judge has `generateSamples`, else one call
   * each. In replay mode a trial missing from the cache is an error before anything is asked.
   */
  const generateTrials = async (
    judge: JudgeModel,
    shared: JudgeRequest<unknown>,
    trials: readonly number[],
  ): Promise<readonly JudgeResponse<unknown>[]> => {
    counts.requests += trials.length
    const base = { ...shared, defaultTemperature: shared.defaultTemperature ?? TRIAL_TEMPERATURE }
    const requests = trials.map((trial) => ({ ...base, trial }))
    const caching = mode !== 'off' && judge.cacheable !== false
    const keys = requests.map((request) => (caching ? cacheKeyOf(judge, request) : undefined))
    const answers: (JudgeResponse<unknown> | undefined)[] = await Promise.all(
      requests.map(async (request, index) => {
        const key = keys[index]
        if (key === undefined) return undefined
        const found = await store.read(key, request.schema)
        if (found.status === 'hit') {
          counts.cacheHits += 1
          return found.response
        }
        if (mode === 'replay') throw replayMiss(judge, request, key, found, store)
        return undefined
      }),
    )
    const missing = requests.flatMap((_request, index) => (answers[index] === undefined ? [index] : []))
    const signal = shared.signal
    let fresh: readonly JudgeResponse<unknown>[]
    if (missing.length > 1 && typeof judge.generateSamples === 'function') {
      const sampler = judge.generateSamples.bind(judge)
      // A 429 on the shared call is retried like any other call's: trials must not be frailer than one measurement.
      fresh = await limiter.run(
        () => {
          counts.judgeCalls += 1
          return sampler(base, missing.length)
        },
        signal,
        judge.rateLimitRetries ?? 0,
      )
      if (fresh.length !== missing.length) {
        throw new JudgeCallError(
          `The judge "${judge.name}" returned ${fresh.length} samples from generateSamples where ${missing.length} ` +
            'were asked for; it must return one response per sample.',
        )
      }
    } else {
      fresh = await Promise.all(
        missing.map((index) => callJudge(judge, requests[index] as JudgeRequest<unknown>, signal)),
      )
    }
    for (const [position, index] of missing.entries()) {
      const response = fresh[position] as JudgeResponse<unknown>
      answers[index] = response
      const key = keys[index]
      if (key !== undefined && mode === 'read-write') {
        const summary = { judge: judge.name, promptVersion: shared.promptVersion, schemaName: shared.schemaName }
        await store.write(key, summary, response, judgeScrubOf(judge))
      }
    }
    return answers as JudgeResponse<unknown>[]
  }

  const runtime: JudgeRuntime = {
    cache: mode,
    cacheDir: store.dir,
    concurrency,
    requestsPerMinute,
    wrap(judge) {
      if (isRuntimeJudge(judge)) return judge
      let wrapped = wrappers.get(judge)
      if (wrapped === undefined) {
        wrapped = Object.freeze({
          name: judge.name,
          cacheIdentity: judge.cacheIdentity,
          endpoint: judge.endpoint,
          cacheable: judge.cacheable,
          // The runtime owns the 429 retries now; a judge wrapped twice must not retry them again.
          rateLimitRetries: 0,
          ...(typeof judge.scrubSecrets === 'function' ? { scrubSecrets: judge.scrubSecrets.bind(judge) } : {}),
          [RUNTIME]: runtime,
          generate: <T>(request: JudgeRequest<T>) => generate(judge, request),
        })
        wrappers.set(judge, wrapped)
      }
      return wrapped
    },
    stats: () => ({
      ...counts,
      inFlight: limiter.inFlight,
      queued: limiter.queued,
      rateLimited: limiter.rateLimits.rateLimited,
      currentConcurrency: limiter.rateLimits.concurrency,
    }),
  }
  return runtime
}

/** The judge's own scrub of its credentials, for what the cache writes; undefined when it has none. */
function judgeScrubOf(judge: JudgeModel): ((text: string) => string) | undefined {
  return typeof judge.scrubSecrets === 'function' ? judge.scrubSecrets.bind(judge) : undefined
}

/** True for a judge returned by some runtime's `wrap`. */
export function isRuntimeJudge(judge: JudgeModel): boolean {
  return (judge as { [RUNTIME]?: unknown })[RUNTIME] !== undefined
}

const judgeIds = new WeakMap<JudgeModel, number>()
let judgeCount = 0

/** A number per judge object, so that two judges with the same name and identity never share a trials request. */
function judgeIdOf(judge: JudgeModel): number {
  let id = judgeIds.get(judge)
  if (id === undefined) {
    judgeCount += 1
    id = judgeCount
    judgeIds.set(judge, id)
  }
  return id
}

let processRuntime: JudgeRuntime | undefined

/** The runtime every metric uses unless given a wrapped judge; created from JUDGETREE_* variables on first use. */
export function defaultJudgeRuntime(): JudgeRuntime {
  processRuntime ??= createJudgeRuntime()
  return processRuntime
}

/** The judge as the default runtime serves it, unless a runtime already serves it. */
export function withDefaultRuntime(judge: JudgeModel): JudgeModel {
  return isRuntimeJudge(judge) ? judge : defaultJudgeRuntime().wrap(judge)
}

function replayMiss(
  judge: JudgeModel,
  request: JudgeRequest<unknown>,
  key: string,
  found: CacheLookup,
  store: JudgeCacheStore,
): CacheMissError {
  const prompt = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? ''
  const start = prompt.replace(/\s+/g, ' ').trim()
  const damaged = found.status === 'damaged' ? ` (${found.problem})` : ''
  const at = judge.endpoint === undefined ? '' : ` at ${judge.endpoint}`
  return new CacheMissError(
    `The judge cache has no answer for this ${request.promptVersion} call (${trialOf(request)}schema ${request.schemaName}, judge ` +
      `${judge.name}${at}) and is in replay mode, so the judge was not called.\n` +
      `  prompt begins: ${JSON.stringify(start.length > 160 ? `${start.slice(0, 160)}…` : start)}\n` +
      `  expected entry: ${store.fileOf(key)}${damaged}\n` +
      recordedLines(store, judge.name, request) +
      'To record it, run the suite once with JUDGETREE_CACHE=read-write and a real judge (e.g. OPENAI_API_KEY ' +
      'set), then commit .judgetree/cache. A changed prompt, test case, model, judge option or cacheNamespace ' +
      '(not the base URL: it is not part of the key) needs a new recording.',
    key,
  )
}

/** "trial 6 of a trials run, " for a trial's call: a recording made with fewer trials has no entry for it. */
function trialOf(request: JudgeRequest<unknown>): string {
  return request.trial === undefined ? '' : `trial ${request.trial} of a trials run, `
}

/** A coordinator URL is the `http://host:port` startCoordinator printed; anything else is named with its setting. */
function checkCoordinatorUrl(url: unknown, setting: string): void {
  let parsed: URL | undefined
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || parsed.protocol !== 'http:') {
    throw new ConfigurationError(
      `Expected ${setting} to be the coordinator's http:// URL, as startCoordinator() gives it (e.g. ` +
        `\`http://127.0.0.1:4100\`); got ${typeof url === 'string' ? JSON.stringify(url) : String(url)}.`,
    )
  }
}

/**
 * What the cache holds for calls of this kind (same prompt version and schema), nearest first: entries by this
 * judge, then by others (a changed model name shows here), newest first within each. Their endpoints say where
 * they were recorded.
 */
function recordedLines(store: JudgeCacheStore, judgeName: string, request: JudgeRequest<unknown>): string {
  const entries = store
    .summaries(2_000)
    .filter((entry) => entry.promptVersion === request.promptVersion && entry.schemaName === request.schemaName)
  if (entries.length === 0) return `  recorded: no ${request.promptVersion} answers in ${store.dir}\n`
  // ISO times sort as plain strings; localeCompare costs ~20 ms a miss on 2,000 entries.
  const nearest = [...entries].sort(
    (a, b) => Number(b.judge === judgeName) - Number(a.judge === judgeName) || compareText(b.createdAt, a.createdAt),
  )
  const sameJudge = entries.filter((entry) => entry.judge === judgeName).length
  const lines = nearest
    .slice(0, 3)
    .map(
      (entry) =>
        `    ${entry.file} (judge ${entry.judge}${entry.endpoint === undefined ? '' : ` at ${entry.endpoint}`}, ` +
        `${entry.createdAt})\n`,
    )
  return (
    `  recorded: ${entries.length} ${request.promptVersion} answer${entries.length === 1 ? '' : 's'} with schema ` +
    `${request.schemaName}, ${sameJudge} by judge ${judgeName}; the nearest:\n${lines.join('')}`
  )
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
