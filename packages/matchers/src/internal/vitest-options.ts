import type { CoordinatorLimits } from './install-options.js'

/** The key under which the plugin provides its options to the test workers (`project.provide` / `inject`). */
export const PROVIDED_OPTIONS_KEY = 'judgetree'

/** The key under which the global setup provides the run's coordinator URL to the test workers. */
export const COORDINATOR_URL_KEY = 'judgetreeCoordinatorUrl'

/** What the plugin tells the setup file in each worker, and the global setup the limits it was given. */
export interface ProvidedOptions extends CoordinatorLimits {
  readonly annotatePassing: boolean
}
