import { afterEach, describe, expect, test, vi } from 'vitest'
import { unmeasuredRecord } from './record.js'
import type { ProvidedOptions } from './vitest-options.js'
import { attachRecord, META_KEY, storeRecord, type TestTask } from './vitest-task.js'

function record(assertion: number, digest: string) {
  const base = unmeasuredRecord({
    metric: { name: 'Polite', threshold: 0.5 },
    assertion,
    negated: false,
    summary: () => 'PASS Polite',
    error: { name: 'Error', code: 'X', message: 'x' },
  })
  return { ...base, testCase: { name: null, digest } }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('storeRecord', () => {
  test("stores one record per assertion quietly, and warns once when one is replaced by another test case's", () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const task: TestTask = { name: 'greets', meta: {}, concurrent: true, context: { _local: true } }
    storeRecord(task, record(2, 'bbb'))
    storeRecord(task, record(1, 'aaa'))
    // The same assertion of the same test case again (a late result): replaced quietly.
    storeRecord(task, record(1, 'aaa'))
    const stored = (task.meta as Record<string, { assertion: number }[]>)[META_KEY]
    expect(stored?.map((kept) => kept.assertion)).toEqual([1, 2])
    expect(warn).not.toHaveBeenCalled()

    storeRecord(task, record(1, 'ccc'))
    storeRecord(task, record(1, 'ddd'))
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /^judgetree: warning: the record of toPassMetric\(\) call #1 of test "greets" was replaced by one for another test case \(aaa → ccc\)\. Under test\.concurrent the global `expect` is bound to whichever test started last, .* Use the test context's expect: /,
    )
  })
})

describe('attachRecord', () => {
  /** The annotation attachRecord makes for a judge error with this message, if any; the record goes to `meta`. */
  async function brief(
    message: string,
    options: Partial<ProvidedOptions> = { annotate: true },
    meta: object = {},
  ): Promise<string | undefined> {
    const notes: string[] = []
    const task = {
      name: 'judges',
      meta,
      result: { state: 'run' },
      context: { annotate: async (note: string) => notes.push(note) },
    } as TestTask
    const failed = unmeasuredRecord({
      metric: { name: 'Turn Contextual Relevancy', threshold: 0.5 },
      assertion: 1,
      negated: false,
      summary: () => 'ERROR Turn Contextual Relevancy: no score (threshold 0.5)',
      error: { name: 'JudgeResponseError', code: 'JUDGE_RESPONSE_INVALID', message },
    })
    await attachRecord(task, failed, { annotatePassing: false, ...options } as ProvidedOptions)
    return notes[0]
  }

  test('a run whose reporters show annotations only in the terminal gets none; the record is stored all the same', async () => {
    const meta = {}
    expect(await brief('The judge timed out.', { annotate: false }, meta)).toBeUndefined()
    expect(Object.keys(meta)).toEqual(['judgetree: Turn Contextual Relevancy', META_KEY])
    // The setup file without the plugin knows no reporters: it annotates.
    expect(await brief('The judge timed out.', {})).toContain('error: The judge timed out.')
  })

  test('the echo of an error never ends mid-sentence: its first full sentence, or its code and first line', async () => {
    const cut = 'Judging turn 1 failed. The answer does not match the schema:\n  verdicts: expected 2 items'
    expect(await brief(cut)).toBe(
      'ERROR Turn Contextual Relevancy: no score (threshold 0.5)\nerror: Judging turn 1 failed.',
    )
    expect(await brief('The answer does not match the schema:\n  verdicts: expected 2 items')).toBe(
      'ERROR Turn Contextual Relevancy: no score (threshold 0.5)\nerror JUDGE_RESPONSE_INVALID: The answer does not match the schema:',
    )
    // A whole first line is kept as it is.
    expect(await brief('The judge timed out after 30 s. Raise timeoutMs.')).toBe(
      'ERROR Turn Contextual Relevancy: no score (threshold 0.5)\nerror: The judge timed out after 30 s. Raise timeoutMs.',
    )
  })
})
