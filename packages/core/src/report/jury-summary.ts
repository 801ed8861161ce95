import type { JuryDecisions, MetricUsage } from '../metric/types.js'
import { formatCost, plural } from './summary.js'

/** What a run's jury lines read of each evaluation: its metric and usage (a result's, or a record's). */
interface JuryEvaluation {
  readonly name: string
  readonly usage: Pick<MetricUsage, 'jurors' | 'juryDecisions'>
}

/** A jury's figures over one metric's evaluations: its decisions, and each juror's calls and cost. */
interface JuryFigures {
  decisions: JuryDecisions
  readonly jurors: Map<string, { calls: number; cached: number; costUsd: number | undefined }>
}

/**
 * One line per metric a jury judged, in the order the metrics first appear: how often its jurors agreed and what
 * each juror's calls cost, e.g. `jury on Polite: agreement 0.67 (2 of 3 decisions unanimous) · gpt-a 3 calls
 * $0.0004 · gpt-b 3 calls (1 cached) $0.0001`. Empty when no jury judged, so a run without one prints as before.
 */
export function renderJuryLines(evaluations: readonly JuryEvaluation[]): string[] {
  const byMetric = new Map<string, JuryFigures>()
  for (const { name, usage } of evaluations) {
    if (usage.jurors === undefined) continue
    let figures = byMetric.get(name)
    if (figures === undefined) {
      figures = { decisions: { decided: 0, unanimous: 0 }, jurors: new Map() }
      byMetric.set(name, figures)
    }
    const decisions = usage.juryDecisions ?? { decided: 0, unanimous: 0 }
    figures.decisions = {
      decided: figures.decisions.decided + decisions.decided,
      unanimous: figures.decisions.unanimous + decisions.unanimous,
    }
    for (const [juror, own] of Object.entries(usage.jurors)) {
      const sum = figures.jurors.get(juror) ?? { calls: 0, cached: 0, costUsd: 0 }
      figures.jurors.set(juror, {
        calls: sum.calls + own.judgeCalls,
        cached: sum.cached + own.cachedCalls,
        // A record's unknown cost is null, a result's undefined: either leaves the juror's cost unknown.
        costUsd: sum.costUsd === undefined || own.costUsd == null ? undefined : sum.costUsd + own.costUsd,
      })
    }
  }
  return [...byMetric].map(([name, { decisions, jurors }]) => {
    const agreement =
      decisions.decided === 0
        ? 'no decisions'
        : `agreement ${(decisions.unanimous / decisions.decided).toFixed(2)} ` +
          `(${decisions.unanimous} of ${plural(decisions.decided, 'decision')} unanimous)`
    const calls = [...jurors].map(
      ([juror, { calls, cached, costUsd }]) =>
        `${juror} ${plural(calls, 'call')}${cached > 0 ? ` (${cached} cached)` : ''} ${formatCost(costUsd)}`,
    )
    return `jury on ${name}: ${agreement} · ${calls.join(' · ')}`
  })
}
