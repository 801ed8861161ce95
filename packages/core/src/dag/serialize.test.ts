import { readMermaid } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { meetingSummaryDag, playfulChatbotDag } from '../../test/support/walkthroughs.js'
import type { DagValidationError } from '../errors.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import type { Metric } from '../metric/types.js'
import { ConversationalDAGMetric } from '../metrics/dag-metric.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import { TaskNode } from './nodes/task-node.js'
import { VerdictNode } from './nodes/verdict-node.js'

describe('DeepAcyclicGraph JSON round trip', () => {
  test('a conversational DAG survives toJSON → JSON text → fromJSON and walks the same', async () => {
    const original = playfulChatbotDag()
    const json = JSON.stringify(original)
    const restored = DeepAcyclicGraph.fromJSON(json)
    expect(restored.toJSON()).toEqual(original.toJSON())
    expect(restored.mode).toBe('conversational')
    const rules = [
      { match: 'Summarize', answer: { output: 'fine' } },
      { match: 'satisfy', answer: { verdict: true, reason: 'yes' } },
      { match: 'behaviour', answer: { verdict: 'Playful', reason: 'fun' } },
    ]
    const conversation = { turns: [{ role: 'user' as const, content: 'hi' }] }
    const measure = (dag: DeepAcyclicGraph) =>
      new ConversationalDAGMetric({ name: 'P', dag: dag as never, model: scriptedJudge({ rules }) }).measure(
        conversation,
      )
    const [before, after] = await Promise.all([measure(original), measure(restored)])
    expect(after.verboseLogs).toBe(before.verboseLogs)
    expect(after.score).toBe(1)
  })

  test('the JSON lists each node once, with its options and child ids; shared nodes stay shared', () => {
    // The meeting-summary DAG shares its order judgement between the task (data) and a verdict (control).
    const json = meetingSummaryDag().toJSON()
    expect(json.roots).toEqual(['n1'])
    expect(json.nodes.n1).toEqual({
      type: 'TaskNode',
      instructions: 'Extract all headings in `actual_output`',
      outputLabel: 'Summary headings',
      evaluationParams: ['actualOutput'],
      children: ['n2', 'n5'],
    })
    expect(json.nodes.n4).toEqual({ type: 'VerdictNode', verdict: true, children: ['n5'] })
    expect(Object.keys(json.nodes)).toHaveLength(8)
    expect(playfulChatbotDag().toJSON().nodes.n1).toMatchObject({ children: ['n2'] })
  })

  test('child metrics are written by name and passed back in by name', () => {
    const child: Metric<never> = {
      name: 'Correctness',
      kind: 'single-turn',
      threshold: 0.5,
      measure: async () => ({}) as never,
    }
    const dag = new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({
          criteria: 'Relevant?',
          evaluationParams: ['actualOutput'],
          children: [new VerdictNode({ verdict: true, child }), new VerdictNode({ verdict: false, score: 0 })],
        }),
      ],
    })
    const json = dag.toJSON()
    expect(json.nodes.n2).toEqual({ type: 'VerdictNode', verdict: true, metric: 'Correctness' })
    const restored = DeepAcyclicGraph.fromJSON(json, { metrics: { Correctness: child } })
    expect(restored.toJSON()).toEqual(json)
    expect(() => DeepAcyclicGraph.fromJSON(json)).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [json-unknown-metric] node "n2": continues with the metric "Correctness"; pass it as fromJSON(json, { metrics: { "Correctness": metric } }).]
    `)
  })

  test('invalid JSON gets the same validation as code, every problem at once', () => {
    const json = {
      format: 'judgetree-dag',
      version: 1,
      roots: ['a'],
      nodes: {
        a: {
          type: 'BinaryJudgementNode',
          criteria: 'Ok?',
          evaluationParams: ['actualOutput'],
          children: ['b', 'c', 'x'],
        },
        b: { type: 'VerdictNode', verdict: true, score: 12 },
        c: { type: 'Verdict', verdict: false, score: 0 },
        d: { type: 'VerdictNode', verdict: false, score: 0 },
      },
    }
    expect(() => DeepAcyclicGraph.fromJSON(json)).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (3 problems):
        1. [verdict-score] node "b" (VerdictNode (verdict: true)): Expected \`score\` to be an integer from 0 to 10 (a score of 7 gives the metric 0.7), got \`12\` (number).
        2. [json-unknown-type] node "c": has type "Verdict", which is not a node kind; use one of TaskNode, BinaryJudgementNode, NonBinaryJudgementNode, VerdictNode, ConversationalTaskNode, ConversationalBinaryJudgementNode, ConversationalNonBinaryJudgementNode, ConversationalVerdictNode, ToolCallNode, ConversationalToolCallNode, CodeNode, ConversationalCodeNode.
        3. [json-unknown-node] node "a": refers to node "x", which is not in "nodes".]
    `)
  })

  test('graph rules apply after parsing, and a bad envelope is explained', () => {
    const json = {
      format: 'judgetree-dag',
      version: 1,
      roots: ['a'],
      nodes: {
        a: { type: 'BinaryJudgementNode', criteria: 'Ok?', children: ['b'] },
        b: { type: 'VerdictNode', verdict: true, score: 1 },
      },
    }
    let error: unknown
    try {
      DeepAcyclicGraph.fromJSON(json)
    } catch (caught) {
      error = caught
    }
    expect((error as DagValidationError).issues.map((issue) => issue.rule)).toEqual([
      'binary-verdicts',
      'node-without-input',
    ])
    expect(() => DeepAcyclicGraph.fromJSON('{"nodes": 1')).toThrowError(/is not valid JSON/)
    expect(() => DeepAcyclicGraph.fromJSON({ roots: [] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (4 problems):
        1. [json-shape] JSON at format: Invalid input: expected "judgetree-dag". A serialised DAG is { format: "judgetree-dag", version: 1, roots: [ids], nodes: { id: { type, ...options, children?: [ids] } } }, as written by dag.toJSON().
        2. [json-shape] JSON at version: Invalid input: expected 1.
        3. [json-shape] JSON at roots: Too small: expected array to have >=1 items.
        4. [json-shape] JSON at nodes: Invalid input: expected record, received undefined.]
    `)
  })
})

describe('toMermaid', () => {
  test('draws every node and edge, data edges dotted with their output label', () => {
    expect(playfulChatbotDag().toMermaid()).toMatchInlineSnapshot(`
      "flowchart TD
        n1["Task: Summarize the conversation and explain assistant's behaviour overall."]
        n2{"Do the assistant's replies satisfy user's questions?"}
        n3(["false → 0"])
        n4(["true"])
        n5{"How was the assistant's behaviour towards user?"}
        n6(["Rude → 0"])
        n7(["Neutral → 5"])
        n8(["Playful → 10"])
        n1 -.->|Summary| n2
        n2 --> n3
        n2 --> n4
        n4 --> n5
        n5 --> n6
        n5 --> n7
        n5 --> n8"
    `)
  })

  test('highlights the walked path from a trace', async () => {
    const dag = playfulChatbotDag()
    const judge = scriptedJudge({
      rules: [
        { match: 'Summarize', answer: { output: 'fine' } },
        { match: 'satisfy', answer: { verdict: true, reason: 'yes' } },
        { match: 'behaviour', answer: { verdict: 'Neutral', reason: 'meh' } },
      ],
    })
    const result = await new ConversationalDAGMetric({ name: 'P', dag, model: judge }).measure({
      turns: [{ role: 'user', content: 'hi' }],
    })
    const chart = dag.toMermaid({ trace: result.trace, direction: 'LR' })
    expect(chart.split('\n').filter((line) => /^ {2}(class |linkStyle)/.test(line))).toMatchInlineSnapshot(`
      [
        "  class n1,n2,n4,n5,n7 walked",
        "  class n3,n6,n8 skipped",
        "  linkStyle 0,2,3,5 stroke:#15803d,stroke-width:3px",
      ]
    `)
  })

  test('a failed measurement: its walked path and the verdict it reached are red, as toDot() draws them', async () => {
    const dag = playfulChatbotDag()
    const judge = scriptedJudge({
      rules: [
        { match: 'Summarize', answer: { output: 'fine' } },
        { match: 'satisfy', answer: { verdict: false, reason: 'no' } },
      ],
    })
    const result = await new ConversationalDAGMetric({ name: 'P', dag, model: judge }).measure({
      turns: [{ role: 'user', content: 'hi' }],
    })
    expect(result.success).toBe(false)
    const failed = readMermaid(dag.toMermaid({ trace: result.trace, passed: false }))
    expect(failed.problems).toEqual([])
    const verdict = [...failed.nodes].find(([, label]) => label === 'false → 0')?.[0]
    expect(failed.classes.get('walked')).toEqual(['n1', 'n2', verdict])
    expect(failed.classDefs.get('walked')).toBe('fill:#fee2e2,stroke:#b91c1c,stroke-width:2px')
    expect(dag.toMermaid({ trace: result.trace, passed: false })).toContain('stroke:#b91c1c,stroke-width:3px')
    // Without `passed`, the same walk is drawn green, as before.
    expect(readMermaid(dag.toMermaid({ trace: result.trace })).classDefs.get('walked')).toBe(
      'fill:#dcfce7,stroke:#15803d,stroke-width:2px',
    )
  })

  test('a label holds any text as text: it cannot end its node, the chart, a Markdown fence or become markup', () => {
    const hostile = [
      'say "hi" ]) --> x{"y"} | pipe',
      '<img src=x onerror=alert(1)>',
      '&amp; &lt;b&gt; #quot; #35;',
      '``` fence, then `code`',
      'line\n%%{init: {"theme": "dark"}}%%\nclick n1 call alert()',
      'bell\u0007 esc\u001b[31m end',
    ]
    const dag = new DeepAcyclicGraph({
      rootNodes: [
        new TaskNode({
          instructions: 'Read it',
          outputLabel: 'label | with "quotes" and `ticks`',
          evaluationParams: ['actualOutput'],
          children: [
            new NonBinaryJudgementNode({
              criteria: hostile.join(' '),
              children: hostile.map((verdict, score) => new VerdictNode({ verdict, score })),
            }),
          ],
        }),
      ],
    })
    const chart = dag.toMermaid()
    const read = readMermaid(chart)
    expect(read.problems).toEqual([])
    expect(read.nodes.size).toBe(2 + hostile.length)
    expect(read.edges).toHaveLength(1 + hostile.length)
    // Nothing a renderer would read as markup or a fence, no raw `&`, no control character: every one is an entity.
    expect([...read.nodes.values()].join(' ')).not.toMatch(/[<>`&]|\p{Cc}/u)
    // And the text's own entity codes are escaped too, so they show as written.
    expect([...read.nodes.values()].slice(2)).toEqual([
      'say #quot;hi#quot; ]) --#gt; x{#quot;y#quot;} #124; pipe → 0',
      '#lt;img src=x onerror=alert(1)#gt; → 1',
      '#38;amp; #38;lt;b#38;gt; #35;quot; #35;35; → 2',
      '#96;#96;#96; fence, then #96;code#96; → 3',
      'line %%{init: {#quot;theme#quot;: #quot;dark#quot;}}%% click n1 call alert() → 4',
      'bell␇ esc␛[31m end → 5',
    ])
    expect(chart).toContain('-.->|label #124; with #quot;quotes#quot; and #96;ticks#96;| n2')
  })
})
