import { ConfigurationError } from '@judgetree/core'
import { describeValue } from './describe-value.js'
import { checkReporterOptions, type JudgetreeReporterOptions } from './reporter-options.js'

/** The options both runner integrations share, checked. */
export interface InstallOptions {
  readonly timeout: number
  /** Undefined when the reporter is turned off. */
  readonly reporterOptions: JudgetreeReporterOptions | undefined
}

/** Checks `{ timeout, reporter }` and any extra flags, throwing one ConfigurationError that lists every problem. */
export function checkInstallOptions(options: unknown, where: string, flags: readonly string[] = []): InstallOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: expected an options object, got ${describeValue(options)}.`)
  }
  const values = options as Record<string, unknown>
  const { timeout = 60_000, reporter = true } = values
  const problems: string[] = []
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    problems.push(`Expected \`timeout\` to be a number of milliseconds above 0, got ${describeValue(timeout)}.`)
  }
  if (typeof reporter !== 'boolean' && (typeof reporter !== 'object' || reporter === null)) {
    problems.push(`Expected \`reporter\` to be true, false or reporter options, got ${describeValue(reporter)}.`)
  }
  for (const flag of flags) {
    if (values[flag] !== undefined && typeof values[flag] !== 'boolean') {
      problems.push(`Expected \`${flag}\` to be true or false, got ${describeValue(values[flag])}.`)
    }
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`${where}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  }
  return {
    timeout: timeout as number,
    reporterOptions:
      reporter === false ? undefined : checkReporterOptions(reporter === true ? {} : reporter, `${where} reporter`),
  }
}
