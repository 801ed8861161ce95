// @judgetree/matchers/vitest: the Vite plugin that installs judgetree in a Vitest config.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigurationError } from '@judgetree/core'
import type { Plugin } from 'vitest/config'
import { checkInstallOptions } from '../internal/install-options.js'
import type { JudgetreeReporterOptions } from '../internal/reporter-options.js'
import { checkRunEnvironment } from '../internal/run-coordinator.js'
import { PROVIDED_OPTIONS_KEY, type ProvidedOptions } from '../internal/vitest-options.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/** Options of the {@link judgetree} plugin. */
export interface JudgetreePluginOptions {
  /**
   * Test timeout in milliseconds for projects that set none: Vitest's 5 s is too short for judge calls.
   * The default outlasts a default judge's own timeout and retries, so a hung judge fails with its own error
   * (see docs/reliability.md).
   * @default 300_000
   */
  timeout?: number | undefined
  /** Add the judgetree reporter (with these options), or `false` to leave the reporters alone. @default true */
  reporter?: boolean | JudgetreeReporterOptions | undefined
  /**
   * Annotate passing evaluations too, not only failed ones (annotations of type `judgetree`), so the HTML report and the
   * UI show every evaluation's score line and picture. On by default only when such a report is made (the `html`
   * or `blob` reporter, or the UI), because GitHub Actions shows at most 10 notices per step.
   * @default true with the html or blob reporter or the UI, else false
   */
  annotatePassing?: boolean | undefined
  /**
   * Judge calls in flight at once across the whole run: every worker process of every project shares this
   * limit through one coordinator on 127.0.0.1 that the plugin's global setup starts. Ignored when
   * `JUDGETREE_COORDINATOR_URL` is already set (the run then uses that coordinator).
   * @default process.env.JUDGETREE_CONCURRENCY ?? 8
   */
  concurrency?: number | undefined
  /**
   * Judge calls started per minute across the whole run, spaced evenly (shared like `concurrency`).
   * @default process.env.JUDGETREE_RPM, else unlimited
   */
  requestsPerMinute?: number | undefined
  /**
   * Compare each run with this baseline file (relative to the project root): score changes, new failures, new
   * passes, new and missing tests, in the terminal, the step summary and the JSON report. Write or refresh it with
   * `JUDGETREE_UPDATE_BASELINE=1`. Same as the reporter option. @default no baseline
   */
  baseline?: string | undefined
  /**
   * Fail the run when a score falls below its baseline (by more than `tolerance`), even where the threshold still
   * passes. Needs `baseline`. @default false
   */
  failOnRegression?: boolean | { readonly tolerance: number } | undefined
}

const VITEST_DEFAULT_TIMEOUT = 5_000
const SETUP_FILE = fileURLToPath(new URL('./setup.js', import.meta.url))
const GLOBAL_SETUP_FILE = fileURLToPath(new URL('./global-setup.js', import.meta.url))
const REPORTER_FILE = fileURLToPath(new URL('./reporter.js', import.meta.url))
const REPORTER_SPECIFIER = '@judgetree/matchers/vitest/reporter'

/**
 * Installs judgetree in Vitest: registers `toPassMetric` (and the forgotten-`await` check) in every project,
 * raises the test timeout to 5 minutes where none was set, adds a global setup that starts one judge-call
 * coordinator for the run (so all workers share `concurrency` and `requestsPerMinute`), and adds the judgetree
 * reporter, which prints failed evaluations' traces and a summary, writes `.judgetree/report.json` and the
 * GitHub step summary.
 *
 * @example
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config'
 * import { judgetree } from '@judgetree/matchers/vitest'
 * export default defineConfig({ plugins: [judgetree()] })
 *
 * @example
 * // at most 4 judge calls at once in the whole run, and 500 per minute
 * export default defineConfig({ plugins: [judgetree({ concurrency: 4, requestsPerMinute: 500 })] })
 */
