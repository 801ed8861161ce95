import { describe, expect, test } from 'vitest'
import {
  type BaselineEntry,
  type BaselineFile,
  type CollectedFile,
  compareWithBaseline,
  type RunScope,
  refreshBaseline,
  renderBaselineChange,
  renderBaselineCounts,
} from './baseline.js'
import { parseBaseline } from './baseline-file.js'

function entry(test: string, score: number | null, overrides: Partial<BaselineEntry> = {}): BaselineEntry {
  return {
    project: '',
    file: 'tests/a.test.ts',
    test,
    ordinal: 1,
    assertion: 1,
    metric: 'Polite',
    score,
    threshold: 0.5,
    passed: score !== null && score >= 0.5,
    negated: false,
    ...overrides,
  }
}

const file = (...entries: BaselineEntry[]): BaselineFile => ({ version: 1, entries })

/** A run that collected these files, whose tests all passed unless named in `notCompleted`; no other file exists. */
function scope(files: Record<string, string[]>, notCompleted: string[] = [], existing: string[] = []): RunScope {
  const collected: CollectedFile[] = Object.entries(files).map(([name, tests]) => ({
    project: '',
    file: name,
    tests: tests.map((test) => ({ name: test, ordinal: 1, completed: !notCompleted.includes(test) })),
  }))
  return { files: collected, fileExists: (name) => name in files || existing.includes(name) }
}

/** Every test of the comparison below, declared in tests/a.test.ts, and all passed. */
const fullRun = scope({
  'tests/a.test.ts': [
    'drops',
    'drops a little',
    'rises',
    'breaks',
    'mends',
    'errors now',
    '.not rises',
    'same',
    'second assertion',
    'brand new',
  ],
})

