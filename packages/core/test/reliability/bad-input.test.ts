import { expect, test } from 'vitest'
import {
  BinaryJudgementNode,
  ConversationalBinaryJudgementNode,
  ConversationalDAGMetric,
  ConversationalTaskNode,
  ConversationalVerdictNode,
  ConversationRelevancyMetric,
  DAGMetric,
  DeepAcyclicGraph,
  evaluate,
  GEval,
  type Metric,
  NonBinaryJudgementNode,
  OpenAIJudge,
  TaskNode,
  VerdictNode,
} from '../../src/index.js'
import { createJudgeRuntime } from '../../src/runtime.js'
import { scriptedJudge } from '../../src/testing.js'

// A JavaScript user's view: no type checker stops these, so every one must fail with a message that says what was
// wrong and how to fix it. One table, so the whole catalogue is reviewed (and pinned) in one place.
const bad = <T = never>(value: unknown) => value as T
const judge = scriptedJudge({ rules: [] })
const params = ['actualOutput'] as const
const yes = () => new VerdictNode({ verdict: true, score: 10 })
const no = () => new VerdictNode({ verdict: false, score: 0 })
const okBinary = (criteria = 'Ok?') =>
  new BinaryJudgementNode({ criteria, evaluationParams: params, children: [no(), yes()] })
const okDag = () => new DeepAcyclicGraph({ rootNodes: [okBinary()] })
const toolDag = () =>
  new DeepAcyclicGraph({
    rootNodes: [
      new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: ['input', 'toolsCalled'], children: [no(), yes()] }),
    ],
  })
const okMetric = () => new DAGMetric({ name: 'Format', dag: okDag(), model: judge })
const singleTurnMeasure = (testCase: unknown) =>
  new DAGMetric({ name: 'Tools', dag: toolDag(), model: judge }).measure(bad(testCase))
const conversationalMeasure = (testCase: unknown) =>
  new ConversationalDAGMetric({ name: 'Polite', dag: conversationalDag(), model: judge }).measure(bad(testCase))
const conversationalVerdicts = () => [
  new ConversationalVerdictNode({ verdict: true, score: 10 }),
  new ConversationalVerdictNode({ verdict: false, score: 0 }),
]
const conversationalDag = (turnWindow?: [number, number], evaluationParams: string[] = ['role', 'content']) =>
  new DeepAcyclicGraph({
    rootNodes: [
      new ConversationalBinaryJudgementNode({
        criteria: 'Polite?',
        evaluationParams: bad(evaluationParams),
        turnWindow,
        children: conversationalVerdicts(),
      }),
    ],
  })
const conversationalMetric: Metric<never> = bad({
  name: 'Relevancy',
  kind: 'conversational',
  threshold: 0.5,
  measure: async () => ({}),
})

