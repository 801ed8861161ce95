import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ciLogProblems,
  HOSTILE_TEXT,
  jsonReply,
  schemaOf,
  scoreReply,
  useOpenAIServer,
  xmlProblems,
} from '@judgetree/test-support'
import { afterAll, describe, expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  calibrate,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  GEval,
  LLMTestCaseParams,
  renderResult,
  TaskNode,
  VerdictNode,
} from '../../src/index.js'
import { serverJudge } from '../support/server-judge.js'

// What judges, test cases and datasets write reaches terminals and CI logs through evaluate() and calibrate(): none
// of it may act there (a GitHub workflow command, a terminal escape), and all of it must still be readable.

const server = useOpenAIServer((request) => {
  const schema = schemaOf(request)
  if (schema === 'geval_steps') return jsonReply({ steps: [`Check the tone.\n${HOSTILE_TEXT}`] })
  if (schema === 'geval_score') return scoreReply(2, undefined, { reason: HOSTILE_TEXT })
  if (schema === 'task_output') return jsonReply({ output: HOSTILE_TEXT })
  return jsonReply({ reason: HOSTILE_TEXT, verdict: false })
})
const scratch = mkdtempSync(join(tmpdir(), 'judgetree-ci-log-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A recorder standing in for stdout. */
function recorder() {
  const chunks: string[] = []
  return { text: () => chunks.join(''), write: (text: string) => chunks.push(text) }
}

/** The payload's words, still there once the invisible breaks are taken out. */
function readable(text: string): string {
  return text.replaceAll('\u200b', '')
}

const hostileCase = { name: HOSTILE_TEXT, input: HOSTILE_TEXT, actualOutput: `The reply.\n${HOSTILE_TEXT}` }

function metrics() {
  const judge = serverJudge(server.baseURL)
  const tone = new GEval({
    name: 'Tone',
    criteria: 'Is the reply polite?',
    evaluationParams: [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT],
    model: judge,
  })
  // Its labels carry a NUL and an ESC: Graphviz must still draw it, and its SVG must be XML.
  const judgement = new BinaryJudgementNode({
    label: 'Polite\u0000 \u001b[31m?',
    criteria: 'Is it polite?\u0000\u001b]52;c;eA==\u0007',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, score: 10 })],
  })
  const summary = new TaskNode({
    label: 'Summarise',
    instructions: 'Summarise the reply.',
    outputLabel: 'Summary',
    evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
    children: [judgement],
  })
  const dag = new DAGMetric({ name: 'Polite DAG', dag: new DeepAcyclicGraph({ rootNodes: [summary] }), model: judge })
  return [tone, dag]
}

describe('text that would act in a CI log or a terminal', () => {
  test('evaluate(): results, summary, JSON and HTML carry none of it, and still say it', async () => {
    const stdout = recorder()
    const outputFile = join(scratch, 'run.json')
    const { results } = await evaluate([hostileCase], metrics(), { outputFile, progress: false, stdout })
    expect(results.map((entry) => entry.result.error?.message)).toEqual([undefined, undefined])
    expect(results.map((entry) => entry.result.success)).toEqual([false, false])
    const printed = stdout.text()
    expect(ciLogProblems(printed)).toEqual([])
    expect(readable(printed)).toContain('case 0 "x ::error file=src/forged.ts,line=1::FORGED ERROR ::warning::')
    for (const { result } of results) {
      const text = renderResult(result)
      expect(ciLogProblems(text)).toEqual([])
      expect(readable(text)).toContain('::add-mask::mask-me')
    }
    // G-Eval's reason keeps its lines, each indented under "reason: ".
    expect(renderResult(results[0]?.result as never)).toContain(
      'which is 0.2. x\n        :\u200b:error file=src/forged.ts',
    )
    const html = readFileSync(join(scratch, 'run.html'), 'utf8')
    const svg = /<svg[\s\S]*?<\/svg>/.exec(html)?.[0]
    expect(svg, 'the walked DAG is drawn').toBeDefined()
    expect(xmlProblems(svg ?? '')).toEqual([])
    expect(svg).toContain('Polite␀ ␛[31m?')
    expect(JSON.parse(readFileSync(outputFile, 'utf8')).results).toHaveLength(2)
  })

  test('calibrate(): case names and reasons print safely', async () => {
    const [tone] = metrics()
    const stdout = recorder()
    const cases = [
      { testCase: { ...hostileCase, name: `first\n${HOSTILE_TEXT}` }, label: { pass: true } },
      { testCase: { ...hostileCase, name: `second ${HOSTILE_TEXT}` }, label: { pass: true } },
    ]
    await calibrate(tone as GEval, cases, { progress: false, stdout, concurrency: 1 })
    const printed = stdout.text()
    expect(ciLogProblems(printed)).toEqual([])
    expect(readable(printed)).toContain('case 0 "first x ::error file=src/forged.ts,line=1::FORGED ERROR')
    expect(printed).toContain('2 disagreements')
  })
})
