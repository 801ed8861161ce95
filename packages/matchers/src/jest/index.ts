// @judgetree/matchers/jest: installs judgetree in a Jest config.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigurationError } from '@judgetree/core'
import { describeValue } from '../internal/describe-value.js'
import { checkInstallOptions, type InstallOptions } from '../internal/install-options.js'
import { JEST_GLOBALS_KEY, JEST_PROJECT_GLOBAL, type JestHookOptions, projectNameOf } from '../internal/jest-globals.js'
import type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/** Options of {@link withJudgetree}. */
export interface WithJudgetreeOptions {
  /**
   * `testTimeout` in milliseconds when the config sets none: Jest's 5 s is too short for judge calls.
   * The default outlasts a default judge's own timeout and retries, so a hung judge fails with its own error
   * (see docs/reliability.md).
   * @default 300_000
   */
  timeout?: number | undefined
  /** Add the judgetree reporter (with these options), or `false` to leave `reporters` alone. @default true */
  reporter?: boolean | JudgetreeReporterOptions | undefined
  /**
   * Judge calls in flight at once across the whole run: every worker shares this limit through one coordinator
   * on 127.0.0.1 that the global setup starts. Ignored when `JUDGETREE_COORDINATOR_URL` is already set (the
   * run then uses that coordinator). @default process.env.JUDGETREE_CONCURRENCY ?? 8
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

/** What withJudgetree adds to a Jest config. */
export interface JudgetreeJestConfig {
  setupFilesAfterEnv: string[]
  testTimeout: number
  /** judgetree's global setup, which calls the config's own first. */
  globalSetup: string
  /** judgetree's global teardown, which calls the config's own after it. */
  globalTeardown: string
  /** Absent when `reporter: false` and the config has none. */
  reporters?: Array<string | [string, unknown]>
  /**
   * On unless the config (or an inline project) turns it off: the reporter lists tests in their files' order, even
   * under `--randomize`.
   */
  testLocationInResults: boolean
}

/** The parts of a Jest config withJudgetree reads and writes. */
interface JestConfigLike {
  setupFilesAfterEnv?: readonly string[] | undefined
  globalSetup?: string | null | undefined
  globalTeardown?: string | null | undefined
  globals?: Record<string, unknown> | undefined
  testTimeout?: number | undefined
  reporters?: ReadonlyArray<string | readonly [string, unknown]> | undefined
  projects?: ReadonlyArray<string | object> | undefined
  testLocationInResults?: boolean | undefined
  displayName?: unknown
}

const SETUP_FILE = fileURLToPath(new URL('./setup.cjs', import.meta.url))
const REPORTER_FILE = fileURLToPath(new URL('./reporter.cjs', import.meta.url))
const GLOBAL_SETUP_FILE = fileURLToPath(new URL('./global-setup.cjs', import.meta.url))
const GLOBAL_TEARDOWN_FILE = fileURLToPath(new URL('./global-teardown.cjs', import.meta.url))
/** Where the per-config copies of the global hooks go (see {@link globalHookFiles}). */
const HOOK_COPIES = join(tmpdir(), 'judgetree-jest-hooks')
let hookCopies = 0

/**
 * Adds judgetree to a Jest config: the setup file that registers `toPassMetric` (in every inline project too),
 * a 5-minute `testTimeout` when none is set, a `globalSetup`/`globalTeardown` pair that starts one judge-call
 * coordinator for the run (so all workers share `concurrency` and `requestsPerMinute`), and the judgetree
 * reporter after the existing reporters. A `globalSetup`/`globalTeardown` the config already has is kept:
 * judgetree's calls it (its setup before starting the coordinator, its teardown after closing it). Accepts a
 * config object or a (possibly async) function returning one, as Jest does.
 *
 * @example
 * // jest.config.cjs
 * const { withJudgetree } = require('@judgetree/matchers/jest')
 * module.exports = withJudgetree({ transform: { '^.+\\.ts$': '@swc/jest' } }, { concurrency: 4 })
 */
export function withJudgetree<Config extends object>(
  config: () => Config | Promise<Config>,
  options?: WithJudgetreeOptions,
): () => Promise<Config & JudgetreeJestConfig>
export function withJudgetree<Config extends object>(
  config: Config,
  options?: WithJudgetreeOptions,
): Config & JudgetreeJestConfig
export function withJudgetree<Config extends object>(
  config: Config | (() => Config | Promise<Config>),
  options: WithJudgetreeOptions = {},
): (Config & JudgetreeJestConfig) | (() => Promise<Config & JudgetreeJestConfig>) {
  const checked = checkInstallOptions(options, 'withJudgetree(config, options)')
  if (typeof config === 'function') return async () => addJudgetree(await config(), checked)
  return addJudgetree(config, checked)
}

function addJudgetree<Config extends object>(
  input: Config,
  { timeout, reporterOptions, limits }: InstallOptions,
): Config & JudgetreeJestConfig {
  if (typeof input !== 'object' || input === null) {
    throw new ConfigurationError(`withJudgetree(config): expected a Jest config object, got ${describeValue(input)}.`)
  }
  const config = input as JestConfigLike
  const hookOptions = withHookOptions(config, limits, reporterOptions !== undefined)
  const result: JestConfigLike = {
    ...config,
    setupFilesAfterEnv: withSetup(config.setupFilesAfterEnv),
    testTimeout: config.testTimeout ?? timeout,
    ...globalHookFiles(hookOptions),
    testLocationInResults: config.testLocationInResults ?? true,
  }
  if (config.projects === undefined) {
    const globals = withJudgetreeGlobals(config.globals, config.displayName, hookOptions)
    if (globals !== undefined) result.globals = globals
  } else {
    // Jest runs the root's global hooks with some project's config, and the root's `globals` reach no project,
    // so what the hooks need goes to every inline project; each project's own hooks are left to Jest.
    const inline = config.projects.filter((project) => typeof project === 'object' && project !== null)
    if (hookOptions !== undefined && inline.length === 0) {
      throw new ConfigurationError(
        "withJudgetree(config, options): with `projects` that are all paths, judgetree's global setup cannot " +
          "see `concurrency`, `requestsPerMinute` or the config's own globalSetup/globalTeardown. Use " +
          "withJudgetree in the projects' configs, or JUDGETREE_CONCURRENCY and JUDGETREE_RPM.",
      )
    }
    result.projects = config.projects.map((project) => {
      if (typeof project !== 'object' || project === null) return project
      const inlineProject = project as JestConfigLike
      const rootOptions = hookOptions === undefined ? undefined : { ...hookOptions, root: true as const }
      const globals = withJudgetreeGlobals(inlineProject.globals, inlineProject.displayName, rootOptions)
      return {
        ...inlineProject,
        setupFilesAfterEnv: withSetup(inlineProject.setupFilesAfterEnv),
        // A project option in Jest (jest-circus reads it from the project's config), not a global one.
        testLocationInResults: inlineProject.testLocationInResults ?? result.testLocationInResults,
        ...(globals === undefined ? {} : { globals }),
      }
    })
  }
  if (reporterOptions !== undefined) {
    const reporters = config.reporters ?? ['default']
    const present = reporters.some((entry) => (typeof entry === 'string' ? entry : entry[0]) === REPORTER_FILE)
    result.reporters = present ? reporters : [...reporters, [REPORTER_FILE, reporterOptions]]
  }
  return result as Config & JudgetreeJestConfig
}

/**
 * What judgetree's global hooks need from the config: the limits, and the config's own hooks, which judgetree's
 * replace and call. Undefined when there is nothing to pass on. A config wrapped before keeps what it had.
 */
function withHookOptions(
  config: JestConfigLike,
  limits: InstallOptions['limits'],
  reporter: boolean,
): JestHookOptions | undefined {
  const previous = [config, ...(config.projects ?? [])]
    .map((entry) => (entry as JestConfigLike | null)?.globals?.[JEST_GLOBALS_KEY] as JestHookOptions | undefined)
    .find((found) => typeof found === 'object' && found !== null)
  const own = (hook: string | null | undefined, ours: string) =>
    hook === ours || !hook || hook.startsWith(HOOK_COPIES) ? undefined : hook
  const globalSetup = own(config.globalSetup, GLOBAL_SETUP_FILE) ?? previous?.globalSetup
  const globalTeardown = own(config.globalTeardown, GLOBAL_TEARDOWN_FILE) ?? previous?.globalTeardown
  const { root: _root, ...inherited } = previous ?? {}
  const options: JestHookOptions = {
    ...inherited,
    ...limits,
    ...(globalSetup === undefined ? {} : { globalSetup }),
    ...(globalTeardown === undefined ? {} : { globalTeardown }),
    ...(reporter ? {} : { reporter: false as const }),
  }
  if (reporter) delete (options as { reporter?: false }).reporter
  return Object.keys(options).length === 0 ? undefined : options
}

/**
 * A project's `globals` with what judgetree passes through them: the global hooks' options, and the project's name
 * for its test files (so the reporter can tell two projects' runs of one file apart). Undefined when unchanged.
 */
function withJudgetreeGlobals(
  globals: Record<string, unknown> | undefined,
  displayName: unknown,
  hookOptions: JestHookOptions | undefined,
): Record<string, unknown> | undefined {
  const project = projectNameOf(displayName)
  const stale = hookOptions === undefined && globals !== undefined && JEST_GLOBALS_KEY in globals
  if (hookOptions === undefined && project === '' && !stale) return undefined
  // A config wrapped before, now with nothing to pass on (say, its reporter back on), loses what it had.
  const { [JEST_GLOBALS_KEY]: _previous, ...others } = globals ?? {}
  return {
    ...others,
    ...(hookOptions === undefined ? {} : { [JEST_GLOBALS_KEY]: hookOptions }),
    ...(project === '' ? {} : { [JEST_PROJECT_GLOBAL]: project }),
  }
}

/**
 * judgetree's global hooks for this config. Jest runs each distinct hook path once per run, with the config of the
 * first project that names it: several projects, each wrapped by withJudgetree with its own globalSetup, would
 * share one path and only the first project's own hook would run. A config with hooks of its own therefore gets
 * its own path: a one-line copy that requires judgetree's hook, so Jest runs it once per such project, with that
 * project's config (the coordinator is started once and shared).
 */
function globalHookFiles(hookOptions: JestHookOptions | undefined): { globalSetup: string; globalTeardown: string } {
  if (hookOptions?.globalSetup === undefined && hookOptions?.globalTeardown === undefined) {
    return { globalSetup: GLOBAL_SETUP_FILE, globalTeardown: GLOBAL_TEARDOWN_FILE }
  }
  hookCopies += 1
  const directory = join(HOOK_COPIES, String(hookCopies))
  return {
    globalSetup: requiringCopy(directory, 'global-setup.cjs', GLOBAL_SETUP_FILE),
    globalTeardown: requiringCopy(directory, 'global-teardown.cjs', GLOBAL_TEARDOWN_FILE),
  }
}

/** Writes (atomically: two runs may start at once) a module that is `file`, under another path. */
function requiringCopy(directory: string, name: string, file: string): string {
  mkdirSync(directory, { recursive: true })
  const copy = join(directory, name)
  const temporary = `${copy}.${process.pid}.tmp`
  writeFileSync(temporary, `module.exports = require(${JSON.stringify(file)})\n`)
  renameSync(temporary, copy)
  return copy
}

function withSetup(files: readonly string[] | undefined): string[] {
  const list = [...(files ?? [])]
  return list.includes(SETUP_FILE) ? list : [...list, SETUP_FILE]
}
