import { z } from 'zod'
import type { JudgeModel, JudgeQuestion, JudgeRequest } from './types.js'

/**
 * What a decision judge's answer to `question` holds: only the question's field, a boolean for a predicate, one of
 * the options for a choice, one of the levels for a score. A decision judge writes no reason.
 */
export function decisionAnswerSchema(question: JudgeQuestion): z.ZodType {
  const answer =
    question.kind === 'predicate'
      ? z.boolean()
      : question.kind === 'choice'
        ? z.string().refine((option) => question.options.includes(option))
        : z.number().refine((level) => question.levels.includes(level))
  return z.object({ [question.field]: answer })
}

/** The schema `judge`'s answer to `request` meets: the request's own, or a decision judge's answer to its question. */
export function answerSchemaOf(judge: JudgeModel, request: JudgeRequest<unknown>): z.ZodType {
  return judge.decides === true && request.question !== undefined
    ? decisionAnswerSchema(request.question)
    : request.schema
}
