// A decision judge written for tests of probabilities: it answers each question with a fixed distribution, so the
// distributions flow through the real metric path (runtime, recorder, trace) as a decision model's would.
import type { JudgeModel, JudgeQuestion } from '../../src/judge/types.js'
import { createJudgeRuntime } from '../../src/runtime/judge-runtime.js'

/** Answers each question with the distribution `answer` gives it and its most probable option (the first of equals). */
export function distributionJudge(answer: (question: JudgeQuestion) => Record<string, number>): JudgeModel {
  return createJudgeRuntime({ cache: 'off' }).wrap({
    name: 'distributions',
    decides: true,
    cacheable: false,
    async generate(request) {
      const question = request.question as JudgeQuestion
      const distribution = answer(question)
      const best = Object.entries(distribution).reduce((a, b) => (b[1] > a[1] ? b : a))[0]
      const value = question.kind === 'predicate' ? best === 'true' : question.kind === 'score' ? Number(best) : best
      return {
        value: { [question.field]: value } as never,
        distribution,
        usage: { promptTokens: 10, completionTokens: 0, costUsd: 0 },
        cached: false,
      }
    },
  })
}
