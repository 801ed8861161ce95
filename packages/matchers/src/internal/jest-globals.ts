import type { CoordinatorLimits } from './install-options.js'

/**
 * Where withJudgetree leaves what its global setup and teardown need: the coordinator's limits and the
 * config's own globalSetup/globalTeardown, which they call. `globals` is the one project option Jest passes
 * through untouched (ts-jest kept its options there too); Jest runs a global hook in the main process with
 * `(globalConfig, projectConfig)`, so the hooks read it from `projectConfig.globals`.
 */
export const JEST_GLOBALS_KEY = '@judgetree/matchers'

/** What withJudgetree stores under `globals['@judgetree/matchers']`. */
export interface JestHookOptions extends CoordinatorLimits {
  /** The config's own globalSetup, as written (resolved against `rootDir` like Jest does). */
  readonly globalSetup?: string
  /** The config's own globalTeardown, as written. */
  readonly globalTeardown?: string
  /**
   * True in an inline project's copy of the root config's options: its hooks are the root's, resolved against the
   * run's rootDir. Otherwise they are the project's own, resolved against the project's rootDir, as Jest does.
   */
  readonly root?: true
  /** False when withJudgetree was told `reporter: false`: a run without the reporter is then what was asked for. */
  readonly reporter?: false
}

/** Set on `globalThis` by the judgetree reporter when Jest loads it (in the main process, as the global hooks). */
export const JEST_REPORTER_LOADED = Symbol.for('judgetree.jestReporterLoaded')

/**
 * The global through which a test file learns its project's `displayName` (withJudgetree copies it into the
 * project's `globals`, which Jest installs in the test environment), so that evaluations of one file run by two
 * projects stay apart in the report.
 */
export const JEST_PROJECT_GLOBAL = '@judgetree/matchers:project'

/** A Jest `displayName` (a string, or `{ name, color }`) as the project's name; `''` when there is none. */
export function projectNameOf(displayName: unknown): string {
  if (typeof displayName === 'string') return displayName
  const name = (displayName as { name?: unknown } | null | undefined)?.name
  return typeof name === 'string' ? name : ''
}
