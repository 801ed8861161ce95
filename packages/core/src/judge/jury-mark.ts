import type { JuryCombine } from './jury-verdict.js'
import type { JudgeModel } from './types.js'

/** Marks a judge made by `jury()`, so the runtime and the option checks know one without importing it. */
export const JURY = Symbol.for('judgetree.jury')

/** A judge made by `jury()`: what the judge runtime and calibrate() need to know of it. */
export interface JuryJudge extends JudgeModel {
  readonly [JURY]: true
  readonly jurors: readonly JudgeModel[]
  readonly combine: JuryCombine
  readonly escalate: boolean
  /** The same jury with each juror replaced by `wrap(juror)`: the judge runtime wraps each one. */
  through(wrap: (juror: JudgeModel) => JudgeModel): JuryJudge
}

/** True for a judge made by `jury()`. */
export function isJury(judge: unknown): judge is JuryJudge {
  return typeof judge === 'object' && judge !== null && (judge as { [JURY]?: unknown })[JURY] === true
}
