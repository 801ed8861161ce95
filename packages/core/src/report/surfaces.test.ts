// A new surface is one object in one file and one line in SURFACES: evaluate() (and the runners' reporters, which
// iterate the same map) put its text where its `to` says, with no other change.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { evaluate } from '../evaluate/evaluate.js'
import type { SingleTurnMetric } from '../metric/types.js'
import { SURFACES, type Surface } from './index.js'

const scratch = mkdtempSync(join(tmpdir(), 'judgetree-surfaces-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const exact: SingleTurnMetric = {
  name: 'Exact',
  kind: 'single-turn',
  threshold: 0.5,
  measure: async (testCase) => {
    const score = testCase.actualOutput === 'hello' ? 1 : 0
    return {
      name: 'Exact',
      score,
      threshold: 0.5,
      success: score >= 0.5,
      reason: undefined,
      strictMode: false,
      error: undefined,
      trace: { metric: 'Exact', nodes: [], roots: [], notes: [] },
      verboseLogs: '',
      usage: { judgeCalls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
      durationMs: 0,
      judgeModel: 'none',
    }
  },
}

// The whole of a new surface (what `surfaces/tally.ts` would hold), 6 lines:
const tally: Surface = {
  what: 'tally',
  to: '.tally',
  render: (run) =>
    run.kind === 'evaluation' ? `${run.summary.passed}/${run.summary.evaluations} passed\n` : undefined,
}
const banner: Surface = { what: 'banner', to: 'print', render: () => 'judgetree: a banner from a new surface' }

const added = SURFACES as Record<string, Surface>
afterEach(() => {
  delete added.tally
  delete added.banner
})

describe('SURFACES', () => {
  it('has the four surfaces of every run', () => {
    expect(Object.keys(SURFACES)).toEqual(['terminal', 'json', 'markdown', 'html'])
  })

  it('a surface added to the map is written beside the report and printed by evaluate(), nothing else changed', async () => {
    added.tally = tally
    added.banner = banner
    const outputFile = join(scratch, 'run.json')
    const printed: string[] = []
    await evaluate(
      [
        { input: 'hi', actualOutput: 'hello' },
        { input: 'hi', actualOutput: 'bye' },
      ],
      [exact],
      { outputFile, progress: false, stdout: { write: (text) => void printed.push(text) } },
    )
    expect(readFileSync(join(scratch, 'run.tally'), 'utf8')).toBe('1/2 passed\n')
    const output = printed.join('')
    expect(output).toContain('judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored')
    expect(output).toContain(
      `judgetree: report in ${outputFile} and ${join(scratch, 'run.html')} and ${join(scratch, 'run.tally')}`,
    )
    expect(output.trimEnd().endsWith('judgetree: a banner from a new surface')).toBe(true)
  })
})
