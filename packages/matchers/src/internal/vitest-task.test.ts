import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { unmeasuredRecord } from './record.js'
import type { ProvidedOptions } from './vitest-options.js'
import { type AnnotationAttachment, attachRecord, META_KEY, storeRecord, type TestTask } from './vitest-task.js'

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

describe('attachRecord: the picture', () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>false → 3</text></svg>'

  /** Annotates a failed record whose second line is `reason`; `copy` stands for Vitest copying a `path` attachment. */
  async function attach(reason: string, copy: (path: string) => void = () => {}) {
    const notes: { message: string; attachment: AnnotationAttachment | undefined; content?: string }[] = []
    const task: TestTask = {
      id: '1223128da3_0_1',
      name: 'judges',
      meta: {},
      result: { state: 'run' },
      context: {
        annotate: async (message: string, _type?: string, attachment?: AnnotationAttachment) => {
          const content = attachment && 'path' in attachment ? readFileSync(attachment.path, 'utf8') : undefined
          if (attachment && 'path' in attachment) copy(attachment.path)
          notes.push({ message, attachment, ...(content === undefined ? {} : { content }) })
        },
      },
    } as TestTask
    const failed = {
      ...record(1, 'aaa'),
      error: null,
      text: `FAIL Polite: score 0.3 (threshold 0.5) · judge j\nreason: ${reason}`,
    }
    const options: ProvidedOptions = { annotatePassing: false, pictures: true, pictureFiles: true }
    await attachRecord(task, failed, options, async () => svg)
    return notes
  }

  test('attached as a file for Vitest to copy beside the report, where its link opens it; the file is then removed', async () => {
    const [note, ...others] = await attach('“Polite?” → false.')
    expect(others).toEqual([])
    expect(note?.attachment).toMatchObject({ contentType: 'image/svg+xml', path: expect.stringMatching(/\.svg$/) })
    expect(note?.content).toBe(svg)
    const path = (note?.attachment as { path: string } | undefined)?.path as string
    expect(existsSync(path)).toBe(false)
    // The same file in the next run: Vitest names its copy by the path, and never empties its attachments folder.
    const [again] = await attach('“Polite?” → true.')
    expect((again?.attachment as { path: string } | undefined)?.path).toBe(path)
  })

  test('inline when Vitest could not name the copy after a long message, or could not copy it', async () => {
    const [long] = await attach(`${'a long reason '.repeat(20)}.`)
    expect(long?.attachment).toEqual({ contentType: 'image/svg+xml', body: Buffer.from(svg).toString('base64') })
    const refused: string[] = []
    const notes = await attach('short.', (path) => {
      refused.push(path)
      throw new Error('ENAMETOOLONG')
    })
    expect(refused).toHaveLength(1)
    expect(notes.map((note) => note.attachment)).toEqual([
      { contentType: 'image/svg+xml', body: Buffer.from(svg).toString('base64') },
    ])
  })
})
