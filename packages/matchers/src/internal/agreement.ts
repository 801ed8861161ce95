import { type Calibration, ConfigurationError, formatStatistic, renderDisagreement } from '@judgetree/core'
import { describeValue } from './describe-value.js'

/** What `toAgreeWith` demands of a calibration: minimums, except `meanAbsoluteError`, a maximum. */
export interface AgreementExpectation {
  /** Cohen's kappa at least this. */
  kappa?: number | undefined
  /** Share of matching pass/fail verdicts at least this. */
  agreement?: number | undefined
  /** Spearman's correlation (score labels) at least this. */
  spearman?: number | undefined
  /** Mean absolute error (score labels) at most this. */
  meanAbsoluteError?: number | undefined
}

const STATISTICS = [
  { key: 'kappa', label: "Cohen's kappa", atMost: false },
  { key: 'agreement', label: 'agreement', atMost: false },
  { key: 'spearman', label: 'Spearman', atMost: false },
  { key: 'meanAbsoluteError', label: 'mean abs. error', atMost: true },
] as const

const WORST_SHOWN = 3

/**
 * Checks a calibration against the expectation: passes when every statistic named reaches its bound. The message
 * lists each number against its bound, then the worst disagreements, so a failure shows where to look.
 */
export function checkAgreement(
  received: unknown,
  expected: unknown,
  isNot: boolean,
): { pass: boolean; message: () => string } {
  const calibration = checkCalibration(received)
  const bounds = checkExpectation(expected)
  const rows = STATISTICS.filter(({ key }) => bounds[key] !== undefined).map(({ key, label, atMost }) => {
    const bound = bounds[key] as number
    const value = calibration[key]
    const met = value !== undefined && (atMost ? value <= bound : value >= bound)
    const comparison = value === undefined ? 'not defined on these cases' : `${atMost ? '≤' : '≥'} ${bound} wanted`
    return { met, line: `  ${met ? '✓' : '✗'} ${label.padEnd(15)} ${formatStatistic(value)}  (${comparison})` }
  })
  const pass = rows.every((row) => row.met)
  const message = () => {
    const lines = [
      isNot
        ? `expected the judge not to agree this well with the human labels, but it does:`
        : `expected the judge to agree with the human labels:`,
      ...rows.map((row) => row.line),
      '',
      `${calibration.metric} on ${calibration.cases} labelled cases (${calibration.measured} measured, ${calibration.errored} errored); ` +
        `confusion: ${calibration.confusion.truePositive} TP, ${calibration.confusion.falsePositive} FP, ` +
        `${calibration.confusion.trueNegative} TN, ${calibration.confusion.falseNegative} FN`,
    ]
    const worst = calibration.disagreements.slice(0, WORST_SHOWN)
    if (worst.length > 0) {
      lines.push(`worst of ${calibration.disagreements.length} disagreements:`, ...worst.map(renderDisagreement))
    }
    return lines.join('\n')
  }
  return { pass, message }
}

function checkCalibration(received: unknown): Calibration<unknown> {
  const candidate = received as Partial<Calibration<unknown>> | null
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.confusion !== 'object' ||
    !Array.isArray(candidate.disagreements)
  ) {
    throw new ConfigurationError(
      `toAgreeWith() checks what calibrate() resolves to; got ${describeValue(received)}. ` +
        'Write `expect(await calibrate(metric, labelled)).toAgreeWith({ kappa: 0.6 })`.',
    )
  }
  return candidate as Calibration<unknown>
}

function checkExpectation(expected: unknown): AgreementExpectation {
  const keys = STATISTICS.map(({ key }) => key) as readonly string[]
  if (typeof expected !== 'object' || expected === null) {
    throw new ConfigurationError(
      `toAgreeWith(expected): expected an object such as { kappa: 0.6 }, got ${describeValue(expected)}.`,
    )
  }
  const problems: string[] = []
  const given = Object.entries(expected).filter(([, value]) => value !== undefined)
  if (given.length === 0) problems.push(`Name at least one of ${keys.map((key) => `\`${key}\``).join(', ')}.`)
  for (const [key, value] of given) {
    if (!keys.includes(key)) problems.push(`Unknown \`${key}\`; expected one of ${keys.join(', ')}.`)
    else if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push(`Expected \`${key}\` to be a number, got ${describeValue(value)}.`)
    }
  }
  if (problems.length > 0) throw new ConfigurationError(`toAgreeWith(expected):\n  - ${problems.join('\n  - ')}`)
  return expected as AgreementExpectation
}
