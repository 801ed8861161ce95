// Text that judges, test cases and test names carry reaches a CI log through every surface of a real run: the
// runner's failure messages (stdout, stderr), judgetree's closing summary, JUnit, the GitHub annotations the runner
// makes of judgetree's, and the step summary. None of it may act there as a workflow command or a terminal escape,
// and all of it must still be readable. Vitest's pictures of the evaluations must be well-formed XML.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  ciLogProblems,
  HOSTILE_TEXT,
  jsonReply,
  mermaidBlocks,
  type OpenAIServer,
  readMermaid,
  schemaOf,
  scoreReply,
  startOpenAIServer,
  xmlProblems,
} from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fixture, type RunResult, runJest, runVitest, scratchDir } from './support/runner.js'

const scratch = scratchDir()
let server: OpenAIServer

beforeAll(async () => {
  server = await startOpenAIServer((request) => {
    const schema = schemaOf(request)
    if (schema === 'geval_steps') return jsonReply({ steps: ['Check the tone.', HOSTILE_TEXT] })
    if (schema === 'geval_score') return scoreReply(2, undefined, { reason: HOSTILE_TEXT })
    if (schema === 'task_output') return jsonReply({ output: HOSTILE_TEXT })
    return jsonReply({ reason: HOSTILE_TEXT, verdict: false })
  })
})
afterAll(async () => {
  await server?.close()
  rmSync(scratch, { recursive: true, force: true })
})

/** The runner's own GitHub annotation of a fixture's test (`::error file=<fixture>/tests/…`), or undefined. */
function ownAnnotation(line: string, project: string): { kind: string; message: string | undefined } | undefined {
  const head = /^::(error|warning|notice) file=([^,:]*)/.exec(line)
  if (head === null || !head[2]?.startsWith(`${fixture(project)}/tests/`)) return undefined
  // A test name with line breaks breaks Jest's annotation (it does not escape its title): the data is then lost.
  const data = /^::[^:]*::(.*)$/.exec(line)?.[1]
  const message = data?.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
  return { kind: head[1] ?? '', message }
}

/**
 * The lines of a runner's output that would act in a CI log. The runner's own commands are left out: its
 * annotations of the fixture's tests, whose data must be safe in turn (a `%0A`-escaped message cannot start a
 * line, but a `##[` or an escape in it still acts), and Jest's groups of errors.
 */
function forgedLines(output: string, project: string): string[] {
  return output.split('\n').flatMap((line) => {
    if (/^::group::Errors thrown in tests\/hostile\.test\.ts$|^::endgroup::$/.test(line)) return []
    const annotation = ownAnnotation(line, project)
    if (annotation === undefined) return ciLogProblems(line)
    return ciLogProblems(annotation.message ?? '').length > 0 || line.includes('##[') ? [JSON.stringify(line)] : []
  })
}

/** The runner's GitHub annotations of the fixture's tests. */
function annotations(output: string, project: string): { kind: string; message: string | undefined }[] {
  return output.split('\n').flatMap((line) => ownAnnotation(line, project) ?? [])
}

/** What a person reads: the payload's words are all there, once the invisible breaks are taken out. */
function expectReadable(text: string): void {
  const shown = text.replaceAll('\u200b', '')
  for (const words of ['::error file=src/forged.ts,line=1::FORGED ERROR', '::add-mask::mask-me', '##[error]FORGED']) {
    expect(shown).toContain(words)
  }
}

/** The step summary keeps every test name inside its `<summary>` line, so no Markdown breaks out of `<details>`. */
function expectStepSummaryIntact(markdown: string): void {
  expect(ciLogProblems(markdown)).toEqual([])
  const lines = markdown.split('\n')
  const opened = lines.filter((line) => line.startsWith('<details>'))
  expect(opened.length).toBe(3)
  for (const line of opened) expect(line).toMatch(/^<details><summary>.*<\/summary>$/)
  expect(lines.filter((line) => line.startsWith('</details>')).length).toBe(3)
  expect(markdown).toContain('data-driven: reply # FORGED HEADING [link](javascript:alert(1))')
  expect(lines.some((line) => line.startsWith('# FORGED'))).toBe(false)
  // The failed DAG's walk in Mermaid: its hostile labels stay inside their nodes.
  const charts = mermaidBlocks(markdown).map(readMermaid)
  expect(charts).toHaveLength(1)
  expect(charts[0]?.problems).toEqual([])
  expectReadable(markdown)
}