describe('compareWithBaseline', () => {
  const before = file(
    entry('drops', 0.9),
    entry('drops a little', 0.9),
    entry('rises', 0.6),
    entry('breaks', 0.8),
    entry('mends', 0.2),
    entry('errors now', 0.7),
    entry('.not rises', 0.1, { negated: true, passed: true }),
    entry('same', 0.7),
    entry('gone', 0.8),
    entry('second assertion', 0.8, { assertion: 2 }),
  )
  const after = file(
    entry('drops', 0.6),
    entry('drops a little', 0.87),
    entry('rises', 0.8),
    entry('breaks', 0.3),
    entry('mends', 0.9),
    entry('errors now', null),
    entry('.not rises', 0.4, { negated: true, passed: true }),
    entry('same', 0.7),
    entry('second assertion', 0.8, { assertion: 1 }),
    entry('brand new', 0.7),
  )

  test('each evaluation gets one status; drops within the tolerance are unchanged', () => {
    const comparison = compareWithBaseline(after, before, { file: 'b.json', tolerance: 0.05, scope: fullRun })
    expect(comparison.changes.map((change) => [change.test, change.assertion, change.status])).toEqual([
      ['drops', 1, 'regressed'],
      ['rises', 1, 'improved'],
      ['breaks', 1, 'new-failure'],
      ['mends', 1, 'new-pass'],
      ['errors now', 1, 'new-failure'],
      // Under .not a rising score is the change for the worse.
      ['.not rises', 1, 'regressed'],
      // Assertion 1 of this test is new; its assertion 2 is missing: the key includes the assertion index.
      ['second assertion', 1, 'new'],
      ['brand new', 1, 'new'],
      ['gone', 1, 'missing'],
      ['second assertion', 2, 'missing'],
    ])
    expect(comparison.counts).toEqual({
      regressed: 2,
      improved: 1,
      'new-failure': 2,
      'new-pass': 1,
      unchanged: 2,
      new: 2,
      missing: 2,
      'not-run': 0,
    })
    expect(comparison.changes[0]?.scoreChange).toBeCloseTo(-0.3, 12)
    expect(comparison.changes.map(renderBaselineChange).slice(0, 5)).toEqual([
      '▼ tests/a.test.ts > drops #1 · Polite: 0.9 → 0.6 (−0.3)',
      '▲ tests/a.test.ts > rises #1 · Polite: 0.6 → 0.8 (+0.2)',
      '✗ tests/a.test.ts > breaks #1 · Polite: 0.8 → 0.3 (−0.5), now fails',
      '✓ tests/a.test.ts > mends #1 · Polite: 0.2 → 0.9 (+0.7), now passes',
      '✗ tests/a.test.ts > errors now #1 · Polite: 0.7 → error, now fails',
    ])
  })

  test('without a tolerance any drop regresses; tests that did not run are counted once, not listed as missing', () => {
    // A shard, a file list or a watch re-run that left tests/a.test.ts out: it exists, so its entries did not run.
    const comparison = compareWithBaseline(file(entry('elsewhere', 0.5, { file: 'tests/b.test.ts' })), before, {
      file: 'b.json',
      tolerance: 0,
      scope: scope({ 'tests/b.test.ts': ['elsewhere'] }, [], ['tests/a.test.ts']),
    })
    expect(comparison.counts).toMatchObject({ new: 1, missing: 0, 'not-run': 10 })
    expect(comparison.changes.map((change) => change.status)).toEqual(['new'])
    expect(renderBaselineCounts(comparison.counts)).toBe(
      '0 regressed, 0 new failures, 0 new passes, 0 improved, 1 new, 0 missing, 0 unchanged, 10 not run',
    )
    expect(compareWithBaseline(after, before, { file: 'b.json', tolerance: 0, scope: fullRun }).counts).toMatchObject({
      regressed: 3,
    })
  })

  test('a test that -t skipped, or that failed before its assertion, did not run; a deleted file is missing', () => {
    const previous = file(
      entry('skipped', 0.8),
      entry('failed early', 0.8),
      entry('passed without it', 0.8),
      entry('deleted', 0.8, { file: 'tests/gone.test.ts' }),
    )
    const run = scope({ 'tests/a.test.ts': ['skipped', 'failed early', 'passed without it'] }, [
      'skipped',
      'failed early',
    ])
    const comparison = compareWithBaseline(file(), previous, { file: 'b.json', tolerance: 0, scope: run })
    expect(comparison.counts).toMatchObject({ missing: 2, 'not-run': 2 })
    expect(comparison.changes.map((change) => change.test)).toEqual(['passed without it', 'deleted'])
  })

  test('a project is part of the key', () => {
    const comparison = compareWithBaseline(file(entry('same', 0.7, { project: 'web' })), file(entry('same', 0.7)), {
      file: 'b.json',
      tolerance: 0,
      scope: scope({ 'tests/a.test.ts': ['same'] }),
    })
    expect(comparison.changes.map((change) => [change.project, change.status])).toEqual([
      ['web', 'new'],
      ['', 'missing'],
    ])
  })

  test('tests sharing a name are told apart by their ordinal: a swap of their scores is one failure and one pass', () => {
    const dup = (score: number, ordinal: number) => entry('dup', score, { ordinal })
    const run = scope({ 'tests/a.test.ts': ['dup'] })
    const swapped = compareWithBaseline(file(dup(0.4, 1), dup(0.9, 2)), file(dup(0.9, 1), dup(0.4, 2)), {
      file: 'b.json',
      tolerance: 0.05,
      scope: run,
    })
    expect(swapped.counts).toMatchObject({ regressed: 0, 'new-failure': 1, 'new-pass': 1, new: 0, missing: 0 })
    expect(swapped.changes.map(renderBaselineChange)).toEqual([
      '✗ tests/a.test.ts > dup #1 · Polite: 0.9 → 0.4 (−0.5), now fails',
      '✓ tests/a.test.ts > dup [2nd] #1 · Polite: 0.4 → 0.9 (+0.5), now passes',
    ])
    const same = compareWithBaseline(file(dup(0.9, 1), dup(0.4, 2)), file(dup(0.9, 1), dup(0.4, 2)), {
      file: 'b.json',
      tolerance: 0,
      scope: run,
    })
    expect(same.counts).toMatchObject({ unchanged: 2, new: 0, improved: 0 })
  })
})

describe('compareWithBaseline: the chance of passing', () => {
  const run = scope({ 'tests/a.test.ts': ['unsure now', 'surer now', 'still sure', 'no chance before'] })
  const before = file(
    entry('unsure now', 1, { passProbability: 0.93 }),
    entry('surer now', 1, { passProbability: 0.6 }),
    entry('still sure', 1, { passProbability: 0.93 }),
    entry('no chance before', 1),
  )
  const after = file(
    entry('unsure now', 1, { passProbability: 0.72 }),
    entry('surer now', 1, { passProbability: 0.8 }),
    entry('still sure', 1, { passProbability: 0.92 }),
    entry('no chance before', 1, { passProbability: 0.5 }),
  )

  test('a fall in P(pass) beyond the tolerance regresses though the score held; a rise improves', () => {
    const comparison = compareWithBaseline(after, before, { file: 'b.json', tolerance: 0.05, scope: run })
    expect(comparison.changes.map((change) => [change.test, change.status])).toEqual([
      ['unsure now', 'regressed'],
      ['surer now', 'improved'],
    ])
    expect(comparison.changes.map(renderBaselineChange)).toEqual([
      '▼ tests/a.test.ts > unsure now #1 · Polite: 1 → 1 (±0) · P(pass) 0.93 → 0.72',
      '▲ tests/a.test.ts > surer now #1 · Polite: 1 → 1 (±0) · P(pass) 0.60 → 0.80',
    ])
    expect(comparison.counts).toMatchObject({ regressed: 1, improved: 1, unchanged: 2 })
  })

  test('without a tolerance any fall regresses', () => {
    const comparison = compareWithBaseline(after, before, { file: 'b.json', tolerance: 0, scope: run })
    expect(comparison.counts).toMatchObject({ regressed: 2, improved: 1, unchanged: 1 })
  })

  test('the file keeps it, and refuses one outside 0..1', () => {
    const read = parseBaseline(JSON.stringify(file(entry('x', 1, { passProbability: 0.72 }))))
    expect(read.entries[0]?.passProbability).toBe(0.72)
    expect(() => parseBaseline(JSON.stringify(file(entry('x', 1, { passProbability: 72 }))))).toThrow(
      'it has 1 bad entry: entries[0]: passProbability is 72, not a number from 0 to 1',
    )
  })
})

