import { describe, expect, test } from 'vitest'
import { DagValidationError } from '../errors.js'
import { scriptedJudge } from '../judge/scripted-judge.js'
import type { Metric } from '../metric/types.js'
import { ConversationalDAGMetric, DAGMetric } from '../metrics/dag-metric.js'
import { type LLMTestCaseParam, LLMTestCaseParams, TurnParams } from '../test-case/params.js'
import { DeepAcyclicGraph } from './graph.js'
import { BinaryJudgementNode, ConversationalBinaryJudgementNode } from './nodes/binary-judgement-node.js'
import { NonBinaryJudgementNode } from './nodes/non-binary-judgement-node.js'
import { ConversationalTaskNode, TaskNode } from './nodes/task-node.js'
import { ConversationalVerdictNode, VerdictNode } from './nodes/verdict-node.js'

// Tests build deliberately invalid nodes; `bad` lets them past the type checker as a JavaScript user would.
const bad = <T = never>(value: unknown) => value as T
const params: LLMTestCaseParam[] = [LLMTestCaseParams.ACTUAL_OUTPUT]
const yes = () => new VerdictNode({ verdict: true, score: 10 })
const no = () => new VerdictNode({ verdict: false, score: 0 })
const binary = (criteria = 'Is it good?') =>
  new BinaryJudgementNode({ criteria, evaluationParams: params, children: [no(), yes()] })

function issuesOf(build: () => unknown) {
  try {
    build()
  } catch (error) {
    if (error instanceof DagValidationError) return error.issues.map((issue) => issue.rule)
    throw error
  }
  throw new Error('expected a DagValidationError')
}

