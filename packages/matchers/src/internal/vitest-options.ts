/** The key under which the plugin provides its options to the test workers (`project.provide` / `inject`). */
export const PROVIDED_OPTIONS_KEY = 'judgetree'

/** What the plugin tells the setup file in each worker. */
export interface ProvidedOptions {
  readonly annotatePassing: boolean
}
