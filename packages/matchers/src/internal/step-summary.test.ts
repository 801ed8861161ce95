// The step summary's pictures of walked DAGs, from records the matcher makes of real measurements.
import {
  BinaryJudgementNode,
  DAGMetric,
  DeepAcyclicGraph,
  GEval,
  LLMTestCaseParams,
  VerdictNode,
} from '@judgetree/core'
import { renderMarkdown } from '@judgetree/core/runtime'
import { scriptedJudge } from '@judgetree/core/testing'
import { mermaidBlocks, readMermaid } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { type EvaluationContext, evaluateToPassMetric } from './evaluate.js'
import type { JudgetreeRecord } from './record.js'
import { buildReport } from './run-report.js'

const answer = { input: 'What is 2 + 2?', actualOutput: '4' }

/** A one-judgement DAG whose judge answers `verdict`; `criteria` is the text its picture shows. */
function correctness(verdict: boolean, criteria = 'Is the answer correct?'): DAGMetric {
  return new DAGMetric({
    name: 'Correctness',
    threshold: 0.5,
    model: scriptedJudge({ name: 'judge-y', rules: [{ match: 'answer', answer: { reason: 'Checked.', verdict } }] }),
    dag: new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: `${criteria} (answer)`,
          evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
          children: [new VerdictNode({ verdict: true, score: 10 }), new VerdictNode({ verdict: false, score: 1 })],
        }),
      ],
    }),
  })
}

async function recordOf(metric: DAGMetric | GEval, context: Partial<EvaluationContext> = {}): Promise<JudgetreeRecord> {
  const outcome = await evaluateToPassMetric(answer, metric, undefined, {
    isNot: false,
    utils: undefined,
    assertion: 1,
    ...context,
  })
  return outcome.record as JudgetreeRecord
}

function summaryOf(...records: JudgetreeRecord[]): string {
  return renderMarkdown(
    buildReport(
      'vitest',
      records.map((record, index) => ({
        project: '',
        file: 'tests/answer.test.ts',
        name: `answer ${index + 1}`,
        state: record.assertionPassed ? 'passed' : 'failed',
        evaluations: [record],
      })),
    ),
  )
}

describe('the step summary draws each failed DAG evaluation’s walk in Mermaid', () => {
  test('a failed DAG evaluation: one block in its failure, the walk and the verdict it reached red', async () => {
    const markdown = summaryOf(await recordOf(correctness(false)), await recordOf(correctness(true)))
    const [block, ...others] = mermaidBlocks(markdown)
    expect(others).toEqual([])
    const chart = readMermaid(block as string)
    expect(chart.problems).toEqual([])
    const verdict = [...chart.nodes].find(([, label]) => label === 'false → 1')?.[0]
    expect(verdict).toBeDefined()
    expect(chart.classes.get('walked')).toEqual(['n1', verdict])
    expect(chart.classDefs.get('walked')).toMatch(/^fill:#fee2e2,stroke:#b91c1c/)
    // Inside the failure's own collapsed block, under its tree.
    const failure = markdown.slice(markdown.indexOf('<details><summary>❌ FAIL Correctness'))
    expect(failure.indexOf('```mermaid')).toBeGreaterThan(failure.indexOf('└─ ● false → 1'))
    expect(failure.indexOf('```mermaid')).toBeLessThan(failure.indexOf('</details>'))
  })

  test('passes have none, and a metric without a DAG none either', async () => {
    const geval = new GEval({
      name: 'Clarity',
      criteria: 'Is the answer clear?',
      evaluationParams: [LLMTestCaseParams.ACTUAL_OUTPUT],
      threshold: 0.9,
      model: scriptedJudge({ rules: [{ match: 'clear', answer: { score: 2, reason: 'Terse.' } }] }),
    })
    const passed = await recordOf(correctness(true))
    const failedWithoutDag = await recordOf(geval)
    expect(failedWithoutDag.assertionPassed).toBe(false)
    expect(passed.mermaid).toBeUndefined()
    expect(failedWithoutDag.mermaid).toBeUndefined()
    expect(mermaidBlocks(summaryOf(passed, failedWithoutDag))).toEqual([])
  })

  test('.not on a passing DAG fails the assertion: its picture shows the walk green, as the metric passed', async () => {
    const record = await recordOf(correctness(true), { isNot: true })
    expect(record.assertionPassed).toBe(false)
    const chart = readMermaid(mermaidBlocks(summaryOf(record))[0] as string)
    expect(chart.classDefs.get('walked')).toMatch(/^fill:#dcfce7,stroke:#15803d/)
  })

  test('the first five failures are drawn; the summary says how many more have theirs in the JSON report', async () => {
    const failed = await recordOf(correctness(false))
    const markdown = summaryOf(...Array.from({ length: 7 }, () => failed))
    expect(mermaidBlocks(markdown)).toHaveLength(5)
    expect(markdown).toContain(
      'The walked DAG is drawn for the first 5 failed DAG evaluations; 2 more have theirs in the JSON report (`mermaid`).',
    )
    expect(markdown.match(/<details>/g)).toHaveLength(7)
  })

  test('text a DAG’s author or a dataset wrote cannot end the block or add Markdown around it', async () => {
    const hostile = 'x"]\n```\n</details>\n# Injected heading\n<img src=x onerror=alert(1)> `code` | end'
    const markdown = summaryOf(await recordOf(correctness(false, hostile)))
    const [block] = mermaidBlocks(markdown)
    expect(readMermaid(block as string).problems).toEqual([])
    // Outside the code blocks (where it is shown as code), nothing of it: no heading, no markup, one block's end.
    const outside = markdown.replace(/^```[a-z]*\n[\s\S]*?\n```$/gm, '')
    expect(outside).not.toMatch(/Injected|<img/)
    expect(outside.match(/<\/details>/g)).toHaveLength(1)
  })

  test('the failures stop well short of GitHub’s 1 MiB step summary, and say how many were left out', async () => {
    const failed = await recordOf(correctness(false))
    const long = { ...failed, text: `${failed.text}\n${'a long reason. '.repeat(2_000)}` }
    const markdown = summaryOf(...Array.from({ length: 60 }, () => long))
    expect(Buffer.byteLength(markdown)).toBeLessThan(600 * 1024)
    const shown = markdown.match(/<details>/g)?.length ?? 0
    expect(shown).toBeGreaterThan(10)
    expect(shown).toBeLessThan(60)
    expect(markdown).toContain(`…and ${60 - shown} more failed evaluations in the JSON report.`)
    expect(() => mermaidBlocks(markdown)).not.toThrow()
  })
})
