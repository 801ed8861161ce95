// @judgetree/matchers/vitest/global-setup: starts the run's judge-call coordinator, so every worker shares one
// limit. The plugin adds it to `globalSetup`; without the plugin, add '@judgetree/matchers/vitest/global-setup'
// there yourself (limits then come from JUDGETREE_CONCURRENCY and JUDGETREE_RPM).
import { useRunCoordinator } from '../internal/run-coordinator.js'
import { COORDINATOR_URL_KEY, PROVIDED_OPTIONS_KEY, type ProvidedOptions } from '../internal/vitest-options.js'

/** What Vitest (3.2, 4, 5) passes to a global setup: the project it runs for. */
interface ProjectLike {
  provide(key: string, value: unknown): void
  getProvidedContext?(): Record<string, unknown>
}

/**
 * Vitest runs it once per project. The first starts a coordinator (unless JUDGETREE_COORDINATOR_URL is already
 * set) and sets JUDGETREE_COORDINATOR_URL; the others find it there. Every project provides the URL to its
 * workers, whose setup file puts it in their JUDGETREE_COORDINATOR_URL.
 */
export default async function setup(project: ProjectLike): Promise<() => Promise<void>> {
  const provided = project.getProvidedContext?.()[PROVIDED_OPTIONS_KEY] as ProvidedOptions | undefined
  const coordinator = await useRunCoordinator({
    ...(provided?.concurrency === undefined ? {} : { concurrency: provided.concurrency }),
    ...(provided?.requestsPerMinute === undefined ? {} : { requestsPerMinute: provided.requestsPerMinute }),
  })
  project.provide(COORDINATOR_URL_KEY, coordinator.url)
  return () => coordinator.close()
}
