import { type JuryRecord, jurorsIn, replayingJuror } from '../judge/jury-replay.js'
import type { MetricResult } from '../metric/types.js'
import type { LabelledCase } from './labels.js'
import type { Confusion } from './statistics.js'

/** How one juror of a jury, judging alone, agrees with the labels: beside the jury's own numbers. */
export interface JurorCalibration {
  /** The juror's name. */
  readonly juror: string
  /** Cases the juror's own answers took to a verdict: what its numbers are computed on. */
  readonly measured: number
  /**
   * Cases left out for this juror: its own walk needed a decision it was not asked while the jury measured (its
   * verdict led elsewhere than the jury's, or `escalate` spared it), or the jury's measurement errored.
   */
  readonly leftOut: number
  readonly agreement: number | undefined
  /** Cohen's kappa of the juror's pass/fail against the labels'. */
  readonly kappa: number | undefined
  readonly confusion: Confusion
}

/** The numbers calibrate() computes from measured results, for one juror's. */
type Summarise = (
  measured: readonly MetricResult[],
) => Pick<JurorCalibration, 'measured' | 'agreement' | 'kappa' | 'confusion'>

/**
 * Each juror's calibration, with no judge call: every case is measured again with the jury answering from what the
 * juror answered while the jury measured (`record`). Empty when no jury answered.
 */
export async function calibrateJurors<TestCase>(
  record: JuryRecord,
  labelled: readonly LabelledCase<TestCase>[],
  measureAll: () => Promise<readonly MetricResult[]>,
  summarise: Summarise,
): Promise<JurorCalibration[]> {
  const calibrations: JurorCalibration[] = []
  for (const juror of jurorsIn(record)) {
    const own = summarise(await replayingJuror(record, juror, measureAll))
    calibrations.push({ juror, ...own, leftOut: labelled.length - own.measured })
  }
  return calibrations
}
