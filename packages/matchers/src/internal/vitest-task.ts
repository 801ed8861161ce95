import type { JudgetreeRecord } from './record.js'
import type { ProvidedOptions } from './vitest-options.js'

/** The parts of a Vitest test task the matcher reads and writes; the same in Vitest 3.2, 4 and 5. */
export interface TestTask {
  readonly name: string
  readonly concurrent?: boolean | undefined
  readonly result?: { readonly state?: string } | undefined
  readonly meta: object
  readonly context?:
    | {
        annotate?: (message: string, type?: string) => Promise<unknown>
        /** Vitest 3.2+: aborts when the test times out, on `--bail` and on Ctrl+C. */
        readonly signal?: AbortSignal | undefined
      }
    | undefined
}

/** Where the structured records live in `task.meta`; reporters read `testCase.meta().judgetree`. */
export const META_KEY = 'judgetree'

/**
 * Puts an evaluation on its test: the structured record in `meta.judgetree`, the readable text under a
 * top-level `judgetree: <metric>` key (with ` (n)` after it for the test's n-th `toPassMetric` call, n > 1) (the HTML report and UI print string meta as-is), and, for a failed
 * assertion, an `error` annotation (summary line and reason), which the default, JUnit, GitHub Actions and HTML
 * reporters show.
 */
export async function attachRecord(test: TestTask, record: JudgetreeRecord, options: ProvidedOptions): Promise<void> {
  const meta = test.meta as Record<string, unknown>
  const records = Array.isArray(meta[META_KEY]) ? (meta[META_KEY] as JudgetreeRecord[]) : []
  // In the order the test called the matcher, whatever order the evaluations finished in.
  meta[META_KEY] = [...records, record].sort((a, b) => a.assertion - b.assertion)
  meta[textKey(record)] = record.text
  // A test that already finished (its assertion was not awaited) can no longer be annotated.
  if (test.result?.state !== 'run' || typeof test.context?.annotate !== 'function') return
  // The summary line and the reason (or error): the failure message already carries the tree, and every reporter
  // that shows annotations shows that message too; the full text stays in the meta and the JSON report.
  const brief = record.text.split('\n').slice(0, 2).join('\n')
  if (!record.assertionPassed) await test.context.annotate(brief, 'error')
  else if (options.annotatePassing) await test.context.annotate(brief, 'notice')
}

/** Named by the assertion's position in its test, not by finishing order: `judgetree: Tone`, `judgetree: Tone (2)`. */
function textKey(record: JudgetreeRecord): string {
  const key = `judgetree: ${record.name}`
  return record.assertion === 1 ? key : `${key} (${record.assertion})`
}
