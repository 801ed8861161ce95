import { ConfigurationError } from '@judgetree/core'
import { describeValue } from './describe-value.js'

/** Options of the judgetree reporter, for Vitest and Jest alike. */
export interface JudgetreeReporterOptions {
  /**
   * Where to write the JSON report, relative to the project root; `false` writes none. A sharded Vitest run
   * writes `<name>.shard-<i>-of-<n>.json` instead, so shards on one machine do not overwrite each other. A device
   * or descriptor (`/dev/stdout`, `/dev/fd/3`) or a named pipe is written into, never replaced; a report that
   * cannot be written is a warning in the run's output, not an error.
   * @default '.judgetree/report.json'
   */
  outputFile?: string | false | undefined
  /** Append a Markdown summary to the file named by `$GITHUB_STEP_SUMMARY`, when that is set. @default true */
  githubSummary?: boolean | undefined
  /**
   * A baseline file, relative to the project root: each run is compared with it per evaluation (score change, new
   * failures, new passes, new and missing tests) in the terminal, the step summary and the JSON report.
   * `JUDGETREE_UPDATE_BASELINE=1` writes or refreshes it. @default no baseline
   */
  baseline?: string | undefined
  /**
   * Fail the run when a score falls below its baseline (more than `tolerance` below), even where the threshold
   * still passes. Needs `baseline`. @default false
   */
  failOnRegression?: boolean | { readonly tolerance: number } | undefined
}

/** The JSON report's default location, relative to the project root. */
export const DEFAULT_REPORT_FILE = '.judgetree/report.json'

/** Throws a ConfigurationError listing every problem with the reporter options. */
export function checkReporterOptions(options: unknown, where: string): JudgetreeReporterOptions {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: expected reporter options to be an object, got ${describeValue(options)}.`)
  }
  const { outputFile, githubSummary, baseline, failOnRegression } = options as Record<string, unknown>
  const problems: string[] = []
  if (outputFile !== undefined && outputFile !== false && (typeof outputFile !== 'string' || outputFile === '')) {
    problems.push(`Expected \`outputFile\` to be a path or false, got ${describeValue(outputFile)}.`)
  }
  if (githubSummary !== undefined && typeof githubSummary !== 'boolean') {
    problems.push(`Expected \`githubSummary\` to be true or false, got ${describeValue(githubSummary)}.`)
  }
  if (baseline !== undefined && (typeof baseline !== 'string' || baseline === '')) {
    problems.push(
      `Expected \`baseline\` to be a path such as '.judgetree/baseline.json', got ${describeValue(baseline)}.`,
    )
  }
  const tolerance = (failOnRegression as { tolerance?: unknown } | null)?.tolerance
  if (
    failOnRegression !== undefined &&
    typeof failOnRegression !== 'boolean' &&
    !(typeof tolerance === 'number' && tolerance >= 0 && tolerance <= 1)
  ) {
    problems.push(
      `Expected \`failOnRegression\` to be true, false or { tolerance } with a tolerance from 0 to 1, got ${
        typeof failOnRegression === 'object' && failOnRegression !== null
          ? `{ tolerance: ${describeValue(tolerance)} }`
          : describeValue(failOnRegression)
      }.`,
    )
  }
  if (failOnRegression !== undefined && failOnRegression !== false && baseline === undefined) {
    problems.push("`failOnRegression` needs a `baseline` to compare with, e.g. baseline: '.judgetree/baseline.json'.")
  }
  if (problems.length > 0) throw new ConfigurationError(`${where}:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  return options as JudgetreeReporterOptions
}
