// @judgetree/matchers/jest/global-teardown (CommonJS): closes the run's judge-call coordinator, then runs the
// config's own globalTeardown. withJudgetree() sets it as `globalTeardown`.

import { JEST_REPORTER_LOADED } from '../internal/jest-globals.js'
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
  const holder = globalThis as { [COORDINATOR_HANDLE]?: RunCoordinator; [JEST_REPORTER_LOADED]?: boolean }
  const coordinator = holder[COORDINATOR_HANDLE]
  delete holder[COORDINATOR_HANDLE]
  await coordinator?.close()
  const options = jestHookOptions(globalConfig, projectConfig)
  // `--reporters=…` on the command line, or a config that lists its own, replaces withJudgetree's reporter list.
  // Said once, though several projects may each run this teardown.
  if (options.reporter !== false && holder[JEST_REPORTER_LOADED] !== true && coordinator !== undefined) {
    process.stderr.write(`${MISSING_REPORTER}\n`)
  }
  await runUserHook('globalTeardown', options.globalTeardown, [globalConfig, projectConfig])
}

const MISSING_REPORTER =
  'judgetree: the judgetree reporter was not among the reporters (--reporters replaces the list), so no summary, ' +
  'JSON report or step summary was written; keep it with --reporters=default --reporters=@judgetree/matchers/jest/reporter'
