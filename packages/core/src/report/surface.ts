import type { Palette } from './colour.js'
import type { Run } from './run.js'

/**
 * Where a caller puts what a surface renders:
 * - `print`: the terminal (evaluate()'s `stdout`, the runner's log);
 * - `report-file`: the run's report file (evaluate()'s `outputFile`, the reporters' `outputFile`);
 * - `.ext`: a file beside the report file, of the same name with this extension (a regular file only: a device
 *   or a pipe has no "beside");
 * - `step-summary`: the CI step summary (`$GITHUB_STEP_SUMMARY`), appended to.
 */
export type SurfaceTarget = 'print' | 'report-file' | 'step-summary' | `.${string}`

/**
 * One way a run is shown. A surface is pure: it renders a run (the runners' or evaluate()'s) to text, or to nothing
 * when it has nothing for that kind of run; the callers (evaluate(), the reporters) own where the text goes.
 */
export interface Surface {
  /** What the surface is called in messages: `could not write the HTML summary …`. */
  readonly what: string
  readonly to: SurfaceTarget
  /** `palette` colours what a `print` surface prints to a terminal; every other surface is plain text. */
  render(run: Run, palette?: Palette): string | undefined
}
