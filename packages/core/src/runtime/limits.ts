import { ConfigurationError } from '../errors.js'
import { readEnv } from '../internal/env.js'
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

/** Checks limits passed as options, p-queue style: what was expected, and what was given. */
export function validateLimits(
  owner: string,
  limits: { concurrency: unknown; requestsPerMinute?: unknown; leaseTimeoutMs?: unknown },
): void {
  const problems: string[] = []
  const { concurrency, requestsPerMinute, leaseTimeoutMs } = limits
  if (!(typeof concurrency === 'number' && Number.isInteger(concurrency) && concurrency >= 1)) {
    problems.push(expected('concurrency', 'a whole number from 1 and up', concurrency))
  }
  if (
    requestsPerMinute !== undefined &&
    !(
      typeof requestsPerMinute === 'number' &&
      Number.isFinite(requestsPerMinute) &&
      requestsPerMinute >= MIN_REQUESTS_PER_MINUTE
    )
  ) {
    problems.push(expected('requestsPerMinute', RPM_EXPECTED, requestsPerMinute))
  }
  if (
    leaseTimeoutMs !== undefined &&
    !(Number.isInteger(leaseTimeoutMs) && (leaseTimeoutMs as number) > 0 && (leaseTimeoutMs as number) <= MAX_TIMER_MS)
  ) {
    problems.push(
      expected('leaseTimeoutMs', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, leaseTimeoutMs),
    )
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid options for ${owner}:\n${problems.join('\n')}`)
}

function expected(name: string, what: string, got: unknown): string {
  return `  - Expected \`${name}\` to be ${what}, got \`${String(got)}\` (${typeof got}).`
}

function envNumber(name: string, what: string, ok: (value: number) => boolean): number | undefined {
  const raw = readEnv(name)
  if (raw === undefined) return undefined
  const value = Number(raw)
  if (!(Number.isFinite(value) && value > 0 && ok(value))) {
    throw new ConfigurationError(`${name} must be ${what}; got '${raw}'.`)
  }
  return value
}
