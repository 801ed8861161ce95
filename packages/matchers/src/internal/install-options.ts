import { ConfigurationError } from '@judgetree/core'
import { describeValue } from './describe-value.js'
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

/** The longest delay Node's timers can wait; a larger one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Checks `{ timeout, reporter, concurrency, requestsPerMinute, baseline, failOnRegression }` and any extra flags, throwing one
 * ConfigurationError that lists every problem.
 */
export function checkInstallOptions(options: unknown, where: string, flags: readonly string[] = []): InstallOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: expected an options object, got ${describeValue(options)}.`)
  }
  const values = options as Record<string, unknown>
  const {
    timeout = DEFAULT_TEST_TIMEOUT_MS,
    reporter = true,
    concurrency,
    requestsPerMinute,
    baseline,
    failOnRegression,
  } = values
  const problems: string[] = []
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    problems.push(`Expected \`timeout\` to be a number of milliseconds above 0, got ${describeValue(timeout)}.`)
  }
  if (typeof timeout === 'number' && timeout > MAX_TIMER_MS) {
    problems.push(
      `Expected \`timeout\` to be at most ${MAX_TIMER_MS} ms (2^31−1, the longest timer Node can set; a longer one ` +
        `fires at once), got ${describeValue(timeout)}.`,
    )
  }
  if (typeof reporter !== 'boolean' && (typeof reporter !== 'object' || reporter === null)) {
    problems.push(`Expected \`reporter\` to be true, false or reporter options, got ${describeValue(reporter)}.`)
  }
  if (
    concurrency !== undefined &&
    !(typeof concurrency === 'number' && Number.isInteger(concurrency) && concurrency >= 1)
  ) {
    problems.push(`Expected \`concurrency\` to be a whole number from 1 and up, got ${describeValue(concurrency)}.`)
  }
  if (
    requestsPerMinute !== undefined &&
    !(typeof requestsPerMinute === 'number' && Number.isFinite(requestsPerMinute) && requestsPerMinute > 0)
  ) {
    problems.push(
      `Expected \`requestsPerMinute\` to be a number of requests per minute above 0, got ${describeValue(requestsPerMinute)}.`,
    )
  }
  for (const flag of flags) {
    if (values[flag] !== undefined && typeof values[flag] !== 'boolean') {
      problems.push(`Expected \`${flag}\` to be true or false, got ${describeValue(values[flag])}.`)
    }
  }
  if (reporter === false && (baseline !== undefined || failOnRegression !== undefined)) {
    problems.push('`baseline` and `failOnRegression` need the judgetree reporter; remove `reporter: false`.')
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`${where}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  }
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