const catalogue: Record<string, () => unknown> = {
  'node without options': () => new TaskNode(bad(undefined)),
  'two TaskNode parents with the same outputLabel': () => {
    const judged = okBinary()
    const task = (instructions: string) =>
      new TaskNode({ instructions, outputLabel: 'Summary', evaluationParams: ['input'], children: [judged] })
    return new DeepAcyclicGraph({ rootNodes: [task('Summarise the input'), task('Summarise it again')] })
  },
  'TaskNode with blank instructions': () => new TaskNode(bad({ instructions: '  ', outputLabel: 'Out', children: [] })),
  'TaskNode without outputLabel': () => new TaskNode(bad({ instructions: 'Extract', children: [] })),
  'children that is not an array': () =>
    new TaskNode(bad({ instructions: 'Extract', outputLabel: 'Out', children: okBinary() })),
  'judgement without criteria': () => new BinaryJudgementNode(bad({ children: [] })),
  'judgement with a misspelt option': () => new BinaryJudgementNode(bad({ critera: 'Ok?', children: [] })),
  'single-turn node given a turn window': () =>
    new TaskNode(bad({ instructions: 'Extract', outputLabel: 'Out', turnWindow: [0, 1] })),
  'evaluationParams from the other enum': () =>
    new BinaryJudgementNode(bad({ criteria: 'Ok?', children: [], evaluationParams: ['content'] })),
  'evaluationParams with a typo': () =>
    new BinaryJudgementNode(bad({ criteria: 'Ok?', children: [], evaluationParams: ['actual_output'] })),
  'turnWindow reversed': () => conversationalDag([4, 2]),
  'turnWindow from the end, reversed': () => conversationalDag([-1, -3]),
  'turnWindow with a fraction': () => conversationalDag([0, 1.5]),
  'turnWindow without turn-level params': () => conversationalDag([0, 1], ['scenario']),
  'verdict with neither score nor child': () => new VerdictNode(bad({ verdict: true })),
  'verdict with both score and child': () => new VerdictNode(bad({ verdict: true, score: 1, child: okBinary() })),
  'verdict score above 10': () => new VerdictNode({ verdict: 'High', score: 11 }),
  'verdict score not an integer': () => new VerdictNode({ verdict: 'High', score: 2.5 }),
  'verdict that is a number': () => new VerdictNode(bad({ verdict: 1, score: 1 })),
  'verdict child that is neither node nor metric': () => new VerdictNode(bad({ verdict: true, child: 'next' })),
  'conversational metric under a single-turn verdict': () =>
    new VerdictNode({ verdict: true, child: conversationalMetric }),
  'empty rootNodes': () => new DeepAcyclicGraph({ rootNodes: [] }),
  'binary judgement with three verdicts': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new BinaryJudgementNode({ criteria: 'Ok?', evaluationParams: params, children: [yes(), no(), yes()] }),
      ],
    }),
  'non-binary judgement with duplicate verdicts': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new NonBinaryJudgementNode({
          criteria: 'Tone?',
          evaluationParams: params,
          children: [new VerdictNode({ verdict: 'Warm', score: 9 }), new VerdictNode({ verdict: 'Warm', score: 3 })],
        }),
      ],
    }),
  'non-binary judgement with one verdict': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new NonBinaryJudgementNode({
          criteria: 'Tone?',
          evaluationParams: params,
          children: [new VerdictNode({ verdict: 'Warm', score: 9 })],
        }),
      ],
    }),
  'TaskNode without children': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new TaskNode({ instructions: 'Extract', outputLabel: 'Out', evaluationParams: params, children: [] }),
      ],
    }),
  'TaskNode with a verdict child': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new TaskNode({ instructions: 'Extract', outputLabel: 'Out', evaluationParams: params, children: [bad(yes())] }),
      ],
    }),
  'verdict as a root': () => new DeepAcyclicGraph({ rootNodes: [bad(yes())] }),
  'mixed single-turn and conversational nodes': () =>
    new DeepAcyclicGraph({
      rootNodes: [
        new TaskNode({
          instructions: 'Extract',
          outputLabel: 'Out',
          evaluationParams: params,
          children: [
            bad(new ConversationalBinaryJudgementNode({ criteria: 'Polite?', children: conversationalVerdicts() })),
          ],
        }),
      ],
    }),
  'a string verdict shared with a binary judgement': () => {
    const shared = new VerdictNode({ verdict: 'Warm', score: 10 })
    return new DeepAcyclicGraph({
      rootNodes: [
        new NonBinaryJudgementNode({
          criteria: 'Tone?',
          evaluationParams: params,
          children: [shared, new VerdictNode({ verdict: 'Cold', score: 0 })],
        }),
        new BinaryJudgementNode({ criteria: 'B?', evaluationParams: params, children: [no(), shared] }),
      ],
    })
  },
  'addVerdict with both score and then': () =>
    new BinaryJudgementNode({ criteria: 'A?', evaluationParams: params }).addVerdict(
      true,
      bad({ score: 1, then: okBinary('B?') }),
    ),
  'addVerdict with neither score nor then': () =>
    new NonBinaryJudgementNode({ criteria: 'Tone?', evaluationParams: params }).addVerdict('Warm', bad({})),
  'judgement that is shown nothing': () =>
    new DeepAcyclicGraph({ rootNodes: [new BinaryJudgementNode({ criteria: 'Polite?', children: [no(), yes()] })] }),
  'root that is also a child': () => {
    const child = okBinary('Child?')
    const task = new TaskNode({
      instructions: 'Extract',
      outputLabel: 'Out',
      evaluationParams: params,
      children: [child],
    })
    return new DeepAcyclicGraph({ rootNodes: [task, child] })
  },
  'DAG JSON with an unknown node type': () =>
    DeepAcyclicGraph.fromJSON({
      format: 'judgetree-dag',
      version: 1,
      roots: ['a'],
      nodes: { a: { type: 'Judge', criteria: 'x' } },
    }),
  'DAG JSON that is not JSON': () => DeepAcyclicGraph.fromJSON('{"roots": ['),
  'DAGMetric options all wrong': () =>
    new DAGMetric(bad({ name: '', dag: {}, threshold: 2, strictMode: 'yes', model: judge })),
  'DAGMetric with a conversational DAG': () =>
    new DAGMetric(bad({ name: 'X', dag: conversationalDag(), model: judge })),
  'DAGMetric with a snake_case option': () =>
    new DAGMetric(bad({ name: 'X', dag: okDag(), model: judge, include_reason: false })),
  'model that is not a name or a judge': () => new DAGMetric(bad({ name: 'X', dag: okDag(), model: 42 })),
  'GEval with criteria and steps': () =>
    new GEval(
      bad({ name: 'G', criteria: 'Correct?', evaluationSteps: ['Check'], evaluationParams: params, model: judge }),
    ),
  'GEval with overlapping rubric ranges': () =>
    new GEval({
      name: 'G',
      criteria: 'Correct?',
      evaluationParams: params,
      model: judge,
      rubric: [
        { scoreRange: [0, 5], expectedOutcome: 'Wrong' },
        { scoreRange: [5, 10], expectedOutcome: 'Right' },
      ],
    }),
  'relevancy windowSize of 0': () => new ConversationRelevancyMetric({ windowSize: 0, model: judge }),
  'OpenAIJudge timeout of 0': () => new OpenAIJudge({ timeoutMs: 0 }),
  'OpenAIJudge timeout past the longest timer (2^31 ms)': () => new OpenAIJudge({ timeoutMs: 2 ** 31 }),
  'OpenAIJudge given null': () => new OpenAIJudge(bad(null)),
  'OpenAIJudge base URL that is not a URL': () => new OpenAIJudge({ baseURL: 'not a url' }),
  'OpenAIJudge base URL with another protocol': () => new OpenAIJudge({ baseURL: 'ftp://example.com/v1' }),
  'a runtime given null': () => createJudgeRuntime(bad(null)),
  'a runtime with a coordinator URL that is not a URL': () => createJudgeRuntime({ coordinatorUrl: 'garbage' }),
  'a runtime with 1e-300 requests per minute (a spacing no timer can wait)': () =>
    createJudgeRuntime({ requestsPerMinute: 1e-300 }),
  'a cache directory with a NUL in it': () => createJudgeRuntime({ cacheDir: 'a\0b' }),
  'evaluate() given null options': () => evaluate([{ input: 'hi' }], [okMetric()], bad(null)),
  'evaluate() given a string as signal': () =>
    evaluate([{ input: 'hi' }], [okMetric()], { signal: bad('x'), summary: false, progress: false }),
  'measure() given null options': () =>
    new DAGMetric({ name: 'Format', dag: okDag(), model: judge }).measure({ input: 'hi' }, bad(null)),
  'measure() given a string as signal': () =>
    new DAGMetric({ name: 'Format', dag: okDag(), model: judge }).measure({ input: 'hi' }, { signal: bad('x') }),
  'a circular tool output': () => {
    const output: Record<string, unknown> = { rows: [] }
    output.self = { back: output }
    return conversationalMeasure({
      turns: [{ role: 'assistant', content: 'ok', toolsCalled: [{ name: 'db', output }] }],
    })
  },
  'a BigInt in a tool parameter': () =>
    conversationalMeasure({
      turns: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'ok', toolsCalled: [{ name: 'pay', inputParameters: { cents: 10n } }] },
      ],
    }),
  'a tool output nested 100,000 levels deep': () => {
    let output: unknown = 'leaf'
    for (let level = 0; level < 100_000; level++) output = { next: output }
    return singleTurnMeasure({ input: 'hi', actualOutput: 'ok', toolsCalled: [{ name: 'walk', output }] })
  },
  'metadata with a throwing getter': () =>
    singleTurnMeasure({
      input: 'hi',
      metadata: {
        get secret() {
          throw new Error('not loaded')
        },
      },
    }),
  'a tool output whose toJSON throws': () =>
    singleTurnMeasure({
      input: 'hi',
      expectedTools: [
        {
          name: 'x',
          output: {
            toJSON: () => {
              throw new Error('no JSON here')
            },
          },
        },
      ],
    }),
  'a conversation given to DAGMetric': () =>
    new DAGMetric({ name: 'Format', dag: okDag(), model: judge }).measure(
      bad({ turns: [{ role: 'user', content: 'hi' }] }),
    ),
  'a single-turn case given to ConversationalDAGMetric': () =>
    new ConversationalDAGMetric({ name: 'Polite', dag: conversationalDag(), model: judge }).measure(
      bad({ input: 'hi' }),
    ),
  'a conversation without turns': () =>
    new ConversationalDAGMetric({ name: 'Polite', dag: conversationalDag(), model: judge }).measure({ turns: [] }),
  'a turn with an unknown role': () =>
    new ConversationalDAGMetric({ name: 'Polite', dag: conversationalDag(), model: judge }).measure(
      bad({ turns: [{ role: 'system', content: 'You are a bot' }] }),
    ),
  'a test case without the parameter a node reads': () =>
    new DAGMetric({ name: 'Format', dag: okDag(), model: judge }).measure({ input: 'Summarise this' }),
  'a turn window past the conversation': () =>
    new ConversationalDAGMetric({ name: 'Polite', dag: conversationalDag([0, 5]), model: judge }).measure({
      turns: [{ role: 'user', content: 'hi' }],
    }),
  'a conversation without the scenario a node reads': () =>
    new ConversationalDAGMetric({
      name: 'Scenario',
      dag: new DeepAcyclicGraph({
        rootNodes: [
          new ConversationalTaskNode({
            instructions: 'Restate the scenario',
            outputLabel: 'Scenario',
            evaluationParams: ['scenario'],
            children: [
              new ConversationalBinaryJudgementNode({ criteria: 'Plausible?', children: conversationalVerdicts() }),
            ],
          }),
        ],
      }),
      model: judge,
    }).measure({ turns: [{ role: 'user', content: 'hi' }] }),
}

