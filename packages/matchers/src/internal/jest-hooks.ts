import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigurationError } from '@judgetree/core'
import { describeValue } from './describe-value.js'
import { JEST_GLOBALS_KEY, type JestHookOptions } from './jest-globals.js'

/** The parts of Jest's global and project configs the hooks read; the same in Jest 29 and 30. */
export interface JestGlobalConfigLike {
  readonly rootDir: string
  readonly projects?: ReadonlyArray<unknown> | undefined
}
export interface JestProjectConfigLike {
  readonly rootDir?: string | undefined
  readonly globals?: Record<string, unknown> | undefined
}

/** Where the run's coordinator is kept between the global setup and teardown (same process, other modules). */
export const COORDINATOR_HANDLE = Symbol.for('judgetree.jestCoordinator')

/**
 * The config's own hooks already run in this run, by resolved file and kind. Jest runs judgetree's hooks once per
 * project with hooks of its own, and once more for the root config with the first project's config; like Jest,
 * each own hook runs once per run. The global setup starts a new set when it starts a new run's coordinator.
 */
export const HOOKS_RUN = Symbol.for('judgetree.jestHooksRun')

export function hooksRun(): Set<string> {
  const holder = globalThis as { [HOOKS_RUN]?: Set<string> }
  holder[HOOKS_RUN] ??= new Set()
  return holder[HOOKS_RUN]
}

/**
 * The hook options withJudgetree stored: in the project Jest runs the hook for, else (a config with `projects`,
 * whose root options reach no project) in any inline project.
 */
export function jestHookOptions(globalConfig: JestGlobalConfigLike, projectConfig: JestProjectConfigLike | undefined) {
  const candidates = [projectConfig, ...(globalConfig.projects ?? [])]
  for (const candidate of candidates) {
    const found = (candidate as JestProjectConfigLike | undefined)?.globals?.[JEST_GLOBALS_KEY]
    if (typeof found === 'object' && found !== null) return found as JestHookOptions
  }
  return {}
}

/**
 * What a config's own hook path is resolved against: the project's rootDir for a project's own hooks (as Jest
 * resolves them: with several projects it is not the run's), the run's for the root config's.
 */
function hookRootDir(globalConfig: JestGlobalConfigLike, projectConfig: JestProjectConfigLike | undefined): string {
  const options = jestHookOptions(globalConfig, projectConfig)
  const own = (projectConfig?.globals?.[JEST_GLOBALS_KEY] as JestHookOptions | undefined) === options
  return own && options.root !== true ? (projectConfig?.rootDir ?? globalConfig.rootDir) : globalConfig.rootDir
}

/**
 * Runs the config's own globalSetup or globalTeardown as Jest would: resolved against `rootDir` (`<rootDir>`,
 * relative paths and package names), called with Jest's arguments. It is required while Jest is still running
 * judgetree's hook, so Jest's transform hook is in place and a TypeScript hook is transformed like any other.
 */
export async function runUserHook(
  kind: 'globalSetup' | 'globalTeardown',
  path: string | undefined,
  args: readonly [JestGlobalConfigLike, JestProjectConfigLike | undefined],
): Promise<void> {
  if (path === undefined) return
  const rootDir = hookRootDir(args[0], args[1])
  const request = path.startsWith('<rootDir>') ? join(rootDir, path.slice('<rootDir>'.length)) : path
  const file = createRequire(join(rootDir, 'package.json')).resolve(request)
  if (hooksRun().has(`${kind} ${file}`)) return
  hooksRun().add(`${kind} ${file}`)
  const hook = await load(file)
  if (typeof hook !== 'function') {
    throw new ConfigurationError(
      `The config's own ${kind} (${path}, chained by withJudgetree) must export a function, got ${describeValue(hook)}.`,
    )
  }
  await hook(...args)
}

async function load(file: string): Promise<unknown> {
  let loaded: unknown
  try {
    loaded = createRequire(file)(file)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error
    loaded = await import(pathToFileURL(file).href)
  }
  const module = loaded as { default?: unknown } | undefined
  return typeof loaded === 'function' ? loaded : (module?.default ?? loaded)
}
