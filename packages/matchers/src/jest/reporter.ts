// @judgetree/matchers/jest/reporter (CommonJS): prints failed evaluations' traces and the run summary, writes
// the JSON report and the GitHub step summary. withJudgetree() adds it.
import { mkdirSync, rmSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { readSidecarLines, SIDECAR_DIR_ENV, sidecarKey } from '../internal/jest-sidecar.js'
import { publishReport } from '../internal/publish.js'
import { checkReporterOptions, type JudgetreeReporterOptions } from '../internal/reporter-options.js'
import { buildReport, type JudgetreeReportTest } from '../internal/run-report.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/** The parts of Jest's aggregated results the reporter reads; the same in Jest 29 and 30. */
interface AggregatedResultsLike {
  readonly testResults: ReadonlyArray<{
    readonly testFilePath: string
    readonly testResults: ReadonlyArray<{ readonly fullName: string; readonly status: string }>
  }>
}

/** The judgetree reporter for Jest: joins the workers' sidecar records with Jest's results, passing tests included. */
export default class JudgetreeJestReporter {
  readonly #root: string
  readonly #directory: string
  readonly #options: JudgetreeReporterOptions

  constructor(globalConfig: { readonly rootDir: string }, options?: JudgetreeReporterOptions) {
    this.#options = checkReporterOptions(options, 'The judgetree reporter')
    this.#root = globalConfig.rootDir
    this.#directory = join(this.#root, '.judgetree', 'jest')
    // Set before Jest starts its workers, which inherit the environment.
    process.env[SIDECAR_DIR_ENV] = this.#directory
  }

  onRunStart(): void {
    rmSync(this.#directory, { recursive: true, force: true })
    mkdirSync(this.#directory, { recursive: true })
  }

  onRunComplete(_contexts: unknown, results: AggregatedResultsLike): void {
    const recorded = readSidecarLines(this.#directory)
    const tests: JudgetreeReportTest[] = []
    for (const fileResult of results.testResults) {
      const file = relative(this.#root, fileResult.testFilePath).split(sep).join('/')
      for (const test of fileResult.testResults) {
        const evaluations = recorded.get(sidecarKey(fileResult.testFilePath, test.fullName)) ?? []
        if (evaluations.length > 0) tests.push({ file, name: test.fullName, state: test.status, evaluations })
      }
    }
    publishReport(buildReport('jest', tests), {
      root: this.#root,
      options: this.#options,
      print: (text) => process.stderr.write(`${text}\n`),
    })
  }

  getLastError(): Error | undefined {
    return undefined
  }
}
