import { describe, expect, test } from 'vitest'
import {
  type BaselineEntry,
  type BaselineFile,
  compareWithBaseline,
  parseBaseline,
  refreshBaseline,
  renderBaselineChange,
} from './baseline.js'

function entry(test: string, score: number | null, overrides: Partial<BaselineEntry> = {}): BaselineEntry {
  return {
    project: '',
    file: 'tests/a.test.ts',
    test,
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
    const comparison = compareWithBaseline(after, before, { file: 'b.json', tolerance: 0.05, partial: false })
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

  test('without a tolerance any drop regresses; a shard lists nothing as missing', () => {
    const comparison = compareWithBaseline(after, before, { file: 'b.json', tolerance: 0, partial: true })
    expect(comparison.counts).toMatchObject({ regressed: 3, missing: 0 })
  })

  test('a project is part of the key', () => {
    const comparison = compareWithBaseline(file(entry('same', 0.7, { project: 'web' })), file(entry('same', 0.7)), {
      file: 'b.json',
      tolerance: 0,
      partial: false,
    })
    expect(comparison.changes.map((change) => [change.project, change.status])).toEqual([
      ['web', 'new'],
      ['', 'missing'],
    ])
  })
})

describe('refreshBaseline', () => {
  test("keeps the old entries of files this run did not evaluate, and replaces the others'", () => {
    const previous = file(entry('old a', 0.5), entry('old b', 0.5, { file: 'tests/b.test.ts' }))
    const refreshed = refreshBaseline(file(entry('new a', 0.9)), previous)
    expect(refreshed.entries.map((kept) => kept.test)).toEqual(['new a', 'old b'])
  })
})

describe('parseBaseline', () => {
  test('says what is wrong with a file that is not a baseline', () => {
    expect(() => parseBaseline('{"version": 1, "entries": [')).toThrow(/^it is not valid JSON \(/)
    expect(() => parseBaseline('{"tests": []}')).toThrow(
      'it is not a judgetree baseline (expected { "version": 1, "entries": [...] })',
    )
    expect(() => parseBaseline('{"version": 1, "entries": [{"test": 3}]}')).toThrow(
      'entries[0] is not a baseline entry',
    )
    expect(parseBaseline(JSON.stringify(file(entry('x', 0.5)))).entries).toHaveLength(1)
  })
})
