import { toRecord } from '../record.js'
import type { Surface } from '../surface.js'

/**
 * The run as JSON, for programs: the runner's report, or evaluate()'s summary and every result as the same record
 * the runners write (a result's error as `{ name, code, message }`, an unknown cost as `null`).
 */
export const json: Surface = {
  what: 'report',
  to: 'report-file',
  render: (run) => {
    if (run.kind === 'runner') return `${JSON.stringify(run.report, null, 2)}\n`
    if (run.kind !== 'evaluation') return undefined
    const results = run.results.map(({ index, testCase, metric, result }) => ({
      index,
      testCase,
      metric: metric.name,
      result: toRecord(result),
    }))
    return `${JSON.stringify({ summary: run.summary, results }, unknownCostAsNull, 2)}\n`
  },
}

/** The summary's unknown cost as `null` (JSON.stringify would drop the key). */
function unknownCostAsNull(key: string, value: unknown): unknown {
  return value === undefined && key === 'costUsd' ? null : value
}