async function messageOf(build: () => unknown): Promise<string> {
  try {
    const value = await build()
    const error = (value as { error?: Error } | undefined)?.error
    if (error) return `result error ${(error as { code?: string }).code}: ${error.message}`
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
  return 'NO ERROR'
}

test('every bad input fails with a message that names what is wrong and how to fix it', async () => {
  const messages: Record<string, string> = {}
  for (const [name, build] of Object.entries(catalogue)) messages[name] = await messageOf(build)
  expect(Object.keys(messages).length).toBeGreaterThanOrEqual(30)
  expect(Object.values(messages).filter((message) => message === 'NO ERROR')).toEqual([])
  expect(messages).toMatchInlineSnapshot(`
    {
      "DAG JSON that is not JSON": "DagValidationError: Invalid DAG (1 problem):
      1. [json-syntax] JSON: is not valid JSON: Unexpected end of JSON input",
      "DAG JSON with an unknown node type": "DagValidationError: Invalid DAG (1 problem):
      1. [json-unknown-type] node "a": has type "Judge", which is not a node kind; use one of TaskNode, BinaryJudgementNode, NonBinaryJudgementNode, VerdictNode, ConversationalTaskNode, ConversationalBinaryJudgementNode, ConversationalNonBinaryJudgementNode, ConversationalVerdictNode, ToolCallNode, ConversationalToolCallNode, CodeNode, ConversationalCodeNode.",
      "DAGMetric options all wrong": "ConfigurationError: Invalid options for DAGMetric "":
      - Expected \`name\` to be a non-empty string that identifies the metric in reports, got '' (string).
      - Expected \`threshold\` to be a number from 0 to 1 (a score of 0.7 passes a threshold of 0.7), got \`2\` (number).
      - Expected \`strictMode\` to be true or false, got 'yes' (string).
      - Expected \`dag\` to be a graph built with \`new DeepAcyclicGraph({ rootNodes: [...] })\`, got \`{}\` (object).",
      "DAGMetric with a conversational DAG": "ConfigurationError: Invalid options for DAGMetric "X":
      - Expected \`dag\` to be a graph of single-turn nodes (TaskNode, BinaryJudgementNode, …); for a graph of Conversational* nodes use ConversationalDAGMetric, got an object with keys \`rootNodes\`, \`mode\` (DeepAcyclicGraph).",
      "DAGMetric with a snake_case option": "ConfigurationError: Invalid options for DAGMetric "X":
      - unknown option \`include_reason\`; did you mean \`includeReason\`?",
      "GEval with criteria and steps": "ConfigurationError: Invalid options for GEval "G":
      - give either criteria or evaluationSteps, not both: keep evaluationSteps to fix the steps yourself, or criteria to have them generated.",
      "GEval with overlapping rubric ranges": "ConfigurationError: Invalid options for GEval "G":
      - rubric ranges [0, 5] and [5, 10] overlap at 5; make each range end before the next one starts, e.g. [0, 3] and [4, 10].",
      "OpenAIJudge base URL that is not a URL": "ConfigurationError: baseURL is not an http(s) URL: got "not a url". Set baseURL to the API root of an OpenAI-compatible server, such as \`http://localhost:11434/v1\`.",
      "OpenAIJudge base URL with another protocol": "ConfigurationError: baseURL is not an http(s) URL: got "ftp://example.com/v1". Set baseURL to the API root of an OpenAI-compatible server, such as \`http://localhost:11434/v1\`.",
      "OpenAIJudge given null": "ConfigurationError: Invalid options for OpenAIJudge:
      - Expected \`options\` to be an options object (or nothing), got \`null\` (null).",
      "OpenAIJudge timeout of 0": "ConfigurationError: Invalid options for OpenAIJudge:
      - Expected \`timeoutMs\` to be a whole number of milliseconds from 1 to 2147483647 (2^31−1, the longest timer Node can set, about 24.8 days), got \`0\` (number).",
      "OpenAIJudge timeout past the longest timer (2^31 ms)": "ConfigurationError: Invalid options for OpenAIJudge:
      - Expected \`timeoutMs\` to be a whole number of milliseconds from 1 to 2147483647 (2^31−1, the longest timer Node can set, about 24.8 days), got \`2147483648\` (number).",
      "TaskNode with a verdict child": "DagValidationError: Invalid DAG (1 problem):
      1. [task-verdict-child] TaskNode (instructions: "Extract"): a TaskNode cannot have a VerdictNode child: its output is data, not a decision. Put a BinaryJudgementNode or NonBinaryJudgementNode between them.",
      "TaskNode with blank instructions": "DagValidationError: Invalid DAG (1 problem):
      1. [instructions] TaskNode (instructions: ""): Expected \`instructions\` to be a non-empty string (what the judge should do with the data), got '  ' (string).",
      "TaskNode without children": "DagValidationError: Invalid DAG (1 problem):
      1. [task-children] TaskNode (instructions: "Extract"): a TaskNode needs at least one child that reads its output (a judgement or another TaskNode).",
      "TaskNode without outputLabel": "DagValidationError: Invalid DAG (1 problem):
      1. [outputLabel] TaskNode (instructions: "Extract"): Expected \`outputLabel\` to be a non-empty string (the name children see the output under), got \`undefined\` (undefined).",
      "a BigInt in a tool parameter": "result error TEST_CASE_INVALID: The metric "Polite" cannot show this test case to the judge, which sees it as JSON:
      - turns.1.toolsCalled.0.inputParameters.cents is a BigInt (10n), which JSON cannot show: convert it with String() or Number().",
      "a cache directory with a NUL in it": "ConfigurationError: Invalid options for createJudgeRuntime:
      - Expected \`cacheDir\` to be a directory path (without NUL characters), got 'a\\u0000b' (string).",
      "a circular tool output": "result error TEST_CASE_INVALID: The metric "Polite" cannot show this test case to the judge, which sees it as JSON:
      - turns.0.toolsCalled.0.output.self.back is circular: it contains itself, so it cannot be shown as JSON.",
      "a conversation given to DAGMetric": "result error TEST_CASE_INVALID: The metric "Format" is a DAGMetric, which judges single-turn test cases ({ input, actualOutput }), but it was given a conversation ({ turns }). Use ConversationalDAGMetric with Conversational* nodes for conversations.",
      "a conversation without the scenario a node reads": "result error TEST_CASE_PARAM_MISSING: The test case has no 'scenario' but the metric "Scenario" needs it (needed by ConversationalTaskNode (instructions: "Restate the scenario")). Add 'scenario' to the test case, or remove it from the metric's evaluationParams.",
      "a conversation without turns": "result error TEST_CASE_INVALID: The metric "Polite" needs a conversational test case ({ turns: [...] }), but the test case is invalid:
      - turns: a conversation needs at least one turn",
      "a runtime given null": "ConfigurationError: Invalid options for createJudgeRuntime:
      - Expected \`options\` to be an options object (or nothing), got \`null\` (null).",
      "a runtime with 1e-300 requests per minute (a spacing no timer can wait)": "ConfigurationError: Invalid options for createJudgeRuntime:
      - Expected \`requestsPerMinute\` to be a number of requests per minute from 0.0000279 (one per 24.8 days) up, got \`1e-300\` (number).",
      "a runtime with a coordinator URL that is not a URL": "ConfigurationError: Invalid options for createJudgeRuntime:
      - Expected \`coordinatorUrl\` to be the coordinator's http:// URL, as startCoordinator() gives it (e.g. \`http://127.0.0.1:4100\`), got 'garbage' (string).",
      "a single-turn case given to ConversationalDAGMetric": "result error TEST_CASE_INVALID: The metric "Polite" is a ConversationalDAGMetric, which judges conversations ({ turns: [...] }), but it was given a single-turn test case ({ input, ... }). Use DAGMetric with single-turn nodes for those.",
      "a string verdict shared with a binary judgement": "DagValidationError: Invalid DAG (1 problem):
      1. [binary-verdicts] BinaryJudgementNode (criteria: "B?"): a binary judgement needs exactly two VerdictNode children, one with verdict true and one with verdict false; got false, "Warm". Use a NonBinaryJudgementNode for string verdicts.",
      "a test case without the parameter a node reads": "result error TEST_CASE_PARAM_MISSING: The test case has no 'actualOutput' but the metric "Format" needs it (needed by BinaryJudgementNode (criteria: "Ok?")). Add 'actualOutput' to the test case, or remove it from the metric's evaluationParams.",
      "a tool output nested 100,000 levels deep": "result error TEST_CASE_INVALID: The metric "Tools" cannot show this test case to the judge, which sees it as JSON:
      - toolsCalled.0.output is nested more than 200 levels deep; pass a summary of it instead.",
      "a tool output whose toJSON throws": "result error TEST_CASE_INVALID: The metric "Tools" cannot show this test case to the judge, which sees it as JSON:
      - expectedTools.0.output.toJSON() threw: no JSON here",
      "a turn window past the conversation": "result error TURN_WINDOW_OUT_OF_RANGE: ConversationalBinaryJudgementNode (criteria: "Polite?") failed: its turnWindow [0, 5] does not fit this conversation of 1 turn (there is no turn 5). The turns are 0 to 0, or -1 to -1 counting from the end: use a window inside them, or drop turnWindow to read every turn.",
      "a turn with an unknown role": "result error TEST_CASE_INVALID: The metric "Polite" needs a conversational test case ({ turns: [...] }), but the test case is invalid:
      - turns.0.role: Invalid option: expected one of "user"|"assistant"",
      "addVerdict with both score and then": "DagValidationError: Invalid DAG (1 problem):
      1. [add-verdict-outcome] BinaryJudgementNode (criteria: "A?"): addVerdict(true) takes either { score } or { then }, not both: remove one.",
      "addVerdict with neither score nor then": "DagValidationError: Invalid DAG (1 problem):
      1. [add-verdict-outcome] NonBinaryJudgementNode (criteria: "Tone?"): addVerdict("Warm") needs a second argument { score } (an integer 0..10 that ends the walk) or { then } (a node or metric to continue with); got {}.",
      "binary judgement with three verdicts": "DagValidationError: Invalid DAG (1 problem):
      1. [binary-verdicts] BinaryJudgementNode (criteria: "Ok?"): a binary judgement needs exactly two VerdictNode children, one with verdict true and one with verdict false; got true, false, true. Use a NonBinaryJudgementNode for string verdicts.",
      "children that is not an array": "DagValidationError: Invalid DAG (1 problem):
      1. [children] TaskNode (instructions: "Extract"): Expected \`children\` to be an array of nodes, got an object with keys \`kind\`, \`mode\`, \`canBeRoot\`, \`step\`, \`label\`, … (BinaryJudgementNode).",
      "conversational metric under a single-turn verdict": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-metric-kind] VerdictNode (verdict: true): child metric "Relevancy" judges conversational test cases, but this VerdictNode belongs to a single-turn DAG. Use a single-turn metric here.",
      "empty rootNodes": "DagValidationError: Invalid DAG (1 problem):
      1. [root-nodes] DeepAcyclicGraph: rootNodes must be a non-empty array of nodes; got [].",
      "evaluate() given a string as signal": "ConfigurationError: Invalid evaluate() arguments:
      - Expected \`signal\` to be an AbortSignal (such as controller.signal or AbortSignal.timeout(30_000)), got 'x' (string).",
      "evaluate() given null options": "ConfigurationError: Invalid evaluate() arguments:
      - Expected \`options\` to be an object (or left out), got \`null\` (null).",
      "evaluationParams from the other enum": "DagValidationError: Invalid DAG (1 problem):
      1. [evaluation-params] BinaryJudgementNode (criteria: "Ok?"): evaluationParams contains "content", which is one of TurnParams; this node needs LLMTestCaseParams.",
      "evaluationParams with a typo": "DagValidationError: Invalid DAG (1 problem):
      1. [evaluation-params] BinaryJudgementNode (criteria: "Ok?"): evaluationParams contains "actual_output", which is not one of LLMTestCaseParams. Did you mean "actualOutput"?",
      "judgement that is shown nothing": "DagValidationError: Invalid DAG (1 problem):
      1. [node-without-input] BinaryJudgementNode (criteria: "Polite?"): would be shown nothing: it names no evaluationParams, has no TaskNode parent and is not under a verdict of a judgement (whose input it would then be shown). Add evaluationParams (e.g. [LLMTestCaseParams.ACTUAL_OUTPUT]) or list it among a TaskNode's children so it reads that task's output.",
      "judgement with a misspelt option": "DagValidationError: Invalid DAG (2 problems):
      1. [unknown-option] BinaryJudgementNode: unknown option \`critera\`; did you mean \`criteria\`?
      2. [criteria] BinaryJudgementNode: Expected \`criteria\` to be a non-empty string (the question the judge answers), got \`undefined\` (undefined).",
      "judgement without criteria": "DagValidationError: Invalid DAG (1 problem):
      1. [criteria] BinaryJudgementNode: Expected \`criteria\` to be a non-empty string (the question the judge answers), got \`undefined\` (undefined).",
      "measure() given a string as signal": "result error CONFIGURATION_INVALID: Invalid options for DAGMetric "Format".measure(testCase, options):
      - Expected \`signal\` to be an AbortSignal (such as controller.signal or AbortSignal.timeout(30_000)), got 'x' (string).",
      "measure() given null options": "result error CONFIGURATION_INVALID: Invalid options for DAGMetric "Format".measure(testCase, options):
      - Expected \`options\` to be an options object ({ signal, trials, aggregate }) or nothing, got \`null\` (null).",
      "metadata with a throwing getter": "result error TEST_CASE_INVALID: The metric "Tools" could not read the test case:
      - metadata.secret could not be read (not loaded); pass plain data instead.",
      "mixed single-turn and conversational nodes": "DagValidationError: Invalid DAG (1 problem):
      1. [mixed-modes] DeepAcyclicGraph: mixes single-turn and Conversational* nodes; one DAG takes one family. For a DAGMetric (single-turn test cases), make these single-turn (TaskNode, BinaryJudgementNode, …): ConversationalBinaryJudgementNode (criteria: "Polite?"). For a ConversationalDAGMetric (conversations), make these Conversational*: TaskNode (instructions: "Extract").",
      "model that is not a name or a judge": "ConfigurationError: Invalid options for DAGMetric "X":
      - Expected \`model\` to be a model name such as 'gpt-4.1', an object implementing JudgeModel ({ name: string, generate(request) }), or undefined for the default judge; got \`42\` (number).",
      "node without options": "DagValidationError: Invalid DAG (1 problem):
      1. [options] TaskNode: Expected \`options\` to be an options object (new TaskNode(options)), got \`undefined\` (undefined).",
      "non-binary judgement with duplicate verdicts": "DagValidationError: Invalid DAG (1 problem):
      1. [non-binary-duplicate-verdicts] NonBinaryJudgementNode (criteria: "Tone?"): each verdict of a non-binary judgement must be distinct; "Warm" appears more than once.",
      "non-binary judgement with one verdict": "DagValidationError: Invalid DAG (1 problem):
      1. [non-binary-verdicts] NonBinaryJudgementNode (criteria: "Tone?"): a non-binary judgement needs at least two VerdictNode children (the options to choose from); got 1.",
      "relevancy windowSize of 0": "ConfigurationError: Invalid options for ConversationRelevancyMetric "Conversation Relevancy":
      - Expected \`windowSize\` to be a whole number from 1 and up (how many exchanges each judgement reads), got \`0\` (number).",
      "root that is also a child": "DagValidationError: Invalid DAG (1 problem):
      1. [root-has-parent] BinaryJudgementNode (criteria: "Child?"): is listed in rootNodes but is also a child of TaskNode (instructions: "Extract"). Remove it from rootNodes: it runs when its parents let it.",
      "single-turn node given a turn window": "DagValidationError: Invalid DAG (1 problem):
      1. [unknown-option] TaskNode (instructions: "Extract"): unknown option \`turnWindow\`; the options are \`instructions\`, \`outputLabel\`, \`children\`, \`label\`, \`evaluationParams\`.",
      "turnWindow from the end, reversed": "DagValidationError: Invalid DAG (1 problem):
      1. [turn-window] ConversationalBinaryJudgementNode (criteria: "Polite?"): turnWindow must be [start, end], inclusive: two integers, each >= 0 to count from the first turn or < 0 to count from the end ([-2, -1] is the last two turns), with start <= end when both count from the same end; got [-1,-3]. For a single turn write [i, i].",
      "turnWindow reversed": "DagValidationError: Invalid DAG (1 problem):
      1. [turn-window] ConversationalBinaryJudgementNode (criteria: "Polite?"): turnWindow must be [start, end], inclusive: two integers, each >= 0 to count from the first turn or < 0 to count from the end ([-2, -1] is the last two turns), with start <= end when both count from the same end; got [4,2]. For a single turn write [i, i].",
      "turnWindow with a fraction": "DagValidationError: Invalid DAG (1 problem):
      1. [turn-window] ConversationalBinaryJudgementNode (criteria: "Polite?"): turnWindow must be [start, end], inclusive: two integers, each >= 0 to count from the first turn or < 0 to count from the end ([-2, -1] is the last two turns), with start <= end when both count from the same end; got [0,1.5]. For a single turn write [i, i].",
      "turnWindow without turn-level params": "DagValidationError: Invalid DAG (1 problem):
      1. [turn-window-without-turns] ConversationalBinaryJudgementNode (criteria: "Polite?"): turnWindow is set but evaluationParams names no turn-level parameter, so no turn would be shown. Add TurnParams.ROLE and TurnParams.CONTENT (or another turn-level parameter) to evaluationParams.",
      "two TaskNode parents with the same outputLabel": "DagValidationError: Invalid DAG (1 problem):
      1. [duplicate-output-label] BinaryJudgementNode (criteria: "Ok?"): reads two TaskNode outputs labelled "Summary", from TaskNode (instructions: "Summarise the input") and TaskNode (instructions: "Summarise it again"); the judge would see only one of them. Give each TaskNode its own outputLabel.",
      "verdict as a root": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-root] VerdictNode (verdict: true): a VerdictNode cannot be a root: put it under a judgement node.",
      "verdict child that is neither node nor metric": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-child] VerdictNode (verdict: true): child must be a DAG node or a metric; got "next".",
      "verdict score above 10": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-score] VerdictNode (verdict: "High"): Expected \`score\` to be an integer from 0 to 10 (a score of 7 gives the metric 0.7), got \`11\` (number).",
      "verdict score not an integer": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-score] VerdictNode (verdict: "High"): Expected \`score\` to be an integer from 0 to 10 (a score of 7 gives the metric 0.7), got \`2.5\` (number).",
      "verdict that is a number": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict] VerdictNode (verdict: 1): Expected \`verdict\` to be a boolean (under a binary judgement) or a non-empty string, got \`1\` (number).",
      "verdict with both score and child": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-score-or-child] VerdictNode (verdict: true): a VerdictNode takes either score or child, not both: remove one.",
      "verdict with neither score nor child": "DagValidationError: Invalid DAG (1 problem):
      1. [verdict-score-or-child] VerdictNode (verdict: true): a VerdictNode needs a score (an integer 0..10 that ends the walk) or a child (a node or metric to continue with).",
    }
  `)
})