describe('vitest run with the github-actions, junit and blob reporters', () => {
  let run: RunResult
  const stepSummary = join(scratch, 'vitest-step-summary.md')

  beforeAll(async () => {
    run = await runVitest(
      'vitest-ci-log',
      [
        'run',
        '--reporter=default',
        '--reporter=junit',
        '--reporter=github-actions',
        '--reporter=blob',
        `--outputFile.junit=${join(scratch, 'junit.xml')}`,
        `--outputFile.blob=${join(scratch, 'blob', 'blob.json')}`,
      ],
      {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test-ci-log-0123456789',
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: stepSummary,
        FIXTURE_REPORT_FILE: join(scratch, 'vitest-report.json'),
      },
    )
  }, 120_000)

  test('every test failed on the judge, not on the run', () => {
    expect(run.code, run.output).toBe(1)
    expect(run.output).toContain('judgetree: 3 evaluations, 0 passed, 3 failed, 0 errored')
  })

  test('stdout and stderr: failure messages, annotations and the closing summary forge nothing, and read', () => {
    expect(forgedLines(run.stdout, 'vitest-ci-log')).toEqual([])
    expect(forgedLines(run.stderr, 'vitest-ci-log')).toEqual([])
    expectReadable(run.output)
    // G-Eval's reason keeps its lines, indented under "reason: ".
    expect(run.output.replaceAll('\u200b', '')).toContain(
      'reason: The judge scored 2 on 0–10, which is 0.2. x\n        ::error file=src/forged.ts,line=1::FORGED ERROR',
    )
  })

  test("GitHub annotations: Vitest's errors and judgetree's notices carry the text safely", () => {
    const made = annotations(run.stdout, 'vitest-ci-log')
    expect(made.filter((annotation) => annotation.kind === 'error')).toHaveLength(3)
    expect(made.filter((annotation) => annotation.kind === 'notice')).toHaveLength(3)
    for (const { message } of made) expect(ciLogProblems(message ?? '')).toEqual([])
    expectReadable(made.map((annotation) => annotation.message).join('\n'))
  })

  test('the step summary', () => {
    expectStepSummaryIntact(readFileSync(stepSummary, 'utf8'))
  })

  test('JUnit is well-formed XML whose failures and properties are safe', () => {
    const junit = readFileSync(join(scratch, 'junit.xml'), 'utf8')
    expect(xmlProblems(junit)).toEqual([])
    expect(ciLogProblems(junit)).toEqual([])
    expectReadable(junit)
  })

  test('the pictures attached to the annotations are well-formed XML', () => {
    const blob = readFileSync(join(scratch, 'blob', 'blob.json'), 'utf8')
    // Base64 of `<svg` or of `<?xml ` (Graphviz's SVG begins with its XML declaration).
    const pictures = [...blob.matchAll(/"((?:PHN2Zy|PD94bWwg)[A-Za-z0-9+/=]*)"/g)].map(([, body = '']) =>
      Buffer.from(body, 'base64').toString('utf8'),
    )
    // Three annotations; only the DAG's has a picture (G-Eval has no graph to draw), which the blob may hold twice.
    expect(pictures.length).toBeGreaterThanOrEqual(1)
    for (const svg of pictures) expect(xmlProblems(svg)).toEqual([])
    expect(pictures.some((svg) => svg.includes('Polite␀ ␛[31m?'))).toBe(true)
  })
})

describe('jest with the github-actions reporter', () => {
  let run: RunResult
  const stepSummary = join(scratch, 'jest-step-summary.md')

  beforeAll(async () => {
    run = await runJest('jest-ci-log', [], {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-test-ci-log-0123456789',
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: stepSummary,
      FIXTURE_REPORT_FILE: join(scratch, 'jest-report.json'),
    })
  }, 120_000)

  test('every test failed on the judge, not on the run', () => {
    expect(run.code, run.output).toBe(1)
    expect(run.output).toContain('judgetree: 3 evaluations, 0 passed, 3 failed, 0 errored')
  })

  test("stdout and stderr: failure messages, Jest's annotations and the closing summary forge nothing, and read", () => {
    expect(forgedLines(run.stdout, 'jest-ci-log')).toEqual([])
    expect(forgedLines(run.stderr, 'jest-ci-log')).toEqual([])
    expectReadable(run.output)
    const made = annotations(run.output, 'jest-ci-log')
    expect(made.filter((annotation) => annotation.kind === 'error')).toHaveLength(3)
    for (const { message } of made) expect(ciLogProblems(message ?? '')).toEqual([])
    expectReadable(made.map((annotation) => annotation.message).join('\n'))
  })

  test('the step summary', () => {
    expectStepSummaryIntact(readFileSync(stepSummary, 'utf8'))
  })

  test('the JSON report keeps every evaluation', () => {
    const report = JSON.parse(readFileSync(join(scratch, 'jest-report.json'), 'utf8'))
    expect(report.summary.evaluations).toBe(3)
  })
})