describe('node options are checked by the constructor', () => {
  test('a node needs an options object', () => {
    expect(() => new TaskNode(bad(undefined))).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [options] TaskNode: Expected \`options\` to be an options object (new TaskNode(options)), got \`undefined\` (undefined).]
    `)
  })

  test('a TaskNode needs instructions and outputLabel; every problem is listed at once', () => {
    expect(() => new TaskNode(bad({ instructions: ' ', children: 'x', label: 3 }))).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (4 problems):
        1. [instructions] TaskNode (instructions: ""): Expected \`instructions\` to be a non-empty string (what the judge should do with the data), got ' ' (string).
        2. [outputLabel] TaskNode (instructions: ""): Expected \`outputLabel\` to be a non-empty string (the name children see the output under), got \`undefined\` (undefined).
        3. [label] TaskNode (instructions: ""): Expected \`label\` to be a string shown in traces, got \`3\` (number).
        4. [children] TaskNode (instructions: ""): Expected \`children\` to be an array of nodes, got 'x' (string).]
    `)
  })

  test('a judgement needs criteria', () => {
    expect(() => new BinaryJudgementNode(bad({ children: [] }))).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [criteria] BinaryJudgementNode: Expected \`criteria\` to be a non-empty string (the question the judge answers), got \`undefined\` (undefined).]
    `)
  })

  test('evaluationParams must come from the right enum', () => {
    expect(
      () =>
        new BinaryJudgementNode(bad({ criteria: 'Is it good?', children: [], evaluationParams: ['content', 'nope'] })),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (2 problems):
        1. [evaluation-params] BinaryJudgementNode (criteria: "Is it good?"): evaluationParams contains "content", which is one of TurnParams; this node needs LLMTestCaseParams.
        2. [evaluation-params] BinaryJudgementNode (criteria: "Is it good?"): evaluationParams contains "nope", which is not one of LLMTestCaseParams.]
    `)
    expect(
      () => new ConversationalBinaryJudgementNode(bad({ criteria: 'Ok?', children: [], evaluationParams: 'content' })),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [evaluation-params] ConversationalBinaryJudgementNode (criteria: "Ok?"): evaluationParams must be an array of TurnParams values; got "content".]
    `)
  })

  test.each([[[3, 1]], [[-1, -2]], [[0.5, 2]], [[1, 2, 3]], ['0-2']])('turnWindow %j is rejected', (turnWindow) => {
    expect(
      issuesOf(
        () =>
          new ConversationalTaskNode(
            bad({
              instructions: 'x',
              outputLabel: 'y',
              children: [],
              evaluationParams: [TurnParams.CONTENT],
              turnWindow,
            }),
          ),
      ),
    ).toEqual(['turn-window'])
  })

  test('the turnWindow message says what is allowed', () => {
    expect(
      () =>
        new ConversationalTaskNode({
          instructions: 'Summarise',
          outputLabel: 'Summary',
          children: [],
          evaluationParams: [TurnParams.CONTENT],
          turnWindow: [3, 1],
        }),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [turn-window] ConversationalTaskNode (instructions: "Summarise"): turnWindow must be [start, end], inclusive: two integers, each >= 0 to count from the first turn or < 0 to count from the end ([-2, -1] is the last two turns), with start <= end when both count from the same end; got [3,1]. For a single turn write [i, i].]
    `)
  })

  test.each([[[2, 2]], [[-2, -1]], [[0, -1]], [[-1, -1]], [[2, -1]], [[-3, 4]]])(
    'turnWindow %j is accepted: indices count from the start (>= 0) or the end (< 0)',
    (turnWindow) => {
      const node = new ConversationalTaskNode({
        instructions: 'Summarise',
        outputLabel: 'Summary',
        children: [],
        evaluationParams: [TurnParams.CONTENT],
        turnWindow: turnWindow as [number, number],
      })
      expect(node.turnWindow).toEqual(turnWindow)
    },
  )

  test('single-turn windows are allowed', () => {
    const node = new ConversationalTaskNode({
      instructions: 'Summarise',
      outputLabel: 'Summary',
      children: [],
      evaluationParams: [TurnParams.CONTENT],
      turnWindow: [2, 2],
    })
    expect(node.turnWindow).toEqual([2, 2])
  })

  test('a turnWindow needs a turn-level parameter to show', () => {
    expect(
      () =>
        new ConversationalBinaryJudgementNode({
          criteria: 'Is the scenario plausible?',
          children: [],
          evaluationParams: [TurnParams.SCENARIO],
          turnWindow: [0, 1],
        }),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [turn-window-without-turns] ConversationalBinaryJudgementNode (criteria: "Is the scenario plausible?"): turnWindow is set but evaluationParams names no turn-level parameter, so no turn would be shown. Add TurnParams.ROLE and TurnParams.CONTENT (or another turn-level parameter) to evaluationParams.]
    `)
  })

  test('a verdict has a score or a child, never both, and the score is an integer 0..10', () => {
    expect(() => new VerdictNode(bad({ verdict: true }))).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-score-or-child] VerdictNode (verdict: true): a VerdictNode needs a score (an integer 0..10 that ends the walk) or a child (a node or metric to continue with).]
    `)
    expect(
      () => new VerdictNode(bad({ verdict: true, score: 5, child: binary() })),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-score-or-child] VerdictNode (verdict: true): a VerdictNode takes either score or child, not both: remove one.]
    `)
    expect(() => new VerdictNode({ verdict: 'High', score: 11 })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-score] VerdictNode (verdict: "High"): Expected \`score\` to be an integer from 0 to 10 (a score of 7 gives the metric 0.7), got \`11\` (number).]
    `)
    expect(issuesOf(() => new VerdictNode({ verdict: 'High', score: 7.5 }))).toEqual(['verdict-score'])
    expect(issuesOf(() => new VerdictNode(bad({ verdict: 1, score: 1 })))).toEqual(['verdict'])
    expect(issuesOf(() => new VerdictNode(bad({ verdict: true, child: { name: 'x' } })))).toEqual(['verdict-child'])
  })

  test("a verdict's child metric must judge the same kind of test case as the DAG", () => {
    const conversational = bad<Metric<never>>({
      name: 'Relevancy',
      kind: 'conversational',
      threshold: 0.5,
      measure: async () => ({}),
    })
    expect(() => new VerdictNode({ verdict: true, child: conversational })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-metric-kind] VerdictNode (verdict: true): child metric "Relevancy" judges conversational test cases, but this VerdictNode belongs to a single-turn DAG. Use a single-turn metric here.]
    `)
  })
})

describe('graph rules are checked when the DeepAcyclicGraph is built', () => {
  test('rootNodes must be a non-empty array', () => {
    expect(() => new DeepAcyclicGraph({ rootNodes: [] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [root-nodes] DeepAcyclicGraph: rootNodes must be a non-empty array of nodes; got [].]
    `)
    expect(() => new DeepAcyclicGraph(bad({}))).toThrowError(/rootNodes must be a non-empty array/)
  })

  test('a binary judgement has exactly two verdicts, true and false', () => {
    const node = new BinaryJudgementNode({
      criteria: 'Is it polite?',
      evaluationParams: params,
      children: [yes(), new VerdictNode({ verdict: true, score: 5 }), new VerdictNode({ verdict: 'Maybe', score: 2 })],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [node] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [binary-verdicts] BinaryJudgementNode (criteria: "Is it polite?"): a binary judgement needs exactly two VerdictNode children, one with verdict true and one with verdict false; got true, true, "Maybe". Use a NonBinaryJudgementNode for string verdicts.]
    `)
    const oneVerdict = new BinaryJudgementNode({
      criteria: 'Is it polite?',
      evaluationParams: params,
      children: [yes()],
    })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [oneVerdict] }))).toEqual(['binary-verdicts'])
  })

  test('the binary-verdicts hint names the conversational classes for a conversational node', () => {
    const node = new ConversationalBinaryJudgementNode({
      criteria: 'Was it polite?',
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 10 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
        new ConversationalVerdictNode({ verdict: 'Partly', score: 5 }),
      ],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [node] })).toThrowError(
      'a binary judgement needs exactly two ConversationalVerdictNode children, one with verdict true and one with ' +
        'verdict false; got true, false, "Partly". Use a ConversationalNonBinaryJudgementNode for string verdicts.',
    )
  })

  test("a judgement's children are all verdicts", () => {
    const node = new BinaryJudgementNode({
      criteria: 'Is it polite?',
      evaluationParams: params,
      children: [no(), yes(), bad(binary('Nested?'))],
    })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [node] }))).toEqual([
      'judgement-children',
      'binary-verdicts',
    ])
  })

  test('a non-binary judgement has two or more distinct string verdicts', () => {
    const duplicate = new NonBinaryJudgementNode({
      criteria: 'Which tone?',
      evaluationParams: params,
      children: [
        new VerdictNode({ verdict: 'Warm', score: 10 }),
        new VerdictNode({ verdict: 'Warm', score: 5 }),
        yes(),
      ],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [duplicate] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (2 problems):
        1. [non-binary-verdict-type] NonBinaryJudgementNode (criteria: "Which tone?"): a non-binary judgement's verdicts must be strings; got true. Use a BinaryJudgementNode for true/false verdicts.
        2. [non-binary-duplicate-verdicts] NonBinaryJudgementNode (criteria: "Which tone?"): each verdict of a non-binary judgement must be distinct; "Warm" appears more than once.]
    `)
    const single = new NonBinaryJudgementNode({
      criteria: 'Which tone?',
      evaluationParams: params,
      children: [new VerdictNode({ verdict: 'Warm', score: 10 })],
    })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [single] }))).toEqual(['non-binary-verdicts'])
  })

  test('a TaskNode has at least one child and no verdict child', () => {
    const lonely = new TaskNode({
      instructions: 'Extract headings',
      outputLabel: 'Headings',
      evaluationParams: params,
      children: [],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [lonely] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [task-children] TaskNode (instructions: "Extract headings"): a TaskNode needs at least one child that reads its output (a judgement or another TaskNode).]
    `)
    const withVerdict = new TaskNode({
      instructions: 'Extract headings',
      outputLabel: 'Headings',
      evaluationParams: params,
      children: [bad(yes())],
    })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [withVerdict] }))).toEqual(['task-verdict-child'])
    // The hint names the classes of the node's own kind.
    const conversational = new ConversationalTaskNode({
      instructions: 'Summarize',
      outputLabel: 'Summary',
      evaluationParams: [TurnParams.CONTENT],
      children: [bad(new ConversationalVerdictNode({ verdict: true, score: 1 }))],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [conversational] })).toThrow(
      'Put a ConversationalBinaryJudgementNode or ConversationalNonBinaryJudgementNode between them.',
    )
  })

  test('a verdict is never a root', () => {
    expect(() => new DeepAcyclicGraph({ rootNodes: [yes()] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [verdict-root] VerdictNode (verdict: true): a VerdictNode cannot be a root: put it under a judgement node.]
    `)
  })

  test('a verdict cannot continue at another verdict', () => {
    const node = new BinaryJudgementNode({
      criteria: 'Ok?',
      evaluationParams: params,
      children: [no(), new VerdictNode({ verdict: true, child: bad(yes()) })],
    })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [node] }))).toEqual(['verdict-verdict-child'])
  })

  test('cycles are found, including through verdict children', () => {
    const loopBack = new VerdictNode({ verdict: true, child: binary('Placeholder?') })
    const judgement = new BinaryJudgementNode({
      criteria: 'Loop?',
      evaluationParams: params,
      children: [no(), loopBack],
    })
    // Close the loop the way only mutation can: the verdict's child becomes its own judgement.
    Object.defineProperty(loopBack, 'children', { value: [judgement] })
    expect(() => new DeepAcyclicGraph({ rootNodes: [judgement] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [cycle] BinaryJudgementNode (criteria: "Loop?"): the graph has a cycle: BinaryJudgementNode (criteria: "Loop?") → VerdictNode (verdict: true) → BinaryJudgementNode (criteria: "Loop?"). A DAG's edges must never lead back to a node.]
    `)
  })

  test('single-turn and conversational nodes are not mixed', () => {
    const conversational = new ConversationalBinaryJudgementNode({
      criteria: 'Polite?',
      evaluationParams: [TurnParams.CONTENT],
      children: [
        new ConversationalVerdictNode({ verdict: true, score: 1 }),
        new ConversationalVerdictNode({ verdict: false, score: 0 }),
      ],
    })
    const task = new TaskNode({
      instructions: 'Extract',
      outputLabel: 'Out',
      evaluationParams: params,
      children: [bad(conversational)],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [task] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [mixed-modes] DeepAcyclicGraph: mixes single-turn and Conversational* nodes; one DAG takes one family. For a DAGMetric (single-turn test cases), make these single-turn (TaskNode, BinaryJudgementNode, …): ConversationalBinaryJudgementNode (criteria: "Polite?"). For a ConversationalDAGMetric (conversations), make these Conversational*: TaskNode (instructions: "Extract").]
    `)
  })

  test('a Conversational* root over single-turn nodes names it as the node to change for a DAGMetric', () => {
    // The graph is built before the metric it goes to: the message says what to change for each metric.
    const polite = new BinaryJudgementNode({
      criteria: 'Is the summary polite?',
      children: [new VerdictNode({ verdict: false, score: 0 }), new VerdictNode({ verdict: true, score: 10 })],
    })
    const summarize = new ConversationalTaskNode({
      instructions: 'Summarize',
      outputLabel: 'Summary',
      evaluationParams: [TurnParams.CONTENT],
      children: [bad(polite)],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [summarize] })).toThrow(
      'For a DAGMetric (single-turn test cases), make these single-turn (TaskNode, BinaryJudgementNode, …): ' +
        'ConversationalTaskNode (instructions: "Summarize"). For a ConversationalDAGMetric (conversations), make ' +
        'these Conversational*: BinaryJudgementNode (criteria: "Is the summary polite?").',
    )
  })

  test('a verdict may belong to two judgements, but its value must fit each of them', () => {
    const shared = yes()
    const first = new BinaryJudgementNode({ criteria: 'First?', evaluationParams: params, children: [no(), shared] })
    const second = new BinaryJudgementNode({ criteria: 'Second?', evaluationParams: params, children: [no(), shared] })
    expect(() => new DeepAcyclicGraph({ rootNodes: [first, second] })).not.toThrow()

    const yesOption = new VerdictNode({ verdict: 'Yes', score: 10 })
    const tone = new NonBinaryJudgementNode({
      criteria: 'Tone?',
      evaluationParams: params,
      children: [yesOption, new VerdictNode({ verdict: 'No', score: 0 })],
    })
    const polite = new BinaryJudgementNode({
      criteria: 'Polite?',
      evaluationParams: params,
      children: [no(), yesOption],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [tone, polite] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [binary-verdicts] BinaryJudgementNode (criteria: "Polite?"): a binary judgement needs exactly two VerdictNode children, one with verdict true and one with verdict false; got false, "Yes". Use a NonBinaryJudgementNode for string verdicts.]
    `)
  })

  test('a node that would be shown nothing is rejected, with how to fix it', () => {
    const blind = new BinaryJudgementNode({ criteria: 'Is it polite?', children: [no(), yes()] })
    expect(() => new DeepAcyclicGraph({ rootNodes: [blind] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [node-without-input] BinaryJudgementNode (criteria: "Is it polite?"): would be shown nothing: it names no evaluationParams, has no TaskNode parent and is not under a verdict of a judgement (whose input it would then be shown). Add evaluationParams (e.g. [LLMTestCaseParams.ACTUAL_OUTPUT]) or list it among a TaskNode's children so it reads that task's output.]
    `)
  })

  test('a judgement under a verdict needs no input of its own: it is shown what the judgement above was shown', () => {
    const tone = new NonBinaryJudgementNode({
      criteria: 'Tone?',
      children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Cold', score: 0 })],
    })
    const polite = new BinaryJudgementNode({
      criteria: 'Polite?',
      children: [no(), new VerdictNode({ verdict: true, child: tone })],
    })
    const root = new BinaryJudgementNode({
      criteria: 'Relevant?',
      evaluationParams: params,
      children: [no(), new VerdictNode({ verdict: true, child: polite })],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [root] })).not.toThrow()
    // A TaskNode transforms what it is given; it does not borrow what a judgement above it was shown.
    const task = new TaskNode({ instructions: 'Extract the greeting', outputLabel: 'Greeting', children: [binary()] })
    const gate = new BinaryJudgementNode({
      criteria: 'Relevant?',
      evaluationParams: params,
      children: [no(), new VerdictNode({ verdict: true, child: task })],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [gate] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [node-without-input] TaskNode (instructions: "Extract the greeting"): would be shown nothing: it names no evaluationParams and has no TaskNode parent. Add evaluationParams (e.g. [LLMTestCaseParams.ACTUAL_OUTPUT]) or list it among a TaskNode's children so it reads that task's output.]
    `)
  })

  test('a node reached from judgements that are shown different input must name its own', () => {
    const shared = () => new BinaryJudgementNode({ criteria: 'Polite?', children: [no(), yes()] })
    const build = (secondParams: typeof params) => {
      const node = shared()
      const first = new BinaryJudgementNode({
        criteria: 'Accurate?',
        evaluationParams: params,
        children: [no(), new VerdictNode({ verdict: true, child: node })],
      })
      const second = new BinaryJudgementNode({
        criteria: 'Complete?',
        evaluationParams: secondParams,
        children: [new VerdictNode({ verdict: false, child: node }), yes()],
      })
      return () => new DeepAcyclicGraph({ rootNodes: [first, second] })
    }
    expect(build(params)).not.toThrow()
    expect(build([LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT])).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [inherited-input-ambiguous] BinaryJudgementNode (criteria: "Polite?"): has no input of its own and is reached through verdicts of judgements that are shown different input (BinaryJudgementNode (criteria: "Accurate?"); BinaryJudgementNode (criteria: "Complete?")), so what it would be shown depends on the path taken. Give it evaluationParams, or list it among a TaskNode's children so it reads that task's output.]
    `)
  })

  test('two TaskNode parents of one node may not share an outputLabel, or one output would hide the other', () => {
    const tone = new NonBinaryJudgementNode({
      criteria: 'Tone?',
      children: [new VerdictNode({ verdict: 'Warm', score: 10 }), new VerdictNode({ verdict: 'Cold', score: 0 })],
    })
    const task = (instructions: string, outputLabel: string) =>
      new TaskNode({ instructions, outputLabel, evaluationParams: params, children: [tone] })
    expect(
      () => new DeepAcyclicGraph({ rootNodes: [task('List the facts', 'Notes'), task('Describe the style', 'Notes')] }),
    ).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [duplicate-output-label] NonBinaryJudgementNode (criteria: "Tone?"): reads two TaskNode outputs labelled "Notes", from TaskNode (instructions: "List the facts") and TaskNode (instructions: "Describe the style"); the judge would see only one of them. Give each TaskNode its own outputLabel.]
    `)
    expect(
      () => new DeepAcyclicGraph({ rootNodes: [task('List the facts', 'Facts'), task('Describe the style', 'Style')] }),
    ).not.toThrow()
  })

  test('a root that is also a child is rejected, and so is a root listed twice', () => {
    const child = binary('Child?')
    const task = new TaskNode({
      instructions: 'Extract',
      outputLabel: 'Out',
      evaluationParams: params,
      children: [child],
    })
    expect(() => new DeepAcyclicGraph({ rootNodes: [task, child] })).toThrowErrorMatchingInlineSnapshot(`
      [DagValidationError: Invalid DAG (1 problem):
        1. [root-has-parent] BinaryJudgementNode (criteria: "Child?"): is listed in rootNodes but is also a child of TaskNode (instructions: "Extract"). Remove it from rootNodes: it runs when its parents let it.]
    `)
    const root = binary()
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [root, root] }))).toEqual(['root-duplicate'])
  })

  test('every problem in the graph is reported in one error', () => {
    const lonely = new TaskNode({ instructions: 'Extract', outputLabel: 'Out', children: [] })
    const odd = new NonBinaryJudgementNode({ criteria: 'Tone?', children: [yes()] })
    expect(issuesOf(() => new DeepAcyclicGraph({ rootNodes: [lonely, odd, bad(no())] }))).toEqual([
      'task-children',
      'node-without-input',
      'non-binary-verdict-type',
      'non-binary-verdicts',
      'node-without-input',
      'verdict-root',
    ])
  })
})

describe('metric options', () => {
  const judge = scriptedJudge({ rules: [] })

  test('bad options are listed together', () => {
    expect(
      () => new DAGMetric(bad({ name: '', dag: {}, threshold: 2, strictMode: 'yes', model: judge })),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigurationError: Invalid options for DAGMetric "":
        - Expected \`name\` to be a non-empty string that identifies the metric in reports, got '' (string).
        - Expected \`threshold\` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got \`2\` (number).
        - Expected \`strictMode\` to be true or false, got 'yes' (string).
        - Expected \`dag\` to be a graph built with \`new DeepAcyclicGraph({ rootNodes: [...] })\`, got \`{}\` (object).]
    `)
  })

  test('a DAG of the wrong mode is rejected with the metric to use instead', () => {
    const dag = new DeepAcyclicGraph({ rootNodes: [binary()] })
    expect(
      () => new ConversationalDAGMetric(bad({ name: 'X', dag, model: judge })),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigurationError: Invalid options for ConversationalDAGMetric "X":
        - Expected \`dag\` to be a graph of Conversational* nodes; for a graph of single-turn nodes use DAGMetric, got an object with keys \`rootNodes\`, \`mode\` (DeepAcyclicGraph).]
    `)
  })
})
