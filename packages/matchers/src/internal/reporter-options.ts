import { ConfigurationError } from '@judgetree/core'
import { checkOptions, expecting, flagSchema, listProblems } from '@judgetree/core/runtime'
import { z } from 'zod'

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

/** The reporter options' schema (JudgetreeReporterOptions). */
const reporterOptionsSchema = expecting(
  z.strictObject({
    outputFile: expecting(z.union([z.literal(false), z.string().min(1)]), 'a path or false').optional(),
    githubSummary: flagSchema.optional(),
    baseline: expecting(z.string().min(1), "a path such as '.judgetree/baseline.json'").optional(),
    failOnRegression: expecting(
      z.union([z.boolean(), z.strictObject({ tolerance: z.number().min(0).max(1) })]),
      'true, false or { tolerance } with a tolerance from 0 to 1',
    ).optional(),
  }),
  'an object',
)

/** Throws a ConfigurationError listing every problem with the reporter options. */
export function checkReporterOptions(options: unknown, where: string): JudgetreeReporterOptions {
  if (options === undefined) return {}
  const checked = checkOptions(reporterOptionsSchema, options)
  const problems = checked.ok ? [] : checked.problems.map((problem) => problem.message)
  const { baseline, failOnRegression } = (options ?? {}) as Record<string, unknown>
  if (failOnRegression !== undefined && failOnRegression !== false && baseline === undefined) {
    problems.push("`failOnRegression` needs a `baseline` to compare with, e.g. baseline: '.judgetree/baseline.json'.")
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid options for ${where}:\n${listProblems(problems)}`)
  return options as JudgetreeReporterOptions
}
