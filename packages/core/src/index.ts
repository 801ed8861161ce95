// @judgetree/core: the public surface. Everything exported is listed by name so a change shows in a diff. The
// judge plumbing (runtime, cache modes, coordinator) is its own entry, @judgetree/core/runtime.

export {
  type CalibrateOptions,
  type Calibration,
  type CalibrationCase,
  type CalibrationDisagreement,
  type CalibrationError,
  calibrate,
  type SuggestedThreshold,
} from './calibrate/calibrate.js'
export type { JurorCalibration } from './calibrate/jurors.js'
export type { CalibrationLabel, LabelKind, LabelledCase } from './calibrate/labels.js'
export type { Confusion } from './calibrate/statistics.js'
export { formatStatistic, renderCalibration, renderDisagreement } from './calibrate/summary.js'
export {
  type ComparisonFigures,
  compareReports,
  type EvaluationComparison,
  type FlippedNode,
  type ReportComparison,
} from './compare/compare-reports.js'
export { type ComparedRun, type NodeOutcome, type RunEvaluation, type RunTotals, readRun } from './compare/read-run.js'
export type { DotOptions } from './dag/dot.js'
export { DeepAcyclicGraph, type DeepAcyclicGraphOptions } from './dag/graph.js'
export type { MermaidOptions } from './dag/mermaid.js'
export type { DagNode, EdgeKind, NodeMode } from './dag/node.js'
export type { VerdictOutcome } from './dag/nodes/add-verdict.js'
export {
  BinaryJudgementNode,
  type BinaryJudgementNodeOptions,
  ConversationalBinaryJudgementNode,
  type ConversationalBinaryJudgementNodeOptions,
} from './dag/nodes/binary-judgement-node.js'
export {
  type CodeCheckContext,
  type CodeCheckResult,
  CodeNode,
  type CodeNodeOptions,
  type CodeNodeTurn,
  type CodeNodeView,
  ConversationalCodeNode,
  type ConversationalCodeNodeOptions,
  type ConversationalCodeNodeView,
  type ConversationalCodeNodeViewOf,
} from './dag/nodes/code-node.js'
export {
  ConversationalNonBinaryJudgementNode,
  type ConversationalNonBinaryJudgementNodeOptions,
  NonBinaryJudgementNode,
  type NonBinaryJudgementNodeOptions,
} from './dag/nodes/non-binary-judgement-node.js'
export {
  ConversationalTaskNode,
  type ConversationalTaskNodeChild,
  type ConversationalTaskNodeOptions,
  TaskNode,
  type TaskNodeChild,
  type TaskNodeOptions,
} from './dag/nodes/task-node.js'
export {
  ConversationalToolCallNode,
  type ConversationalToolCallNodeOptions,
  ToolCallNode,
  type ToolCallNodeOptions,
} from './dag/nodes/tool-call-node.js'
export type { ConversationalNode, SingleTurnNode } from './dag/nodes/types.js'
export {
  type ConversationalVerdictChild,
  ConversationalVerdictNode,
  type ConversationalVerdictNodeOptions,
  type VerdictChild,
  VerdictNode,
  type VerdictNodeOptions,
} from './dag/nodes/verdict-node.js'
export { type DagFromJSONOptions, type SerializedDag, serializedDagSchema } from './dag/serialize.js'
export {
  CacheMissError,
  ConfigurationError,
  type DagIssue,
  DagValidationError,
  JudgeCallError,
  JudgeOutputError,
  JudgetreeError,
  type JudgetreeErrorCode,
  MeasurementAbortedError,
  MissingTestCaseParamError,
  NoVerdictReachedError,
  TestCaseError,
  toJudgetreeError,
  withoutAdvice,
} from './errors.js'
export { type EvaluateOptions, type Evaluation, type EvaluationMetric, evaluate } from './evaluate/evaluate.js'
export type { EvaluationProgress, OutputStream } from './evaluate/progress-bar.js'
export { type JuryCombine, type JuryOptions, jury } from './judge/jury.js'
export {
  type DecisionsClient,
  OpenAIDecisionJudge,
  type OpenAIDecisionJudgeOptions,
} from './judge/openai-decision-judge.js'
export { OpenAIJudge, type OpenAIJudgeOptions, type ReasoningEffort } from './judge/openai-judge.js'
export {
  costOf,
  DEFAULT_DECISION_PRICES,
  DEFAULT_MODEL_PRICES,
  type ModelPrice,
  PRICES_CHECKED,
  registerModelPrices,
} from './judge/pricing.js'
export type {
  JudgeMessage,
  JudgeModel,
  JudgeQuestion,
  JudgeRequest,
  JudgeResponse,
  JudgeUsage,
  JurorResponse,
  TokenLogprob,
} from './judge/types.js'
export {
  BaseMetric,
  type BaseMetricOptions,
  type MetricContext,
  type MetricJudgeRequest,
  type MetricScore,
  type MetricStep,
} from './metric/base-metric.js'
export {
  type CommonMetricOptions,
  MAX_TRIALS,
  type ResolvedMetricOptions,
  TRIAL_AGGREGATES,
  type TrialAggregate,
  type TrialsUntilDecided,
} from './metric/options.js'
export { judgeTrials, measureTrials, type TrialVerdict, withThreshold } from './metric/trial-result.js'
export type {
  ConversationalMetric,
  JuryDecisions,
  MeasureOptions,
  Metric,
  MetricKind,
  MetricResult,
  MetricUsage,
  PassPivot,
  PassProbability,
  SingleTurnMetric,
  TrialResult,
  TrialSpread,
} from './metric/types.js'
export {
  ConversationRelevancyMetric,
  type ConversationRelevancyMetricOptions,
  TurnRelevancyMetric,
  type TurnRelevancyMetricOptions,
} from './metrics/conversation-relevancy.js'
export { ConversationalGEval, type ConversationalGEvalOptions } from './metrics/conversational-geval.js'
export {
  ConversationalDAGMetric,
  type ConversationalDAGMetricOptions,
  DAGMetric,
  type DAGMetricOptions,
} from './metrics/dag-metric.js'
export { GEval, type GEvalOptions } from './metrics/geval.js'
export type { GEvalBaseOptions, Rubric } from './metrics/geval-rubric.js'
export {
  TurnContextualRelevancyMetric,
  type TurnContextualRelevancyMetricOptions,
} from './metrics/turn-contextual-relevancy.js'
export type { EvaluationResult } from './report/run.js'
export type { EvaluationSummary, MetricSummary } from './report/summary.js'
export { TRIAL_TEMPERATURE } from './runtime/trial-batch.js'
export {
  type LLMTestCaseParam,
  LLMTestCaseParams,
  type MultiTurnParam,
  MultiTurnParams,
  type SingleTurnParam,
  SingleTurnParams,
  type TurnParam,
  TurnParams,
} from './test-case/params.js'
export {
  type ConversationalTestCase,
  conversationalTestCaseSchema,
  type LLMTestCase,
  llmTestCaseSchema,
  type ToolCall,
  type Turn,
  toolCallSchema,
  turnSchema,
} from './test-case/schemas.js'
export { formatScore, renderResult, renderSummaryLine, renderTrace, trialsSummary } from './trace/render.js'
export type {
  JurorVerdict,
  MetricTrace,
  SkipCause,
  TraceNode,
  TraceNodeDetails,
  TraceNodeTrials,
  TraceRole,
} from './trace/types.js'
