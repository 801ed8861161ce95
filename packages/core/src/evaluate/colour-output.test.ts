// evaluate() and calibrate() colour what they print when their stream is a terminal, and nothing else: a pipe, a
// report file and NO_COLOR get the same words, plain.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BaseMetric, calibrate, evaluate, type LLMTestCase } from '../index.js'
import { scriptedJudge } from '../judge/scripted-judge.js'

const ESC = '\u001b'
const red = (text: string) => `${ESC}[31m${text}${ESC}[39m`
const green = (text: string) => `${ESC}[32m${text}${ESC}[39m`
const dim = (text: string) => `${ESC}[2m${text}${ESC}[22m`
const uncoloured = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')

const scratch = mkdtempSync(join(tmpdir(), 'judgetree-colour-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

// The outer run's colour settings are not this test's: each case says its own.
beforeEach(() => {
  vi.stubEnv('NO_COLOR', '')
  vi.stubEnv('FORCE_COLOR', undefined)
  vi.stubEnv('TERM', 'xterm')
})
afterEach(() => vi.unstubAllEnvs())

/** Scores a case with the number written as its output. */
class WrittenScore extends BaseMetric<LLMTestCase> {
  readonly kind = 'single-turn'
  constructor() {
    super({ threshold: 0.5, model: scriptedJudge({ rules: [] }) }, { name: 'Written Score' })
  }
  protected score(testCase: LLMTestCase) {
    return { score: Number(testCase.actualOutput), reason: `it says ${testCase.actualOutput}` }
  }
}

function stream(isTTY: boolean) {
  const written: string[] = []
  return { isTTY, write: (text: string) => void written.push(text), text: () => written.join('') }
}

const testCases = [
  { input: 'a', actualOutput: '0.9', name: 'high' },
  { input: 'b', actualOutput: '0.2', name: '\u001b[2Jlow' },
]
const singleAndConversation = [...testCases, { turns: [{ role: 'user' as const, content: 'hi' }] }]

describe('evaluate()', () => {
  it('in a terminal: failures red, passes green, skipped pairs dim; the report file plain', async () => {
    const out = stream(true)
    await evaluate(singleAndConversation, [new WrittenScore()], { stdout: out, progress: false })
    const text = out.text()
    expect(text).toContain(`${red('✗')} case 1 "␛[2Jlow" · Written Score: score 0.2 < threshold 0.5`)
    expect(text).toContain(dim('1 pairs skipped: a metric only measures test cases of its kind.'))
    expect(text).toContain(
      `judgetree: 2 evaluations, ${green('1 passed')}, ${red('1 failed')}, 0 errored, ${dim('1 skipped')} · `,
    )
    // The table's counts: 1 passed green, 1 failed red, 0 errored plain; the columns line up as without colour.
    const row = text.split('\n').find((line) => line.startsWith('Written Score'))
    expect(row).toContain(`${green('     1')}  ${red('     1')}        0`)
    const plain = stream(false)
    await evaluate(singleAndConversation, [new WrittenScore()], { stdout: plain, progress: false })
    expect(plain.text()).not.toContain(ESC)
    expect(uncoloured(text)).toBe(plain.text())
    // Files written while the terminal is coloured are not.
    const outputFile = join(scratch, 'run.json')
    await evaluate(singleAndConversation, [new WrittenScore()], { stdout: stream(true), progress: false, outputFile })
    for (const file of [outputFile, join(scratch, 'run.html')]) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(new RegExp(`${ESC}\\[`))
    }
  })

  it('is plain in a terminal under NO_COLOR, and FORCE_COLOR colours a pipe', async () => {
    vi.stubEnv('NO_COLOR', '1')
    const terminal = stream(true)
    await evaluate(testCases, [new WrittenScore()], { stdout: terminal, progress: false })
    expect(terminal.text()).toContain('judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored · ')
    expect(terminal.text()).not.toContain(ESC)
    vi.stubEnv('NO_COLOR', '')
    vi.stubEnv('FORCE_COLOR', '1')
    const pipe = stream(false)
    await evaluate(testCases, [new WrittenScore()], { stdout: pipe, progress: false })
    expect(pipe.text()).toContain(`${green('1 passed')}, ${red('1 failed')}`)
  })
})

describe('calibrate()', () => {
  it('in a terminal: the confusion table agrees green and disagrees red; the disagreements marked red', async () => {
    const labelled = [0.9, 0.8, 0.3, 0.2].map((score, index) => ({
      testCase: { input: `case ${index}`, actualOutput: String(score) },
      label: { pass: index !== 1 },
      name: `c${index}`,
    }))
    const out = stream(true)
    await calibrate(new WrittenScore(), labelled, { stdout: out, progress: false })
    const lines = out.text().split('\n')
    // judge: pass pass fail fail; human: pass fail pass pass → TP 1, FP 1, FN 2, TN 0.
    expect(lines).toContain(`  judge pass  ${green('         1')}  ${red('         1')}`)
    expect(lines).toContain(`  judge fail  ${red('         2')}           0`)
    expect(lines.filter((line) => line.startsWith(`  ${red('✗')} case `))).toHaveLength(3)
    const plain = stream(false)
    await calibrate(new WrittenScore(), labelled, { stdout: plain, progress: false })
    expect(plain.text()).not.toContain(ESC)
    expect(uncoloured(out.text())).toBe(plain.text())
  })
})
