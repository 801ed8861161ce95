import { ConfigurationError } from '../errors.js'
import { readEnv } from '../internal/env.js'
import { parseOptions } from '../internal/options.js'
import type { CacheMode } from './cache.js'
import {
  COORDINATOR_URL_EXPECTED,
  envCacheDir,
  envCacheMode,
  envConcurrency,
  envRequestsPerMinute,
  isCoordinatorUrl,
  judgeRuntimeOptionsSchema,
} from './limits.js'

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

/** A runtime's settings once checked, with the environment read for every option left out. */
export interface RuntimeSettings {
  readonly mode: CacheMode
  readonly cacheDir: string
  readonly concurrency: number
  readonly requestsPerMinute: number | undefined
  readonly warn: (message: string) => void
  /** The coordinator to share limits with, read at the first call (a runner's set-up may set it later). */
  readonly coordinatorUrl: () => string | undefined
}

/** Checks createJudgeRuntime's options and reads the environment for those left out; throws a ConfigurationError. */
export function runtimeSettings(options: JudgeRuntimeOptions): RuntimeSettings {
  parseOptions(judgeRuntimeOptionsSchema, options, 'createJudgeRuntime')
  // `undefined` reads the JUDGETREE_* variable; `null` is a value, refused above like any other wrong one.
  const mode = options.cache === undefined ? envCacheMode() : options.cache
  const cacheDir = options.cacheDir === undefined ? envCacheDir() : options.cacheDir
  const concurrency = options.concurrency === undefined ? envConcurrency() : options.concurrency
  const requestsPerMinute = 'requestsPerMinute' in options ? options.requestsPerMinute : envRequestsPerMinute()
  const envCoordinator = readEnv('JUDGETREE_COORDINATOR_URL')
  if (envCoordinator !== undefined) checkCoordinatorUrl(envCoordinator, 'JUDGETREE_COORDINATOR_URL')
  return {
    mode,
    cacheDir,
    concurrency,
    requestsPerMinute,
    warn: options.warn ?? ((message: string) => console.warn(message)),
    coordinatorUrl: () => {
      if (options.coordinatorUrl !== undefined) return options.coordinatorUrl
      // Read at the first call, as a runner's set-up may set it after this runtime was made.
      const url = readEnv('JUDGETREE_COORDINATOR_URL')
      if (url !== undefined) checkCoordinatorUrl(url, 'JUDGETREE_COORDINATOR_URL')
      return url
    },
  }
}

/** A coordinator URL is the `http://host:port` startCoordinator printed; anything else is named with its setting. */
function checkCoordinatorUrl(url: string, setting: string): void {
  if (!isCoordinatorUrl(url)) {
    throw new ConfigurationError(`Expected ${setting} to be ${COORDINATOR_URL_EXPECTED}; got ${JSON.stringify(url)}.`)
  }
}