export function judgetree(options: JudgetreePluginOptions = {}): Plugin {
  const { timeout, reporterOptions, limits } = checkInstallOptions(options, 'judgetree(options)', ['annotatePassing'])
  let explicitDefaultTimeout = false
  return {
    name: 'judgetree',
    config(config) {
      // A timeout the user wrote down is kept, even when it equals Vitest's default.
      if ((config as { test?: { testTimeout?: unknown } }).test?.testTimeout === VITEST_DEFAULT_TIMEOUT) {
        explicitDefaultTimeout = true
      }
    },
    // Runs once per project, also for inline `test.projects` that share one Vite server (Vitest 5), where
    // `config()` hooks never reach the projects; and after the CLI's `--reporter` flags have been applied.
    configureVitest({ vitest, project }) {
      // Before Vitest looks for test files: a problem found here is a startup error, alone, where one found in the
      // global setup (which checks again, for configs without the plugin) follows a false "No test files found".
      checkRunEnvironment()
      checkHtmlReporter(vitest.config, vitest.version)
      const config = project.config
      if (!config.setupFiles.includes(SETUP_FILE)) config.setupFiles.push(SETUP_FILE)
      // An array once resolved; typed as the user config's `string | string[]`.
      const globalSetup = [config.globalSetup ?? []].flat()
      if (!globalSetup.includes(GLOBAL_SETUP_FILE)) config.globalSetup = [...globalSetup, GLOBAL_SETUP_FILE]
      if (config.testTimeout === VITEST_DEFAULT_TIMEOUT && !explicitDefaultTimeout) config.testTimeout = timeout
      // The global setup reads the limits from here (`project.getProvidedContext()`).
      if (reporterOptions !== undefined && !hasJudgetreeReporter(vitest.config.reporters)) {
        vitest.config.reporters.push([REPORTER_FILE, { ...reporterOptions }])
      }
      const pictures = showsPictures(vitest.config)
      const provided: ProvidedOptions = {
        annotate: pictures || options.annotatePassing === true || readsAnnotations(vitest.config.reporters),
        annotatePassing: options.annotatePassing ?? pictures,
        pictures,
        pictureFiles: pictures && !hasReporter(vitest.config.reporters, 'blob') && majorOf(vitest.version) >= 4,
        reporter: hasJudgetreeReporter(vitest.config.reporters),
        ...limits,
      }
      ;(project.provide as (key: string, value: unknown) => void)(PROVIDED_OPTIONS_KEY, provided)
    },
  }
}

/**
 * Vitest's html reporter is in @vitest/ui, which Vitest does not install: without it, it prints a 30-line stack. This
 * is the same lookup Vitest makes (from the project root, then from Vitest's own folder), said in one line.
 */
function checkHtmlReporter(
  config: { readonly root?: string | undefined; readonly reporters: readonly unknown[] },
  version: string | undefined,
) {
  const html = hasReporter(config.reporters, 'html')
  if (!html || process.env.VITEST_SKIP_INSTALL_CHECKS) return
  const root = config.root ?? process.cwd()
  const require = createRequire(join(root, 'package.json'))
  let vitestDir: string
  try {
    vitestDir = dirname(require.resolve('vitest/package.json'))
  } catch {
    return
  }
  try {
    require.resolve('@vitest/ui/package.json', { paths: [root, vitestDir] })
  } catch {
    const error = new ConfigurationError(
      `The html reporter needs @vitest/ui, which is not installed: npm install -D @vitest/ui${version === undefined ? '' : `@${version}`}`,
    )
    error.stack = `${error.name}: ${error.message}`
    throw error
  }
}

/** Reports that show annotation images: the HTML report and the UI, and blob reports that may be merged into HTML. */
function showsPictures(config: { readonly ui?: boolean | undefined; readonly reporters: readonly unknown[] }): boolean {
  return config.ui === true || hasReporter(config.reporters, 'html') || hasReporter(config.reporters, 'blob')
}

function hasReporter(reporters: readonly unknown[], wanted: string): boolean {
  return reporters.some((entry) => reporterName(entry) === wanted)
}

/** Vitest's major version, or 0 when it does not say (as before 3.2). */
function majorOf(version: string | undefined): number {
  return Number.parseInt(version ?? '', 10) || 0
}

/**
 * Vitest's reporters that show annotations in the terminal alone (under the failure, which already opens with the
 * same summary line and reason), or not at all (json keeps the meta, which has the records).
 */
const TERMINAL_REPORTERS = new Set([
  'default',
  'basic',
  'verbose',
  'dot',
  'tree',
  'minimal',
  'agent',
  'json',
  'hanging-process',
])

/**
 * Whether a reporter of the run reads annotations beyond the terminal: JUnit's properties, GitHub Actions' notices,
 * TAP's comments, a blob to merge, the HTML report, or a reporter judgetree does not know (an editor's, say).
 */
function readsAnnotations(reporters: readonly unknown[]): boolean {
  return reporters.some((entry) => {
    const name = reporterName(entry)
    if (name === REPORTER_FILE || name === REPORTER_SPECIFIER) return false
    return typeof name !== 'string' || !TERMINAL_REPORTERS.has(name)
  })
}

/** The name (a path, or the reporter itself) in an entry of `config.reporters`: `name` or `[name, options]`. */
function reporterName(entry: unknown): unknown {
  return Array.isArray(entry) ? entry[0] : entry
}

function hasJudgetreeReporter(reporters: readonly unknown[]): boolean {
  return reporters.some((entry) => {
    const name = reporterName(entry)
    return name === REPORTER_FILE || name === REPORTER_SPECIFIER
  })
}
