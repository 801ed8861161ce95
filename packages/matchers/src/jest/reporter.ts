// @judgetree/matchers/jest/reporter (CommonJS): prints failed evaluations' traces and the run summary, writes
// the JSON report and the GitHub step summary. withJudgetree() adds it.
import { mkdirSync, rmSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { paletteFor } from '@judgetree/core/runtime'
import type { CollectedFile } from '../internal/baseline.js'
import { JEST_REPORTER_LOADED, projectNameOf } from '../internal/jest-globals.js'
import { readSidecarLines, SIDECAR_DIR_ENV, sidecarKey } from '../internal/jest-sidecar.js'
import { publishReport } from '../internal/publish.js'
import { checkReporterOptions, type JudgetreeReporterOptions } from '../internal/reporter-options.js'
import { buildReport, type JudgetreeReport, type JudgetreeReportTest } from '../internal/run-report.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/** The parts of one test's result the reporter reads; the same in Jest 29 and 30. */
interface AssertionResultLike {
  readonly fullName: string
  readonly status: string
  /** Where the test is defined; present when `testLocationInResults` is on (withJudgetree turns it on). */
  readonly location?: { readonly line: number; readonly column: number } | null | undefined
}

/** The parts of Jest's aggregated results the reporter reads; the same in Jest 29 and 30. */
interface AggregatedResultsLike {
  readonly testResults: ReadonlyArray<{
    readonly testFilePath: string
    /** The project's `displayName`, when it has one: a string or `{ name, color }`. */
    readonly displayName?: unknown
    /** Set when the file could not run at all (it failed to load, say). */
    readonly testExecError?: unknown
    readonly testResults: ReadonlyArray<AssertionResultLike>
  }>
}

/** The parts of Jest's global config the reporter reads. */
interface GlobalConfigLike {
  readonly rootDir: string
  /** `jest --shard=i/n` (Jest 28+). */
  readonly shard?: { readonly shardIndex: number; readonly shardCount: number } | null | undefined
}

/** The judgetree reporter for Jest: joins the workers' sidecar records with Jest's results, passing tests included. */
export default class JudgetreeJestReporter {
  readonly #root: string
  readonly #directory: string
  readonly #options: JudgetreeReporterOptions
  readonly #shard: JudgetreeReport['shard']
  #failure: string | undefined

  constructor(globalConfig: GlobalConfigLike, options?: JudgetreeReporterOptions) {
    this.#options = checkReporterOptions(options, 'The judgetree reporter')
    this.#root = globalConfig.rootDir
    const shard = globalConfig.shard
    this.#shard = shard ? { index: shard.shardIndex, count: shard.shardCount } : null
    this.#directory = join(this.#root, '.judgetree', 'jest')
    // Set before Jest starts its workers, which inherit the environment.
    process.env[SIDECAR_DIR_ENV] = this.#directory
    // The global teardown warns when a run's reporters left this one out.
    ;(globalThis as { [JEST_REPORTER_LOADED]?: boolean })[JEST_REPORTER_LOADED] = true
  }

  onRunStart(): void {
    rmSync(this.#directory, { recursive: true, force: true })
    mkdirSync(this.#directory, { recursive: true })
  }

  onRunComplete(_contexts: unknown, results: AggregatedResultsLike): void {
    const recorded = readSidecarLines(this.#directory)
    const tests: JudgetreeReportTest[] = []
    const files: CollectedFile[] = []
    // Files come in the order they finished; buildReport orders them. Within a file, Jest lists tests in the order
    // they ran, which --randomize shuffles: their locations give the file's order. Tests -t skipped are listed too.
    for (const fileResult of results.testResults) {
      const project = projectNameOf(fileResult.displayName)
      const file = relative(this.#root, fileResult.testFilePath).split(sep).join('/')
      const ran = ranOrdinals(fileResult.testResults)
      const declared: CollectedFile['tests'][number][] = []
      const ordinals = new Map<string, number>()
      for (const test of inFileOrder(fileResult.testResults)) {
        const name = test.fullName
        const ordinal = (ordinals.get(name) ?? 0) + 1
        ordinals.set(name, ordinal)
        declared.push({ name, ordinal, completed: test.status === 'passed' })
        const joined = ran.get(test)
        const evaluations =
          joined === undefined ? [] : (recorded.get(sidecarKey(project, fileResult.testFilePath, name, joined)) ?? [])
        if (evaluations.length > 0) {
          const location = test.location ? { line: test.location.line, column: test.location.column } : null
          const repeated = ordinal > 1 ? { ordinal } : {}
          tests.push({ project, file, name, state: test.status, location, ...repeated, evaluations })
        }
      }
      // A file that could not run declares no tests: its baseline entries did not run, they are not gone.
      if (!fileResult.testExecError) files.push({ project, file, tests: declared })
    }
    const { failure } = publishReport(buildReport('jest', tests, this.#shard), {
      root: this.#root,
      options: this.#options,
      print: (text) => process.stderr.write(`${text}\n`),
      // Jest takes --colors/--no-colors from the command line, where paletteFor reads them too.
      palette: paletteFor(process.stderr),
      files,
    })
    this.#failure = failure
  }

  /** Jest exits with 1 when a reporter reports an error: how failOnRegression fails a run whose tests passed. */
  getLastError(): Error | undefined {
    return this.#failure === undefined ? undefined : new Error(this.#failure)
  }
}

/**
 * Which of the file's same-named tests that ran each test is, counted in the order Jest lists them (the order they
 * ran), as the setup file counts them when they start: how a test is joined with its sidecar records.
 */
function ranOrdinals(results: ReadonlyArray<AssertionResultLike>): Map<AssertionResultLike, number> {
  const counts = new Map<string, number>()
  const ran = new Map<AssertionResultLike, number>()
  for (const result of results) {
    if (result.status !== 'passed' && result.status !== 'failed') continue
    const count = (counts.get(result.fullName) ?? 0) + 1
    counts.set(result.fullName, count)
    ran.set(result, count)
  }
  return ran
}

/** By line and column when Jest reported every test's location; else as Jest listed them. */
function inFileOrder(results: ReadonlyArray<AssertionResultLike>): ReadonlyArray<AssertionResultLike> {
  if (!results.every((result) => result.location)) return results
  const position = (result: AssertionResultLike) => result.location ?? { line: 0, column: 0 }
  return [...results].sort((a, b) => position(a).line - position(b).line || position(a).column - position(b).column)
}
