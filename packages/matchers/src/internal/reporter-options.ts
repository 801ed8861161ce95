import { ConfigurationError } from '@judgetree/core'
import { describeValue } from './describe-value.js'

/** Options of the judgetree reporter, for Vitest and Jest alike. */
export interface JudgetreeReporterOptions {
  /**
   * Where to write the JSON report, relative to the project root; `false` writes none. A sharded Vitest run
   * writes `<name>.shard-<i>-of-<n>.json` instead, so shards on one machine do not overwrite each other.
   * @default '.judgetree/report.json'
   */
  outputFile?: string | false | undefined
  /** Append a Markdown summary to the file named by `$GITHUB_STEP_SUMMARY`, when that is set. @default true */
  githubSummary?: boolean | undefined
}

/** The JSON report's default location, relative to the project root. */
export const DEFAULT_REPORT_FILE = '.judgetree/report.json'

/** Throws a ConfigurationError listing every problem with the reporter options. */
export function checkReporterOptions(options: unknown, where: string): JudgetreeReporterOptions {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: expected reporter options to be an object, got ${describeValue(options)}.`)
  }
  const { outputFile, githubSummary } = options as Record<string, unknown>
  const problems: string[] = []
  if (outputFile !== undefined && outputFile !== false && (typeof outputFile !== 'string' || outputFile === '')) {
    problems.push(`Expected \`outputFile\` to be a path or false, got ${describeValue(outputFile)}.`)
  }
  if (githubSummary !== undefined && typeof githubSummary !== 'boolean') {
    problems.push(`Expected \`githubSummary\` to be true or false, got ${describeValue(githubSummary)}.`)
  }
  if (problems.length > 0) throw new ConfigurationError(`${where}:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  return options as JudgetreeReporterOptions
}
