// @judgetree/matchers/jest/global-setup (CommonJS): runs the config's own globalSetup, then starts the run's
// judge-call coordinator, so every worker shares one limit. withJudgetree() sets it as `globalSetup`.
import {
  COORDINATOR_HANDLE,
  hooksRun,
  type JestGlobalConfigLike,
  type JestProjectConfigLike,
  jestHookOptions,
  runUserHook,
} from '../internal/jest-hooks.js'
import { type RunCoordinator, useRunCoordinator } from '../internal/run-coordinator.js'

/**
 * Starts a coordinator unless JUDGETREE_COORDINATOR_URL is already set, and sets JUDGETREE_COORDINATOR_URL,
 * which the workers Jest starts next inherit. The handle stays on globalThis for the global teardown.
 */
export default async function judgetreeGlobalSetup(
  globalConfig: JestGlobalConfigLike,
  projectConfig?: JestProjectConfigLike,
): Promise<void> {
  const options = jestHookOptions(globalConfig, projectConfig)
  const holder = globalThis as { [COORDINATOR_HANDLE]?: RunCoordinator }
  // No coordinator yet: the first setup of a run (the teardown closes it after each, watch-mode reruns included).
  if (holder[COORDINATOR_HANDLE] === undefined) hooksRun().clear()
  // Theirs first: it may set JUDGETREE_* variables, or start services the run needs.
  await runUserHook('globalSetup', options.globalSetup, [globalConfig, projectConfig])
  // Several projects with hooks of their own each run this setup (see withJudgetree): one coordinator serves
  // them all. The global teardown closes it after every run, watch-mode reruns included.
  if (holder[COORDINATOR_HANDLE] !== undefined) return
  holder[COORDINATOR_HANDLE] = await useRunCoordinator({
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.requestsPerMinute === undefined ? {} : { requestsPerMinute: options.requestsPerMinute }),
  })
}
