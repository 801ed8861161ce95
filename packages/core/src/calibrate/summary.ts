import { oneLineSafe } from '../internal/safe-text.js'
import { type Palette, PLAIN, paintSafe } from '../report/colour.js'
import { formatCost, formatCount, formatTokenDetails } from '../report/summary.js'
import { formatScore } from '../trace/render.js'
import type { Calibration, CalibrationDisagreement } from './calibrate.js'

const WORST_SHOWN = 5

/** `0.742`, or `n/a` for a statistic that is not defined on these cases. */
export function formatStatistic(value: number | undefined): string {
  return value === undefined ? 'n/a' : (Math.round(value * 1000) / 1000).toFixed(3)
}

/**
 * The plain-text report printed after calibrate(): the statistics, the confusion table, the suggested threshold,
 * the worst disagreements and errors, then one summary line (in a terminal, agreements green and disagreements and
 * errors red). Safe to print (see `terminalSafe`): case names and
 * judges' reasons cannot act in a terminal or a CI log.
 */
export function renderCalibration(calibration: Calibration<unknown>): string {
  return calibrationText(calibration, PLAIN)
}

/** {@link renderCalibration}, coloured by `palette`: what calibrate() prints to a terminal. */
export function calibrationText(calibration: Calibration<unknown>, palette: Palette): string {
  const { confusion, suggestedThreshold: fitted } = calibration
  const kind = calibration.labels === 'pass' ? 'pass/fail labels' : 'score labels'
  const lines = [
    paintSafe(`calibration of ${calibration.metric} against ${formatCount(calibration.cases)} human ${kind}`),
    '',
    `  agreement        ${formatStatistic(calibration.agreement)}  (${formatCount(confusion.truePositive + confusion.trueNegative)} of ${formatCount(calibration.measured)} verdicts)`,
    `  Cohen's kappa    ${formatStatistic(calibration.kappa)}`,
  ]
  if (calibration.labels === 'score') {
    lines.push(
      `  mean abs. error  ${formatStatistic(calibration.meanAbsoluteError)}`,
      `  Spearman         ${formatStatistic(calibration.spearman)}`,
    )
  }
  lines.push(...jurorLines(calibration))
  // The diagonal is where judge and humans agree: green; off it, red, where there are cases.
  const cell = (count: number, paint: (text: string) => string) =>
    count === 0 ? formatCount(count).padStart(10) : paint(formatCount(count).padStart(10))
  lines.push(
    '',
    `  ${''.padEnd(10)}  ${'human pass'.padStart(10)}  ${'human fail'.padStart(10)}`,
    `  ${'judge pass'.padEnd(10)}  ${cell(confusion.truePositive, palette.pass)}  ${cell(confusion.falsePositive, palette.fail)}`,
    `  ${'judge fail'.padEnd(10)}  ${cell(confusion.falseNegative, palette.fail)}  ${cell(confusion.trueNegative, palette.pass)}`,
  )
  if (fitted) {
    const current = formatScore(calibration.threshold)
    const fittedOn = `fitted on these ${formatCount(fitted.fittedOn)} cases`
    lines.push(
      '',
      fitted.value === calibration.threshold
        ? `  threshold ${current} agrees best of any threshold (${fittedOn})`
        : `  threshold ${current}; ${formatScore(fitted.value)} would agree best ` +
            `(${formatStatistic(fitted.agreement)}, ${fittedOn}: check it on others)`,
    )
  }
  const worst = calibration.disagreements.slice(0, WORST_SHOWN)
  if (worst.length > 0) {
    lines.push('', `${plural(calibration.disagreements.length, 'disagreement')}, the farthest apart first:`)
    lines.push(...worst.map((disagreement) => disagreementLine(disagreement, palette)))
    if (calibration.disagreements.length > WORST_SHOWN) {
      lines.push(`  … and ${calibration.disagreements.length - WORST_SHOWN} more in \`disagreements\``)
    }
  }
  if (calibration.errors.length > 0) {
    lines.push(
      '',
      `${plural(calibration.errors.length, 'case')} errored and ${calibration.errors.length === 1 ? 'is' : 'are'} left out of the numbers:`,
    )
    for (const { index, name, error } of calibration.errors.slice(0, WORST_SHOWN)) {
      lines.push(`  ${palette.fail('✗')} ${paintSafe(`${caseLabel(index, name)}: ${firstLine(error.message)}`)}`)
    }
  }
  const usage = calibration.usage
  const errored = `${formatCount(calibration.errored)} errored`
  lines.push(
    '',
    `judgetree calibration: ${formatCount(calibration.cases)} cases, ${formatCount(calibration.measured)} measured, ` +
      `${calibration.errored > 0 ? palette.fail(errored) : errored} · ${formatCount(usage.judgeCalls)} judge calls ` +
      `(${formatCount(usage.cachedCalls)} cached) · ${formatCount(usage.promptTokens + usage.completionTokens)} tokens${formatTokenDetails(usage)} · ` +
      formatCost(usage.costUsd),
  )
  return lines.join('\n')
}

/** `  ✗ case 4 "late parcel": judge 0.9 (pass), human fail · The reply apologises…` */
export function renderDisagreement(disagreement: CalibrationDisagreement<unknown>): string {
  return disagreementLine(disagreement, PLAIN)
}

function disagreementLine(disagreement: CalibrationDisagreement<unknown>, palette: Palette): string {
  const { index, name, score, judgePass, label, reason } = disagreement
  const human =
    'pass' in label
      ? label.pass
        ? 'pass'
        : 'fail'
      : `${formatScore(label.score)} (${disagreement.humanPass ? 'pass' : 'fail'})`
  const because = reason ? ` · ${firstLine(reason)}` : ''
  const text = `${caseLabel(index, name)}: judge ${formatScore(score)} (${judgePass ? 'pass' : 'fail'}), human ${human}${because}`
  return `  ${palette.fail('✗')} ${paintSafe(text)}`
}

/**
 * A jury's jurors, each judging alone over the answers it gave: `  gpt-4.1-mini  kappa 0.512  agreement 0.781  (32 of
 * 36 cases)`, below the jury's own kappa, so that a panel that does not beat its best member shows.
 */
function jurorLines(calibration: Calibration<unknown>): string[] {
  const jurors = calibration.jurors ?? []
  if (jurors.length === 0) return []
  const width = Math.max(...jurors.map(({ juror }) => oneLineSafe(juror).length))
  return [
    '  each juror alone (its own answers, no extra call):',
    ...jurors.map(
      ({ juror, kappa, agreement, measured }) =>
        `    ${oneLineSafe(juror).padEnd(width)}  kappa ${formatStatistic(kappa)}  agreement ${formatStatistic(agreement)}` +
        `  (${formatCount(measured)} of ${formatCount(calibration.cases)} cases)`,
    ),
  ]
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`
}

function caseLabel(index: number, name: string | undefined): string {
  // A name is the dataset's: on one line, so each case is one line whatever the name holds.
  return `case ${index}${name ? ` "${oneLineSafe(name)}"` : ''}`
}

function firstLine(text: string): string {
  const first = text.split('\n')[0] ?? ''
  return first.length > 160 ? `${first.slice(0, 160)}…` : first
}
