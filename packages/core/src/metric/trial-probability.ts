// The pass probability of a measurement run as trials (DESIGN.md §9): the judge's own when every trial had one (their
// mean), otherwise the empirical one, the pass rate with its 95% Wilson interval.
import type { MetricTrace } from '../trace/types.js'
import { lowestPivot, wilsonInterval } from './pass-probability.js'
import type { MetricResult, PassPivot, PassProbability } from './types.js'

/**
 * The trials' pass probability. `p` is the pass rate itself (the estimate the trials give), inside its Wilson
 * interval `low`–`high`; the expected score is the trials' mean score. With `until` (the line `trials: { until:
 * 'decided' }` decided against), `stopped` says whether the interval cleared it.
 */
export function trialsPassProbability(
  results: readonly MetricResult[],
  passed: number,
  trace: MetricTrace,
  until: number | undefined,
): PassProbability {
  const n = results.length
  const interval = wilsonInterval(passed, n)
  const stopped =
    until === undefined ? {} : { stopped: interval.low > until || interval.high < until ? 'decided' : 'undecided' }
  const own = results.map((result) => result.passProbability)
  if (own.every((chance) => chance?.source === 'judge')) {
    const mean = (pick: (chance: PassProbability) => number) =>
      own.reduce((sum, chance) => sum + pick(chance as PassProbability), 0) / n
    return {
      p: mean((chance) => chance.p),
      low: mean((chance) => chance.low),
      high: mean((chance) => chance.high),
      expectedScore: mean((chance) => chance.expectedScore),
      source: 'judge',
      pivot: lowestPivot(own.map((chance) => chance?.pivot)),
      ...(stopped as Pick<PassProbability, 'stopped'>),
    }
  }
  return {
    p: passed / n,
    low: interval.low,
    high: interval.high,
    expectedScore: results.reduce((sum, result) => sum + (result.error === undefined ? result.score : 0), 0) / n,
    source: 'trials',
    pivot: trialsPivot(trace),
    ...(stopped as Pick<PassProbability, 'stopped'>),
  }
}

/** In the trials' merged trace, the decision whose most frequent answer the fewest of its trials gave. */
function trialsPivot(trace: MetricTrace): PassPivot | undefined {
  return lowestPivot(
    trace.nodes.map((node) => {
      const top = node.trials?.answers[0]
      if (top === undefined || node.trials === undefined || node.trials.ran === 0) return undefined
      const verdict = node.role === 'judgement' && (top.answer === 'true' || top.answer === 'false')
      return {
        node: node.id,
        label: node.label ?? node.text,
        verdict: verdict ? top.answer === 'true' : top.answer,
        probability: top.count / node.trials.ran,
      }
    }),
  )
}
