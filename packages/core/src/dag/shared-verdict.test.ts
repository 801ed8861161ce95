// A VerdictNode under two judgements, through the real OpenAI SDK against the local server: chosen when either
// judgement picks it, what follows it runs once, and the trace, Mermaid and JSON show both parents.
import { useOpenAIServer } from '@judgetree/test-support'
import { describe, expect, test } from 'vitest'
import { serverJudge } from '../../test/support/server-judge.js'
import { routeByPrompt } from '../../test/support/walkthroughs.js'
import { DAGMetric } from '../metrics/dag-metric.js'
import { SingleTurnParams } from '../test-case/params.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { CodeNode } from './nodes/code-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import { TaskNode } from './nodes/task-node.js'
import { ToolCallNode } from './nodes/tool-call-node.js'
import { VerdictNode } from './nodes/verdict-node.js'

const CRITERIA = {
  extract: 'List the claims the answer makes.',
  accurate: 'Are the claims accurate?',
  complete: 'Do the claims answer the whole question?',
  detail: 'How detailed are the claims?',
} as const
const testCase = {
  input: 'When did the Berlin Wall fall?',
  actualOutput: 'On 9 November 1989, after weeks of protest.',
}

const server = useOpenAIServer()

/** Two judgements of the same extracted claims share their `true` verdict, which continues at the detail question. */
function sharedVerdictDag() {
  const extract = new TaskNode({
    instructions: CRITERIA.extract,
    outputLabel: 'Claims',
    evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
  })
  const accurate = extract.addNode(new BinaryJudgementNode({ criteria: CRITERIA.accurate, label: 'Accurate?' }))
  const complete = extract.addNode(new BinaryJudgementNode({ criteria: CRITERIA.complete, label: 'Complete?' }))
  // No evaluationParams: the detail question is shown what the judgement that chose the verdict was shown.
  const detail = new NonBinaryJudgementNode({ criteria: CRITERIA.detail, label: 'Detail' })
  detail.addVerdict('Rich', { score: 10 })
  detail.addVerdict('Thin', { score: 6 })
  const shared = accurate.addVerdict(true, { then: detail })
  accurate.addVerdict(false, { score: 0 })
  complete.addVerdict(false, { score: 3 })
  complete.addVerdict(shared)
  return { dag: new DeepAcyclicGraph({ rootNodes: [extract] }), shared, accurate, complete }
}

function answer(accurate: boolean, complete: boolean) {
  server.respondWith(
    routeByPrompt([
      [CRITERIA.extract, { output: 'The Berlin Wall fell on 9 November 1989.' }],
      [CRITERIA.accurate, { reason: accurate ? 'The date is right.' : 'Wrong date.', verdict: accurate }],
      [CRITERIA.complete, { reason: complete ? 'It says when.' : 'It leaves out why.', verdict: complete }],
      [CRITERIA.detail, { reason: 'One dated claim with context.', verdict: 'Rich' }],
    ]),
  )
}

const asked = (criteria: string) =>
  server.requests.filter((request) => JSON.stringify(request.body.messages).includes(criteria)).length

describe.each([
  ['asyncMode (the judgements run in parallel)', true],
  ['one node at a time', false],
])('a verdict shared by two judgements, %s', (_, asyncMode) => {
  const metric = () =>
    new DAGMetric({ name: 'Claims', dag: sharedVerdictDag().dag, model: serverJudge(server.baseURL), asyncMode })

  test.each([
    // accurate, complete, score (the minimum of the leaves reached), judge calls
    [true, true, 1, 4],
    [true, false, 0.3, 4],
    [false, true, 0, 4],
    [false, false, 0, 3],
  ])(
    'accurate %s, complete %s → %s after %s judge calls; the detail question is asked at most once',
    async (accurate, complete, score, calls) => {
      answer(accurate, complete)
      const result = await metric().measure(testCase)

      expect(result.error).toBeUndefined()
      expect(result.score).toBe(score)
      expect(server.requests).toHaveLength(calls)
      expect(result.usage.judgeCalls).toBe(calls)
      expect(asked(CRITERIA.detail)).toBe(accurate || complete ? 1 : 0)
      const detail = result.trace.nodes.find((node) => node.label === 'Detail')
      expect(detail?.status).toBe(accurate || complete ? 'ran' : 'skipped')
    },
  )
})

