import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { closestName } from '../internal/closest-name.js'
import { describeGiven, expecting, listProblems, parseOptions } from '../internal/options.js'
import { isJury, JURY, type JuryJudge } from './jury-mark.js'
import { recordAnswer, replayedAnswer } from './jury-replay.js'
import { combineVerdicts, JURY_COMBINES, type JuryCombine, jurorAnswer, unanimous } from './jury-verdict.js'
import { isJudgeModel, resolveJudge } from './resolve-judge.js'
import type { JudgeModel, JudgeQuestion, JudgeRequest, JudgeResponse, JudgeUsage, JurorResponse } from './types.js'

export type { JuryCombine } from './jury-verdict.js'

/** Options of {@link jury}. */
export interface JuryOptions {
  /**
   * How the jurors' answers to a decision combine: `'mean'` averages their distributions (a point answer counts as
   * one-hot) and takes the most probable verdict; `'majority'` takes the verdict most jurors chose. Ties go to the
   * verdict of the juror declared first. @default 'mean'
   */
  combine?: JuryCombine | undefined
  /**
   * Ask the first two jurors, and the others only when those two disagree: fewer calls where the verdict is clear.
   * Needs three jurors or more. @default false
   */
  escalate?: boolean | undefined
}

const combineSchema = expecting(z.enum(JURY_COMBINES), (given) => {
  const listed = JURY_COMBINES.map((name) => `'${name}'`).join(' or ')
  const meant = typeof given === 'string' ? closestName(given, JURY_COMBINES) : undefined
  return meant === undefined ? listed : `${listed} (did you mean '${meant}'?)`
})

const juryOptionsSchema = z
  .object({
    combine: combineSchema.optional(),
    escalate: expecting(z.boolean(), 'true or false').optional(),
  })
  .strict()

/**
 * A judge made of several judges (DESIGN.md §9): each decision goes to every juror (with `escalate`, to the first two
 * and to the others only when those disagree) and their answers combine; anything else (a task, G-Eval's steps,
 * statements) goes to the first juror. Use it wherever a judge goes (`model`, `decisionModel`). Each juror answers
 * through the judge runtime as itself: its own limits, retries and cache entries. Results then carry `agreement`,
 * the trace each juror's verdict, and the usage each juror's calls (`usage.jurors`).
 *
 * @example
 * const metric = new DAGMetric({ name: 'Tone', dag, model: jury(['gpt-6-luna', 'gpt-5-mini', myJudge]) })
 */
export function jury(jurors: readonly (string | JudgeModel)[], options: JuryOptions = {}): JudgeModel {
  const { combine = 'mean', escalate = false } = parseOptions(juryOptionsSchema, options, 'jury(jurors, options)')
  const judges = checkJurors(jurors)
  if (escalate && judges.length < 3) {
    throw new ConfigurationError(
      `jury(jurors, { escalate: true }) needs three jurors or more (two asked first, the others when they disagree); ` +
        `got ${judges.length}. Add a juror, or leave \`escalate\` out to ask both on every decision.`,
    )
  }
  return new Jury(judges, combine, escalate)
}

