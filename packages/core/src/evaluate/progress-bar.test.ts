import { describe, expect, it } from 'vitest'
import { type EvaluationProgress, ProgressBar, renderProgressLine } from './progress-bar.js'

const progress = (done: number, total = 120): EvaluationProgress => ({
  done,
  total,
  passed: Math.max(done - 5, 0),
  failed: 3,
  errored: 2,
  judgeCalls: 1_234,
  cachedCalls: 12,
  elapsedMs: 72_500,
})

describe('progress bar', () => {
  it('renders the share done, the verdicts, the judge calls and the elapsed time', () => {
    expect(renderProgressLine(progress(45))).toBe(
      '[█████████░░░░░░░░░░░░░░░] 45/120 · 40 passed, 3 failed, 2 errored · 1,234 judge calls (12 cached) · 1:12',
    )
    expect(renderProgressLine({ ...progress(0, 0) })).toMatch(/^\[█{24}\] 0\/0 /)
  })

  it('redraws in place at most every interval, always draws the last step, and clears the line at the end', () => {
    const writes: string[] = []
    const bar = new ProgressBar({ write: (text) => writes.push(text) }, 60_000)
    bar.update(progress(1))
    bar.update(progress(2))
    bar.update(progress(120))
    bar.finish()
    expect(writes).toHaveLength(3)
    expect(writes[0]?.startsWith('\r\x1b[2K[')).toBe(true)
    expect(writes[0]).toContain('░] 1/120 ·')
    expect(writes[1]).toContain(' 120/120 ')
    expect(writes[2]).toBe('\r\x1b[2K')
  })
})
