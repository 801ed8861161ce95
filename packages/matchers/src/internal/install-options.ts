import { ConfigurationError } from '@judgetree/core'
import {
  checkOptions,
  concurrencySchema,
  expecting,
  flagSchema,
  listProblems,
  MAX_TIMER_MS,
  requestsPerMinuteSchema,
} from '@judgetree/core/runtime'
import { z } from 'zod'
import { checkReporterOptions, type JudgetreeReporterOptions } from './reporter-options.js'

/** The limits of the run's judge-call coordinator; a limit left out is read from its JUDGETREE_* variable. */
export interface CoordinatorLimits {
  readonly concurrency?: number
  readonly requestsPerMinute?: number
}

/** The options both runner integrations share, checked. */
export interface InstallOptions {
  readonly timeout: number
  /** Undefined when the reporter is turned off. */
  readonly reporterOptions: JudgetreeReporterOptions | undefined
  /** Only the limits that were given. */
  readonly limits: CoordinatorLimits
}

/**
 * The test timeout set where a project has none: 5 minutes, longer than a default judge spends on a call that never
 * answers (every attempt of `timeoutMs` and the backoff between them, DEFAULT_JUDGE_CALL_BUDGET_MS: 264 s). A hung
 * judge then fails the test with the judge's own error, after its retries, instead of the runner's "Test timed out"
 * with no judge call recorded. Only a hung call waits that long: a test ends as soon as its assertions settle.
 */
export const DEFAULT_TEST_TIMEOUT_MS = 300_000

/** The options both runner integrations take, with the integration's own on/off `flags`. */
function installOptionsSchema(flags: readonly string[]) {
  return expecting(
    z.strictObject({
      timeout: expecting(z.number().positive().max(MAX_TIMER_MS), (given) =>
        typeof given === 'number' && given > MAX_TIMER_MS
          ? `at most ${MAX_TIMER_MS} ms (2^31−1, the longest timer Node can set; a longer one fires at once)`
          : 'a number of milliseconds above 0',
      ).optional(),
      reporter: expecting(z.union([z.boolean(), z.looseObject({})]), 'true, false or reporter options').optional(),
      concurrency: concurrencySchema.optional(),
      requestsPerMinute: requestsPerMinuteSchema.optional(),
      // The reporter's options, checked with the others of the reporter.
      baseline: z.unknown().optional(),
      failOnRegression: z.unknown().optional(),
      ...Object.fromEntries(flags.map((flag) => [flag, flagSchema.optional()])),
    }),
    'an options object',
  )
}

/**
 * Checks `{ timeout, reporter, concurrency, requestsPerMinute, baseline, failOnRegression }` and any extra flags, throwing one
 * ConfigurationError that lists every problem.
 */
export function checkInstallOptions(options: unknown, where: string, flags: readonly string[] = []): InstallOptions {
  const checked = checkOptions(installOptionsSchema(flags), options)
  const problems = checked.ok ? [] : checked.problems.map((problem) => problem.message)
  const values = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>
  const {
    timeout = DEFAULT_TEST_TIMEOUT_MS,
    reporter = true,
    concurrency,
    requestsPerMinute,
    baseline,
    failOnRegression,
  } = values
  if (reporter === false && (baseline !== undefined || failOnRegression !== undefined)) {
    problems.push('`baseline` and `failOnRegression` need the judgetree reporter; remove `reporter: false`.')
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid options for ${where}:\n${listProblems(problems)}`)
  // The baseline options are the reporter's; the top level takes them too, where users look for them.
  const baselineOptions = {
    ...(baseline === undefined ? {} : { baseline }),
    ...(failOnRegression === undefined ? {} : { failOnRegression }),
  }
  return {
    timeout: timeout as number,
    limits: {
      ...(concurrency === undefined ? {} : { concurrency: concurrency as number }),
      ...(requestsPerMinute === undefined ? {} : { requestsPerMinute: requestsPerMinute as number }),
    },
    reporterOptions:
      reporter === false
        ? undefined
        : checkReporterOptions(
            { ...(reporter === true ? {} : (reporter as object)), ...baselineOptions },
            `${where} reporter`,
          ),
  }
}
