// @judgetree/matchers/vitest/reporter: prints failed evaluations' traces and the run summary, writes the JSON
// report and the GitHub step summary. The plugin adds it; it also works from `--merge-reports`.
import { relative, sep } from 'node:path'
import { paletteFor } from '@judgetree/core/runtime'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { CollectedFile } from '../internal/baseline.js'
import { publishReport } from '../internal/publish.js'
import type { JudgetreeRecord } from '../internal/record.js'
import { checkReporterOptions, type JudgetreeReporterOptions } from '../internal/reporter-options.js'
import { buildReport, type JudgetreeReportTest } from '../internal/run-report.js'
import { META_KEY } from '../internal/vitest-task.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/**
 * The judgetree reporter for Vitest; reads the records `toPassMetric` stored in each test's meta, so it sees
 * the same data in a live run and when merging shards' blob reports.
 *
 * @example
 * // vitest.config.ts, without the plugin
 * export default defineConfig({ test: { reporters: ['default', ['@judgetree/matchers/vitest/reporter', {}]] } })
 */
export default class JudgetreeReporter implements Reporter {
  readonly #options: JudgetreeReporterOptions
  #vitest: Vitest | undefined
  #publish: (() => void) | undefined

  constructor(options?: JudgetreeReporterOptions) {
    this.#options = checkReporterOptions(options, 'The judgetree reporter')
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const vitest = this.#vitest
    if (vitest === undefined) return
    const root = vitest.config.root
    const tests: JudgetreeReportTest[] = []
    const files: CollectedFile[] = []
    // Modules come in the order they finished; buildReport orders them. Within one, allTests() keeps the order
    // of the file, even under --sequence.shuffle (which shuffles a copy), and lists the tests -t skipped too.
    for (const testModule of testModules) {
      const project = testModule.project.name
      const file = relative(root, testModule.moduleId).split(sep).join('/')
      const declared: CollectedFile['tests'][number][] = []
      const ordinals = new Map<string, number>()
      for (const testCase of testModule.children.allTests()) {
        const name = testCase.fullName
        const ordinal = (ordinals.get(name) ?? 0) + 1
        ordinals.set(name, ordinal)
        const state = testCase.result().state
        declared.push({ name, ordinal, completed: state === 'passed' })
        const records = (testCase.meta() as Record<string, unknown>)[META_KEY]
        if (!Array.isArray(records) || records.length === 0) continue
        const evaluations = records as JudgetreeRecord[]
        const { location } = testCase as { location?: { line: number; column: number } | undefined }
        tests.push({
          project,
          file,
          name,
          state,
          location: location ? { line: location.line, column: location.column } : null,
          ...(ordinal > 1 ? { ordinal } : {}),
          evaluations,
        })
      }
      // A file that failed to load declares no tests: its baseline entries did not run, they are not gone.
      if (testModule.errors().length === 0) files.push({ project, file, tests: declared })
    }
    const shard = vitest.config.shard ? { index: vitest.config.shard.index, count: vitest.config.shard.count } : null
    const report = buildReport('vitest', tests, shard)
    this.#publish = () => {
      const { failure } = publishReport(report, {
        root,
        options: this.#options,
        print: (text) => vitest.logger.error(text),
        // Vitest's logger.error writes to its error stream; Vitest itself reads --no-color from the command line.
        palette: paletteFor(vitest.logger.errorStream),
        files,
      })
      // failOnRegression: the tests passed, the run does not. Vitest only ever raises the exit code.
      if (failure !== undefined) process.exitCode = 1
    }
    // Vitest 3 prints its own summary in onFinished, which comes later (and is gone in Vitest 4): print after it.
    if (Number(vitest.version.split('.')[0]) >= 4) this.#flush()
  }

  /** Vitest 3 only. */
  onFinished(): void {
    this.#flush()
  }

  #flush(): void {
    const publish = this.#publish
    this.#publish = undefined
    publish?.()
  }
}
