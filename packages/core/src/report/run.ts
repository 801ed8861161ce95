import type { ConversationalMetric, MetricResult, SingleTurnMetric } from '../metric/types.js'

/** A metric evaluate() can run: single-turn metrics measure LLMTestCases, conversational ones conversations. */
export type EvaluationMetric = SingleTurnMetric | ConversationalMetric

/** One measured (test case, metric) pair of an evaluate() run. */
export interface EvaluationResult<TestCase = unknown> {
  readonly testCase: TestCase
  /** The test case's position in the list given to evaluate(). */
  readonly index: number
  readonly metric: EvaluationMetric
  readonly result: MetricResult
}
