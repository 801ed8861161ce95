import type { CoordinatorLimits } from './install-options.js'

/** The key under which the plugin provides its options to the test workers (`project.provide` / `inject`). */
export const PROVIDED_OPTIONS_KEY = 'judgetree'

/** The key under which the global setup provides the run's coordinator URL to the test workers. */
export const COORDINATOR_URL_KEY = 'judgetreeCoordinatorUrl'

/** What the plugin tells the setup file in each worker, and the global setup the limits it was given. */
export interface ProvidedOptions extends CoordinatorLimits {
  /**
   * Annotate evaluations at all: off when every reporter of the run is one that shows annotations only in the
   * terminal (or not at all), where an annotation would only repeat the failure's first lines under it. Unset
   * (the setup file without the plugin) is on.
   */
  readonly annotate?: boolean | undefined
  /** Annotate passing evaluations too, not only failed ones. */
  readonly annotatePassing: boolean
  /**
   * Attach a picture (the walked DAG, or a relevancy metric's verdicts, as SVG) to each annotation: on when a report
   * that shows images is being made (the HTML reporter, the UI, or a blob report that may be merged into HTML later).
   */
  readonly pictures?: boolean | undefined
  /**
   * Attach each picture as a file (`path`) rather than inline (`body`): Vitest 4+ then copies it beside the HTML
   * report, where the image's link opens it full size (a browser will not open an inline `data:` picture). Off for a
   * blob report, which keeps only the path: merged on another machine, the file would be missing.
   */
  readonly pictureFiles?: boolean | undefined
  /**
   * The judgetree reporter is in the run: it prints how to fix each problem of the environment (no API key) once
   * after the run, so the failed tests need not each repeat it.
   */
  readonly reporter?: boolean | undefined
}
