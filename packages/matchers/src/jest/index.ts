// @judgetree/matchers/jest: installs judgetree in a Jest config.
import { fileURLToPath } from 'node:url'
import { ConfigurationError } from '@judgetree/core'
import { describeValue } from '../internal/describe-value.js'
import { checkInstallOptions, type InstallOptions } from '../internal/install-options.js'
import type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

export type { JudgetreeReporterOptions } from '../internal/reporter-options.js'

/** Options of {@link withJudgetree}. */
export interface WithJudgetreeOptions {
  /** `testTimeout` in milliseconds when the config sets none: Jest's 5 s is too short for judge calls. @default 60_000 */
  timeout?: number | undefined
  /** Add the judgetree reporter (with these options), or `false` to leave `reporters` alone. @default true */
  reporter?: boolean | JudgetreeReporterOptions | undefined
}

/** What withJudgetree adds to a Jest config. */
export interface JudgetreeJestConfig {
  setupFilesAfterEnv: string[]
  testTimeout: number
  /** Absent when `reporter: false` and the config has none. */
  reporters?: Array<string | [string, unknown]>
}

/** The parts of a Jest config withJudgetree reads and writes. */
interface JestConfigLike {
  setupFilesAfterEnv?: readonly string[] | undefined
  testTimeout?: number | undefined
  reporters?: ReadonlyArray<string | readonly [string, unknown]> | undefined
  projects?: ReadonlyArray<string | object> | undefined
}

const SETUP_FILE = fileURLToPath(new URL('./setup.cjs', import.meta.url))
const REPORTER_FILE = fileURLToPath(new URL('./reporter.cjs', import.meta.url))

/**
 * Adds judgetree to a Jest config: the setup file that registers `toPassMetric` (in every inline project too),
 * a 60 s `testTimeout` when none is set, and the judgetree reporter after the existing reporters. Accepts a
 * config object or a (possibly async) function returning one, as Jest does.
 *
 * @example
 * // jest.config.cjs
 * const { withJudgetree } = require('@judgetree/matchers/jest')
 * module.exports = withJudgetree({ transform: { '^.+\\.ts$': '@swc/jest' } })
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
  { timeout, reporterOptions }: InstallOptions,
): Config & JudgetreeJestConfig {
  if (typeof input !== 'object' || input === null) {
    throw new ConfigurationError(`withJudgetree(config): expected a Jest config object, got ${describeValue(input)}.`)
  }
  const config = input as JestConfigLike
  const result: JestConfigLike = {
    ...config,
    setupFilesAfterEnv: withSetup(config.setupFilesAfterEnv),
    testTimeout: config.testTimeout ?? timeout,
  }
  if (config.projects !== undefined) {
    result.projects = config.projects.map((project) =>
      typeof project === 'object' && project !== null
        ? { ...project, setupFilesAfterEnv: withSetup((project as JestConfigLike).setupFilesAfterEnv) }
        : project,
    )
  }
  if (reporterOptions !== undefined) {
    const reporters = config.reporters ?? ['default']
    const present = reporters.some((entry) => (typeof entry === 'string' ? entry : entry[0]) === REPORTER_FILE)
    result.reporters = present ? reporters : [...reporters, [REPORTER_FILE, reporterOptions]]
  }
  return result as Config & JudgetreeJestConfig
}

function withSetup(files: readonly string[] | undefined): string[] {
  const list = [...(files ?? [])]
  return list.includes(SETUP_FILE) ? list : [...list, SETUP_FILE]
}
