import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { meetingSummaryDag } from '../../test/support/walkthroughs.js'
import { DagValidationError } from '../errors.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import type { Metric } from '../metric/types.js'
import { ConversationalGEval } from '../metrics/conversational-geval.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { DeepAcyclicGraph } from './graph.js'

/** A DAG as the reference library saves it, written by hand from its documented format (uuid ids, snake_case). */
const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8')

describe('DeepAcyclicGraph.fromJSON reads a DAG saved by the reference library', () => {
  test('the meeting-summary DAG loads as the same graph as built in code, and scores the same', async () => {
    const loaded = DeepAcyclicGraph.fromJSON(fixture('reference-meeting-summary.dag.json'))
    const built = meetingSummaryDag()
    expect(loaded.mode).toBe('single-turn')
    expect(loaded.toJSON()).toEqual(built.toJSON())
    const rules = [
      { match: 'Extract all headings', answer: { output: 'Intro, Conclusion, Body' } },
      { match: 'contain all three', answer: { verdict: true, reason: 'All three are there.' } },
      { match: 'correct order', answer: { verdict: 'Two are out of order', reason: 'Body comes last.' } },
    ]
    const summary = { input: 'The meeting', actualOutput: 'Intro: …\nConclusion: …\nBody: …' }
    const measure = (dag: DeepAcyclicGraph) =>
      new DAGMetric({ name: 'Format', dag: dag as never, model: scriptedJudge({ rules }) }).measure(summary)
    const [fromCode, fromReference] = await Promise.all([measure(built), measure(loaded)])
    expect(fromReference.error).toBeUndefined()
    expect(fromReference.score).toBe(0.4)
    expect(fromReference.verboseLogs).toBe(fromCode.verboseLogs)
  })

  test('a conversational DAG is read as one from its fields, and a G-Eval child is rebuilt from its kwargs', () => {
    const loaded = DeepAcyclicGraph.fromJSON(fixture('reference-playful-geval.dag.json'))
    expect(loaded.mode).toBe('conversational')
    const json = loaded.toJSON()
    expect(json.nodes.n1).toEqual({
      type: 'ConversationalBinaryJudgementNode',
      criteria: 'Does the assistant stay playful throughout?',
      label: 'Playful',
      evaluationParams: ['role', 'content'],
      turnWindow: [0, -1],
      children: ['n2', 'n3'],
    })
    expect(json.nodes.n3).toEqual({ type: 'ConversationalVerdictNode', verdict: true, metric: 'Helpfulness' })
    const verdict = loaded.rootNodes[0]?.children[1] as unknown as { metric: ConversationalGEval }
    expect(verdict.metric).toBeInstanceOf(ConversationalGEval)
    expect(verdict.metric).toMatchObject({
      name: 'Helpfulness',
      criteria: "Are the assistant's replies helpful to the user?",
      threshold: 0.5,
    })
  })

  test('a child metric passed by name wins; `mode` overrides what the fields suggest', () => {
    const own: Metric<never> = {
      name: 'Helpfulness',
      kind: 'single-turn',
      threshold: 0.5,
      measure: async () => ({}) as never,
    }
    const document = JSON.parse(fixture('reference-playful-geval.dag.json'))
    // Read as single-turn, the turn fields are refused by the nodes' own validation, naming each.
    expect(() => DeepAcyclicGraph.fromJSON(document, { mode: 'single-turn', metrics: { Helpfulness: own } })).toThrow(
      DagValidationError,
    )
    const other = JSON.parse(fixture('reference-meeting-summary.dag.json'))
    const verdictId = '91f3b6d2-4e08-4c7a-9d15-6a2c8e0f4b39'
    other.nodes[verdictId].child = { type: 'metric', metric_class: 'AnswerRelevancyMetric', kwargs: { threshold: 0.7 } }
    expect(() => DeepAcyclicGraph.fromJSON(other)).toThrow(
      'continues with the metric "AnswerRelevancyMetric"; pass it as fromJSON(json, { metrics: { "AnswerRelevancyMetric": metric } })',
    )
    const relevancy: Metric<never> = { ...own, name: 'AnswerRelevancyMetric' }
    const loaded = DeepAcyclicGraph.fromJSON(other, { metrics: { AnswerRelevancyMetric: relevancy } })
    expect(loaded.toJSON().nodes.n4).toEqual({ type: 'VerdictNode', verdict: true, metric: 'AnswerRelevancyMetric' })
  })
})