describe('refreshBaseline', () => {
  test('keeps the entries of tests that did not run, drops those of tests that no longer exist', () => {
    const previous = file(
      entry('old a', 0.5),
      entry('skipped a', 0.6),
      entry('old b', 0.5, { file: 'tests/b.test.ts' }),
      entry('deleted', 0.5, { file: 'tests/gone.test.ts' }),
    )
    const run = scope({ 'tests/a.test.ts': ['new a', 'skipped a'] }, ['skipped a'], ['tests/b.test.ts'])
    const refreshed = refreshBaseline(file(entry('new a', 0.9)), previous, run)
    // In the old file's order; a new entry follows the others of its file.
    expect(refreshed.content.entries.map((kept) => kept.test)).toEqual(['skipped a', 'new a', 'old b'])
    expect(refreshed).toMatchObject({ fromRun: 1, kept: 2, dropped: 2 })
  })

  test("replaces a measured entry, and keeps a same-named test's entry when only the other ran", () => {
    const previous = file(entry('dup', 0.9, { ordinal: 1 }), entry('dup', 0.4, { ordinal: 2 }))
    const run: RunScope = {
      files: [
        {
          project: '',
          file: 'tests/a.test.ts',
          tests: [
            { name: 'dup', ordinal: 1, completed: true },
            { name: 'dup', ordinal: 2, completed: false },
          ],
        },
      ],
      fileExists: () => true,
    }
    const refreshed = refreshBaseline(file(entry('dup', 0.5, { ordinal: 1 })), previous, run)
    expect(refreshed.content.entries.map((kept) => [kept.ordinal, kept.score])).toEqual([
      [1, 0.5],
      [2, 0.4],
    ])
  })
})

describe('parseBaseline', () => {
  test('says what is wrong with a file that is not a baseline', () => {
    expect(() => parseBaseline('{"version": 1, "entries": [')).toThrow(/^it is not valid JSON \(/)
    expect(() => parseBaseline('{"tests": []}')).toThrow(
      'it is not a judgetree baseline (expected { "version": 1, "entries": [...] })',
    )
    expect(parseBaseline(JSON.stringify(file(entry('x', 0.5)))).entries).toHaveLength(1)
  })

  test('names every bad value of every entry, so a hostile file is refused, not compared', () => {
    const bad = [
      { ...entry('huge', 0.5), score: 1e308, threshold: 99 },
      { ...entry('negative', 0.5), assertion: -1, ordinal: 0 },
      { ...entry('fraction', 0.5), assertion: 1.5, passed: 'yes' },
      { test: 3 },
      'text',
    ]
    expect(() => parseBaseline(JSON.stringify({ version: 1, entries: bad }))).toThrow(
      'it has 5 bad entries: ' +
        'entries[0]: score is 1e+308, not null or a number from 0 to 1; threshold is 99, not a number from 0 to 1; ' +
        'entries[1]: ordinal is 0, not a whole number from 1 up; assertion is -1, not a whole number from 1 up; ' +
        'entries[2]: assertion is 1.5, not a whole number from 1 up; passed is "yes", not true or false; ' +
        'entries[3]: project is missing, not a string; file is missing, not a file path; test is 3, not a string; ' +
        'assertion is missing, not a whole number from 1 up; metric is missing, not a string; score is missing, not ' +
        'null or a number from 0 to 1; threshold is missing, not a number from 0 to 1; passed is missing, not true or ' +
        'false; negated is missing, not true or false; ' +
        'entries[4]: "text" is not an object',
    )
  })

  test('numbers same-named entries of a file written before ordinals, in the order it lists them', () => {
    const old = [entry('dup', 0.9), entry('dup', 0.4), entry('other', 0.5)].map(({ ordinal, ...rest }) => rest)
    const read = parseBaseline(JSON.stringify({ version: 1, entries: old }))
    expect(read.entries.map((kept) => [kept.test, kept.ordinal, kept.score])).toEqual([
      ['dup', 1, 0.9],
      ['dup', 2, 0.4],
      ['other', 1, 0.5],
    ])
  })
})
