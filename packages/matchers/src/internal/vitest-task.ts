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
 * top-level `judgetree: <metric>` key (the HTML report and UI print string meta as-is), and, for a failed
 * assertion, an `error` annotation, which the default, JUnit, GitHub Actions and HTML reporters show.
 */
export async function attachRecord(test: TestTask, record: JudgetreeRecord, options: ProvidedOptions): Promise<void> {
  const meta = test.meta as Record<string, unknown>
  const records = Array.isArray(meta[META_KEY]) ? (meta[META_KEY] as JudgetreeRecord[]) : []
  meta[META_KEY] = [...records, record]
  meta[uniqueKey(meta, `judgetree: ${record.name}`)] = record.text
  // A test that already finished (its assertion was not awaited) can no longer be annotated.
  if (test.result?.state !== 'run' || typeof test.context?.annotate !== 'function') return
  if (!record.assertionPassed) await test.context.annotate(record.text, 'error')
  else if (options.annotatePassing) await test.context.annotate(record.text, 'notice')
}

function uniqueKey(meta: Record<string, unknown>, key: string): string {
  if (!(key in meta)) return key
  let index = 2
  while (`${key} (${index})` in meta) index += 1
  return `${key} (${index})`
}