describe('a shared verdict in the trace, Mermaid and JSON', () => {
  test('chosen only by the second judgement: drawn under it, pointed to from the first; its child reads the chooser', async () => {
    answer(false, true)
    const { dag } = sharedVerdictDag()
    const result = await new DAGMetric({ name: 'Claims', dag, model: serverJudge(server.baseURL) }).measure(testCase)

    const byLabel = (label: string) => result.trace.nodes.find((node) => node.label === label)
    const verdict = result.trace.nodes.find((node) => node.role === 'verdict' && node.text === 'true')
    expect(verdict).toMatchObject({ status: 'ran', alsoUnder: [byLabel('Accurate?')?.id] })
    expect(byLabel('Complete?')?.children).toContain(verdict?.id)
    const extract = result.trace.nodes.find((node) => node.text === CRITERIA.extract)
    expect(byLabel('Detail')).toMatchObject({ inputFrom: byLabel('Complete?')?.id, inputs: [extract?.id] })
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: List the claims the answer makes. · 1 judge call
      │    Claims: The Berlin Wall fell on 9 November 1989.
      ├─ [2] Judgement "Accurate?": Are the claims accurate? → false · 1 judge call
      │  │    reason: Wrong date.
      │  ├─ ● false → 0  ◀ score 0
      │  └─ ○ true  (shared: drawn under [3])
      └─ [3] Judgement "Complete?": Do the claims answer the whole question? → true · 1 judge call
         │    reason: It says when.
         ├─ ○ false → 3
         └─ ● true  (also under [2])
            └─ [4] Judgement "Detail": How detailed are the claims? → Rich · 1 judge call
               │    input: what [3] was shown (Claims)
               │    reason: One dated claim with context.
               ├─ ● Rich → 10  ◀ score 1
               └─ ○ Thin → 6
      note: 2 verdicts were reached (0, 1); the score is the lowest."
    `)
    expect(dag.toMermaid({ trace: result.trace })).toMatchInlineSnapshot(`
      "flowchart TD
        n1["Task: List the claims the answer makes."]
        n2{"Accurate?"}
        n7(["false → 0"])
        n8{"Complete?"}
        n3(["true"])
        n4{"Detail"}
        n5(["Rich → 10"])
        n6(["Thin → 6"])
        n9(["false → 3"])
        n1 -.->|Claims| n2
        n1 -.->|Claims| n8
        n2 --> n3
        n2 --> n7
        n8 --> n9
        n8 --> n3
        n3 --> n4
        n4 --> n5
        n4 --> n6
        classDef walked fill:#dcfce7,stroke:#15803d,stroke-width:2px
        classDef skipped fill:#f4f4f5,stroke:#a1a1aa,color:#71717a,stroke-dasharray:4 3
        classDef failed fill:#fee2e2,stroke:#b91c1c,stroke-width:2px
        class n1,n2,n7,n8,n3,n4,n5 walked
        class n6,n9 skipped
        linkStyle 0,1,3,5,6,7 stroke:#15803d,stroke-width:3px"
    `)
    // The same walk in Graphviz: green and bold where it went, dashed grey where it did not.
    expect(dag.toDot({ trace: result.trace })).toMatchInlineSnapshot(`
      "digraph judgetree {
        graph [rankdir=TB, bgcolor="white", pad=0.2, nodesep=0.35, ranksep=0.45, fontname="Helvetica"]
        node [fontname="Helvetica", fontsize=11, fillcolor="white", color="#52525b", margin="0.12,0.06"]
        edge [fontname="Helvetica", fontsize=10, color="#71717a"]
        n1 [shape=box, style="filled", label="Task: List the claims the answer\\nmakes.", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n2 [shape=diamond, style="filled", label="Accurate?", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n7 [shape=box, style="filled,rounded", label="false → 0", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n8 [shape=diamond, style="filled", label="Complete?", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n3 [shape=box, style="filled,rounded", label="true", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n4 [shape=diamond, style="filled", label="Detail", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n5 [shape=box, style="filled,rounded", label="Rich → 10", fillcolor="#dcfce7", color="#15803d", penwidth=2]
        n6 [shape=box, style="filled,rounded,dashed", label="Thin → 6", fillcolor="#f4f4f5", color="#a1a1aa", fontcolor="#71717a"]
        n9 [shape=box, style="filled,rounded,dashed", label="false → 3", fillcolor="#f4f4f5", color="#a1a1aa", fontcolor="#71717a"]
        n1 -> n2 [style=dashed, label="Claims", color="#15803d", penwidth=3]
        n1 -> n8 [style=dashed, label="Claims", color="#15803d", penwidth=3]
        n2 -> n3 [color="#a1a1aa"]
        n2 -> n7 [color="#15803d", penwidth=3]
        n8 -> n9 [color="#a1a1aa"]
        n8 -> n3 [color="#15803d", penwidth=3]
        n3 -> n4 [color="#15803d", penwidth=3]
        n4 -> n5 [color="#15803d", penwidth=3]
        n4 -> n6 [color="#a1a1aa"]
      }"
    `)
  })

  test('when both judgements choose it, the trace draws it once and both point to it as chosen', async () => {
    answer(true, true)
    const result = await new DAGMetric({
      name: 'Claims',
      dag: sharedVerdictDag().dag,
      model: serverJudge(server.baseURL),
    }).measure(testCase)
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: List the claims the answer makes. · 1 judge call
      │    Claims: The Berlin Wall fell on 9 November 1989.
      ├─ [2] Judgement "Accurate?": Are the claims accurate? → true · 1 judge call
      │  │    reason: The date is right.
      │  ├─ ● true  (also under [3])
      │  │  └─ [4] Judgement "Detail": How detailed are the claims? → Rich · 1 judge call
      │  │     │    input: what [2] was shown (Claims)
      │  │     │    reason: One dated claim with context.
      │  │     ├─ ● Rich → 10  ◀ score 1
      │  │     └─ ○ Thin → 6
      │  └─ ○ false → 0
      └─ [3] Judgement "Complete?": Do the claims answer the whole question? → true · 1 judge call
         │    reason: It says when.
         ├─ ○ false → 3
         └─ ● true  (shared: drawn under [2])"
    `)
  })

  test('when neither chooses it, it is drawn skipped once and what follows it is not reached', async () => {
    answer(false, false)
    const result = await new DAGMetric({
      name: 'Claims',
      dag: sharedVerdictDag().dag,
      model: serverJudge(server.baseURL),
    }).measure(testCase)
    const verdict = result.trace.nodes.find((node) => node.role === 'verdict' && node.text === 'true')
    expect(verdict?.skippedBecause).toBe(
      'not chosen: BinaryJudgementNode "Accurate?": the judge answered false; ' +
        'BinaryJudgementNode "Complete?": the judge answered false',
    )
    expect(result.verboseLogs).toMatchInlineSnapshot(`
      "[1] Task: List the claims the answer makes. · 1 judge call
      │    Claims: The Berlin Wall fell on 9 November 1989.
      ├─ [2] Judgement "Accurate?": Are the claims accurate? → false · 1 judge call
      │  │    reason: Wrong date.
      │  ├─ ○ true  (also under [3])
      │  │  └─ [ ] Judgement "Detail": How detailed are the claims?  (not reached)
      │  │     └─ … 2 nodes below not reached
      │  └─ ● false → 0  ◀ score 0
      └─ [3] Judgement "Complete?": Do the claims answer the whole question? → false · 1 judge call
         │    reason: It leaves out why.
         ├─ ● false → 3  ◀ score 0.3
         └─ ○ true  (shared: drawn under [2])
      note: 2 verdicts were reached (0, 0.3); the score is the lowest."
    `)
  })

  test('JSON writes the shared verdict once, as a child of both, and reads it back as one node', () => {
    const { dag } = sharedVerdictDag()
    const json = dag.toJSON()
    const ids = Object.entries(json.nodes).filter(([, node]) => node.type === 'VerdictNode' && node.verdict === true)
    expect(ids).toHaveLength(1)
    const [sharedId] = ids[0] as [string, unknown]
    const owners = Object.values(json.nodes).filter((node) => node.children?.includes(sharedId))
    expect(owners.map((node) => node.label)).toEqual(['Accurate?', 'Complete?'])

    const rebuilt = DeepAcyclicGraph.fromJSON(json)
    expect(rebuilt.toJSON()).toEqual(json)
    expect(rebuilt.toMermaid()).toBe(dag.toMermaid())
    const [accurate, complete] = (rebuilt.rootNodes[0] as TaskNode).children as BinaryJudgementNode[]
    expect(accurate?.children.find((child) => child.verdict === true)).toBe(
      complete?.children.find((child) => child.verdict === true),
    )
  })
})

describe('top-down building', () => {
  test('addNode and addVerdict return what they add; a built graph takes no more children', () => {
    const { dag, shared, accurate, complete } = sharedVerdictDag()
    expect(shared).toBeInstanceOf(VerdictNode)
    expect(accurate.children).toContain(shared)
    expect(complete.children).toContain(shared)
    expect(dag.rootNodes).toHaveLength(1)
    expect(() => accurate.addVerdict(false, { score: 1 })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [node-sealed] BinaryJudgementNode "Accurate?": addVerdict was called on a node that is already part of a built DeepAcyclicGraph, which was checked and planned without the new child. Add every child before building the graph; to change a built graph, create its nodes again.]
    `)
  })

  test('a node completed top-down is checked when the graph is built, with the same messages as bottom-up', () => {
    const topDown = new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: [SingleTurnParams.INPUT] })
    topDown.addVerdict(true, { score: 10 })
    const bottomUp = new BinaryJudgementNode({
      criteria: 'Ok?',
      evaluationParams: [SingleTurnParams.INPUT],
      children: [new VerdictNode({ verdict: true, score: 10 })],
    })
    const message = (root: BinaryJudgementNode) => {
      try {
        new DeepAcyclicGraph({ rootNodes: [root] })
      } catch (error) {
        return (error as Error).message
      }
      return 'built'
    }
    expect(message(topDown)).toBe(message(bottomUp))
    expect(message(topDown)).toContain('[binary-verdicts]')
    // Still open: completing it now makes it valid.
    topDown.addVerdict(false, { score: 0 })
    expect(message(topDown)).toBe('built')
  })

  test('code and tool-call nodes take their verdicts top-down too', () => {
    const polite = new BinaryJudgementNode({ criteria: 'Polite?', evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT] })
    polite.addVerdict(true, { score: 10 })
    polite.addVerdict(false, { score: 3 })
    const brief = new CodeNode({
      name: 'Brief',
      evaluationParams: [SingleTurnParams.ACTUAL_OUTPUT],
      check: (view) => (view.actualOutput ?? '').length < 80,
    })
    brief.addVerdict(true, { then: polite })
    brief.addVerdict(false, { score: 1 })
    const tools = new ToolCallNode({ required: ['search'] })
    expect(tools.addVerdict(true, { then: brief })).toBeInstanceOf(VerdictNode)
    tools.addVerdict(false, { score: 0 })
    const dag = new DeepAcyclicGraph({ rootNodes: [tools] })
    expect(dag.toMermaid()).toContain('Brief')
  })

  test('addVerdict reports a bad score naming the node it was called on', () => {
    const node = new NonBinaryJudgementNode({ criteria: 'Tone?', evaluationParams: [SingleTurnParams.INPUT] })
    expect(() => node.addVerdict('Warm', { score: 11 })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-score] NonBinaryJudgementNode (criteria: "Tone?").addVerdict("Warm"): Expected \`score\` to be an integer from 0 to 10 (a score of 7 gives the metric 0.7), got \`11\` (number).]
    `)
    expect(() => node.addVerdict(new VerdictNode({ verdict: 'x', score: 1 }) as never, { score: 2 })).toThrow(
      /shares an existing VerdictNode/,
    )
    expect(node.children).toHaveLength(0)
  })
})
