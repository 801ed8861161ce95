import { ConfigurationError } from '@judgetree/core'
import { checkEnvironment, startCoordinator } from '@judgetree/core/runtime'
import type { CoordinatorLimits } from './install-options.js'

/** The variable through which every process of a run finds its coordinator; core's default runtime reads it. */
export const COORDINATOR_URL_ENV = 'JUDGETREE_COORDINATOR_URL'

/** The coordinator a runner's global setup uses: one it started, or one that was already set. */
export interface RunCoordinator {
  readonly url: string
  /** True when this call started it (and set JUDGETREE_COORDINATOR_URL). */
  readonly started: boolean
  /** Closes the coordinator and unsets JUDGETREE_COORDINATOR_URL if this call started it; otherwise does nothing. */
  close(): Promise<void>
}

/** JUDGETREE_COORDINATOR_URL, unless unset or blank (as core's runtime reads it). */
export function coordinatorUrlFromEnv(): string | undefined {
  const url = process.env[COORDINATOR_URL_ENV]?.trim()
  return url === undefined || url === '' ? undefined : url
}

/**
 * Checks the environment every judge call of the run reads (see checkEnvironment), throwing a ConfigurationError
 * without a stack: what to fix is all in the message, and a stack would only point into judgetree and the runner.
 */
export function checkRunEnvironment(): void {
  try {
    checkEnvironment()
  } catch (error) {
    if (error instanceof ConfigurationError) error.stack = `${error.name}: ${error.message}`
    throw error
  }
}

/**
 * The run's coordinator: the one JUDGETREE_COORDINATOR_URL already names (another project of this run, or the
 * user's own), else a new one with these limits, whose URL is then set in JUDGETREE_COORDINATOR_URL. Checks the
 * JUDGETREE_* variables first (see checkEnvironment).
 */
export async function useRunCoordinator(limits: CoordinatorLimits = {}): Promise<RunCoordinator> {
  // Both runners' global setups come here before any test starts: a malformed JUDGETREE_* variable stops the run
  // with one message, instead of failing every test file (or every test) with the same one.
  checkRunEnvironment()
  const existing = coordinatorUrlFromEnv()
  if (existing !== undefined) return { url: existing, started: false, close: async () => {} }
  // Only the limits that were given: a missing one is read from JUDGETREE_CONCURRENCY / JUDGETREE_RPM.
  const coordinator = await startCoordinator({
    ...(limits.concurrency === undefined ? {} : { concurrency: limits.concurrency }),
    ...(limits.requestsPerMinute === undefined ? {} : { requestsPerMinute: limits.requestsPerMinute }),
  })
  process.env[COORDINATOR_URL_ENV] = coordinator.url
  let closed: Promise<void> | undefined
  return {
    url: coordinator.url,
    started: true,
    close() {
      // Unset, so a watch-mode rerun (or the next run in this process) starts a fresh one.
      if (process.env[COORDINATOR_URL_ENV] === coordinator.url) delete process.env[COORDINATOR_URL_ENV]
      closed ??= coordinator.close()
      return closed
    },
  }
}
