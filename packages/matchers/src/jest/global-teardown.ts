// @judgetree/matchers/jest/global-teardown (CommonJS): closes the run's judge-call coordinator, then runs the
// config's own globalTeardown. withJudgetree() sets it as `globalTeardown`.
import {
  COORDINATOR_HANDLE,
  type JestGlobalConfigLike,
  type JestProjectConfigLike,
  jestHookOptions,
  runUserHook,
} from '../internal/jest-hooks.js'
import type { RunCoordinator } from '../internal/run-coordinator.js'

/** Closes the coordinator the global setup started (one it found in JUDGETREE_COORDINATOR_URL is left alone). */
export default async function judgetreeGlobalTeardown(
  globalConfig: JestGlobalConfigLike,
  projectConfig?: JestProjectConfigLike,
): Promise<void> {
  const holder = globalThis as { [COORDINATOR_HANDLE]?: RunCoordinator }
  const coordinator = holder[COORDINATOR_HANDLE]
  delete holder[COORDINATOR_HANDLE]
  await coordinator?.close()
  await runUserHook('globalTeardown', jestHookOptions(globalConfig, projectConfig).globalTeardown, [
    globalConfig,
    projectConfig,
  ])
}
