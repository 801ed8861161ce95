// judgetree's closing lines are coloured when colour is asked for (FORCE_COLOR, since these runs have no terminal),
// and only there: NO_COLOR and the runner's --no-color keep them plain, and JUnit, the JSON report and the step
// summary are plain whatever the terminal gets. NO_COLOR is set but empty where colour is wanted: "unset" by the
// NO_COLOR convention for judgetree, while Vitest (which only asks whether it is there) keeps its own lines plain.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { playfulJudge } from './support/playful-judge.js'
import { runJest, runVitest, scratchDir } from './support/runner.js'

const scratch = scratchDir()
const ESC = '\u001b'
const red = (text: string) => `${ESC}[31m${text}${ESC}[39m`
const green = (text: string) => `${ESC}[32m${text}${ESC}[39m`

/** The text without its colours. */
const uncoloured = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), '')

/** The lines judgetree printed after the run: from its first `judgetree:` line to the runner's own summary. */
function closing(output: string): string[] {
  const lines = output.split('\n')
  const first = lines.findIndex((line) => uncoloured(line).startsWith('judgetree: '))
  const end = lines.findIndex((line, index) => index > first && uncoloured(line).startsWith('Test Suites:'))
  return first === -1 ? [] : lines.slice(first, end === -1 ? undefined : end)
}

let server: OpenAIServer

beforeAll(async () => {
  server = await startOpenAIServer(playfulJudge())
})
afterAll(async () => {
  await server?.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('vitest', () => {
  const judge = () => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-colour-0123456789' })

  test('FORCE_COLOR=1: failures red, passes green in the closing lines; JUnit and the step summary plain', async () => {
    const stepSummary = join(scratch, 'vitest-step-summary.md')
    const junit = join(scratch, 'junit.xml')
    const run = await runVitest(
      'vitest-html',
      ['run', '--reporter=default', '--reporter=junit', `--outputFile.junit=${junit}`],
      {
        ...judge(),
        FORCE_COLOR: '1',
        NO_COLOR: '',
        GITHUB_STEP_SUMMARY: stepSummary,
      },
    )
    expect(run.code, run.output).toBe(1)
    const lines = closing(run.stderr)
    expect(lines.slice(0, 2), run.stderr).toEqual([
      red('judgetree: 1 failed evaluation'),
      `  ${red('✗')} tests/chatbot.test.ts > fails a flat conversation · Playful Chatbot: score 0.3 < threshold 0.7 · “Playful?” → false`,
    ])
    expect(lines.find((line) => line.startsWith('judgetree: 2 evaluations'))).toContain(
      `judgetree: 2 evaluations, ${green('1 passed')}, ${red('1 failed')}, 0 errored · `,
    )
    // Vitest's own lines stay plain (NO_COLOR is there for it): the escapes are judgetree's alone.
    expect(run.stdout).not.toContain(ESC)
    for (const file of [junit, stepSummary]) {
      const text = readFileSync(file, 'utf8')
      expect(text, file).toContain('Playful Chatbot')
      expect(text, file).not.toContain(ESC)
    }
  }, 60_000)

  test('NO_COLOR=1 wins over FORCE_COLOR: no escape anywhere', async () => {
    const run = await runVitest('vitest-html', ['run'], { ...judge(), FORCE_COLOR: '1', NO_COLOR: '1' })
    expect(run.output).toContain('judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored')
    expect(closing(run.stderr).length).toBeGreaterThan(3)
    expect(run.output).not.toContain(ESC)
  }, 60_000)

  test("Vitest's --no-color keeps judgetree's lines plain too", async () => {
    const run = await runVitest('vitest-html', ['run', '--no-color'], { ...judge(), FORCE_COLOR: '1', NO_COLOR: '' })
    expect(run.output).toContain('judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored')
    expect(closing(run.stderr).join('\n')).not.toContain(ESC)
  }, 60_000)
})

describe('jest', () => {
  test('FORCE_COLOR=1: the closing lines coloured; the JSON report and the step summary plain', async () => {
    const report = join(scratch, 'jest-report.json')
    const stepSummary = join(scratch, 'jest-step-summary.md')
    const run = await runJest('jest-reporters', [], {
      FORCE_COLOR: '1',
      NO_COLOR: '',
      FIXTURE_REPORT_FILE: report,
      GITHUB_STEP_SUMMARY: stepSummary,
    })
    expect(run.code, run.output).toBe(1)
    const lines = closing(run.stderr)
    expect(lines[0], run.stderr).toBe(red('judgetree: 1 failed evaluation'))
    expect(lines).toContain(`judgetree: JSON report in ${report}`)
    expect(lines.find((line) => line.startsWith('judgetree: 2 evaluations'))).toContain(
      `, ${green('1 passed')}, ${red('1 failed')}, 0 errored · `,
    )
    expect(JSON.parse(readFileSync(report, 'utf8')).summary.evaluations).toBe(2)
    for (const file of [report, stepSummary])
      expect(readFileSync(file, 'utf8'), file).not.toMatch(new RegExp(`${ESC}|\\\\u001b`))
  }, 60_000)

  test('--no-colors keeps them plain', async () => {
    const run = await runJest('jest-reporters', ['--no-colors'], { FORCE_COLOR: '1', NO_COLOR: '' })
    expect(run.output).toContain('judgetree: 2 evaluations, 1 passed, 1 failed, 0 errored')
    expect(closing(run.stderr).join('\n')).not.toContain(ESC)
  }, 60_000)
})