/** The jurors as judges, or an error naming each one that is not. */
function checkJurors(jurors: unknown): JudgeModel[] {
  if (!Array.isArray(jurors)) {
    throw new ConfigurationError(
      `Expected the jurors of jury(jurors) to be an array of judges (model names or JudgeModels), got ${describeGiven(jurors)}.`,
    )
  }
  if (jurors.length < 2) {
    const got = jurors.length === 0 ? 'none' : 'one'
    const fix = jurors.length === 0 ? 'list two or more' : 'add another, or use that judge alone as `model`'
    throw new ConfigurationError(`A jury needs two jurors or more; jury(jurors) got ${got}: ${fix}.`)
  }
  const problems: string[] = []
  const judges = jurors.flatMap((juror: unknown, index) => {
    if ((typeof juror === 'string' && juror.trim() !== '') || isJudgeModel(juror)) {
      if (isJury(juror)) {
        problems.push(`jurors[${index}] is a jury itself; list its jurors in this one instead.`)
        return []
      }
      return [resolveJudge(juror)]
    }
    problems.push(
      `Expected jurors[${index}] to be a model name such as 'gpt-6-luna' or a judge (OpenAIJudge, a decision judge, ` +
        `aiSdkJudge(...), your own JudgeModel), got ${describeGiven(juror)}.`,
    )
    return []
  })
  for (const [index, judge] of judges.entries()) {
    const earlier = judges.findIndex((other) => other.name === judge.name)
    if (earlier < index) {
      problems.push(
        `jurors[${earlier}] and jurors[${index}] are both named "${judge.name}": the trace, the usage and calibrate() ` +
          'tell jurors apart by name; give each juror a different model.',
      )
    }
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid jurors for jury(jurors):\n${listProblems(problems)}`)
  }
  return judges
}

/** A jury: a JudgeModel whose answers are its jurors' combined. */
class Jury implements JuryJudge {
  readonly [JURY] = true as const
  readonly name: string
  readonly jurors: readonly JudgeModel[]
  readonly combine: JuryCombine
  readonly escalate: boolean
  /** A jury answers what its first juror answers: a decision judge first makes a jury of decisions only. */
  readonly decides: boolean | undefined
  /** Never cached as a whole: each juror's answers are, under its own name. */
  readonly cacheable = false

  constructor(jurors: readonly JudgeModel[], combine: JuryCombine, escalate: boolean) {
    this.jurors = jurors
    this.combine = combine
    this.escalate = escalate
    this.decides = jurors[0]?.decides
    this.name = `jury(${jurors.map((juror) => juror.name).join(', ')})`
  }

  /** The same jury with each juror replaced by `wrap(juror)` (the judge runtime wraps each one). */
  through(wrap: (juror: JudgeModel) => JudgeModel): Jury {
    return new Jury(this.jurors.map(wrap), this.combine, this.escalate)
  }

  async generate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    const replayed = replayedAnswer(this, request)
    if (replayed !== undefined) return replayed
    const response = await this.#answer(request)
    recordAnswer(this, request as JudgeRequest<unknown>, response)
    return response
  }

  async #answer<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
    const { question } = request
    const [first] = this.jurors as [JudgeModel]
    if (question === undefined) {
      const response = await first.generate(request)
      return { ...response, jurors: [{ juror: first.name, response }] }
    }
    let answers = await ask(this.escalate ? this.jurors.slice(0, 2) : this.jurors, request, question)
    if (this.escalate && !unanimous(answers)) {
      answers = [...answers, ...(await ask(this.jurors.slice(2), request, question))]
    }
    const { verdict, distribution } = combineVerdicts(question, answers, this.combine)
    // The answer of a juror that chose the verdict keeps its reason; the verdict itself is the jury's.
    const chosen = answers.find((answer) => String(answer.verdict) === String(verdict))
    const value = { ...(chosen?.response.value as object | undefined), [question.field]: verdict } as T
    return {
      value,
      usage: sumUsage(answers.map((answer) => answer.response.usage)),
      cached: answers.every((answer) => answer.response.cached),
      distribution,
      jurors: answers,
    }
  }
}

/** Asks every juror at once: each juror's decisions about one state still go out together (its decision batches). */
function ask(
  jurors: readonly JudgeModel[],
  request: JudgeRequest<unknown>,
  question: JudgeQuestion,
): Promise<JurorResponse[]> {
  return Promise.all(
    jurors.map(async (juror) => jurorAnswer(juror.name, question, await juror.generate(forJuror(juror, request)))),
  )
}

/**
 * The request as `juror` gets it: a decision judge ignores the logprobs asked for the chat jurors, so they stay out of
 * its request, and its cache entries are the same as when it judges alone.
 */
function forJuror(juror: JudgeModel, request: JudgeRequest<unknown>): JudgeRequest<unknown> {
  if (juror.decides !== true || request.topLogprobs === undefined) return request
  const { topLogprobs: _ignored, ...rest } = request
  return rest
}

function sumUsage(usages: readonly JudgeUsage[]): JudgeUsage {
  let sum: JudgeUsage = { promptTokens: 0, completionTokens: 0, costUsd: 0 }
  for (const usage of usages) {
    sum = {
      promptTokens: sum.promptTokens + usage.promptTokens,
      completionTokens: sum.completionTokens + usage.completionTokens,
      costUsd: sum.costUsd === undefined || usage.costUsd === undefined ? undefined : sum.costUsd + usage.costUsd,
    }
  }
  return sum
}
