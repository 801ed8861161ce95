import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { readEnv } from '../internal/env.js'
import { expecting } from '../internal/options.js'
import { CACHE_MODES, type CacheMode } from './cache.js'

export const DEFAULT_CONCURRENCY = 8
export const DEFAULT_CACHE_DIR = '.judgetree/cache'
/** The longest delay Node's timers can wait (2^31−1 ms, about 24.8 days); a larger one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1
/** The lowest rate whose spacing (60,000 ms / rate) a timer can still wait for. */
const MIN_REQUESTS_PER_MINUTE = 60_000 / MAX_TIMER_MS
const RPM_EXPECTED = `a number of requests per minute from ${MIN_REQUESTS_PER_MINUTE.toPrecision(3)} (one per 24.8 days) up`

/** JUDGETREE_CONCURRENCY, else the default; a malformed value is a ConfigurationError that names it. */
export function envConcurrency(): number {
  return envNumber('JUDGETREE_CONCURRENCY', 'a whole number from 1 and up', Number.isInteger) ?? DEFAULT_CONCURRENCY
}

/** JUDGETREE_RPM, else undefined (no rate limit). */
export function envRequestsPerMinute(): number | undefined {
  return envNumber('JUDGETREE_RPM', RPM_EXPECTED, (value) => value >= MIN_REQUESTS_PER_MINUTE)
}

/** JUDGETREE_CACHE, else 'read-write'. */
export function envCacheMode(): CacheMode {
  const raw = readEnv('JUDGETREE_CACHE')
  if (raw !== undefined && !CACHE_MODES.includes(raw as CacheMode)) {
    throw new ConfigurationError(
      `JUDGETREE_CACHE must be one of ${CACHE_MODES.map((mode) => `'${mode}'`).join(', ')}; got '${raw}'.`,
    )
  }
  return (raw as CacheMode | undefined) ?? 'read-write'
}

/** JUDGETREE_CACHE_DIR, else `.judgetree/cache`. */
export function envCacheDir(): string {
  return readEnv('JUDGETREE_CACHE_DIR') ?? DEFAULT_CACHE_DIR
}

/** `concurrency`: judge calls in flight at once. */
export const concurrencySchema = expecting(z.number().int().min(1), 'a whole number from 1 and up')

/** `requestsPerMinute`: the most judge calls started per minute; slower than one per 24.8 days a timer cannot wait. */
export const requestsPerMinuteSchema = expecting(z.number().min(MIN_REQUESTS_PER_MINUTE), RPM_EXPECTED)

/** A delay a timer can wait: a whole number of milliseconds from 1 to {@link MAX_TIMER_MS}. */
export const timerMsSchema = expecting(
  z.number().int().min(1).max(MAX_TIMER_MS),
  `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`,
)

/** An http:// URL, such as the one startCoordinator() gives. */
export function isCoordinatorUrl(url: unknown): boolean {
  try {
    return typeof url === 'string' && new URL(url).protocol === 'http:'
  } catch {
    return false
  }
}

/** The coordinator URL's expectation, for the option and for JUDGETREE_COORDINATOR_URL alike. */
export const COORDINATOR_URL_EXPECTED =
  "the coordinator's http:// URL, as startCoordinator() gives it (e.g. `http://127.0.0.1:4100`)"

/** The options of createJudgeRuntime (JudgeRuntimeOptions); `undefined` reads the JUDGETREE_* variable. */
export const judgeRuntimeOptionsSchema = expecting(
  z.strictObject({
    cache: expecting(
      z.enum(CACHE_MODES as [CacheMode, ...CacheMode[]]),
      `one of ${CACHE_MODES.map((m) => `'${m}'`).join(', ')}`,
    ).optional(),
    cacheDir: expecting(
      z.string().refine((dir) => dir.trim() !== '' && !dir.includes('\0')),
      'a directory path (without NUL characters)',
    ).optional(),
    concurrency: concurrencySchema.optional(),
    requestsPerMinute: requestsPerMinuteSchema.optional(),
    coordinatorUrl: expecting(z.string().refine(isCoordinatorUrl), COORDINATOR_URL_EXPECTED).optional(),
    warn: expecting(
      z.custom<(message: string) => void>((value) => typeof value === 'function'),
      'a function that takes the warning text',
    ).optional(),
  }),
  'an options object (or nothing)',
)

function envNumber(name: string, what: string, ok: (value: number) => boolean): number | undefined {
  const raw = readEnv(name)
  if (raw === undefined) return undefined
  const value = Number(raw)
  if (!(Number.isFinite(value) && value > 0 && ok(value))) {
    throw new ConfigurationError(`${name} must be ${what}; got '${raw}'.`)
  }
  return value
}
