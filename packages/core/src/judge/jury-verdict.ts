import type { JudgeQuestion, JudgeResponse, JurorResponse } from './types.js'

/** How a jury turns its jurors' answers to one decision into its own. */
export type JuryCombine = 'mean' | 'majority'

/** Every {@link JuryCombine}, in the order messages list them. */
export const JURY_COMBINES: readonly JuryCombine[] = ['mean', 'majority']

type Verdict = string | number | boolean

/** One juror's answer to a decision: its point verdict, and its distribution (a point answer counts as one-hot). */
export function jurorAnswer(juror: string, question: JudgeQuestion, response: JudgeResponse<unknown>): JurorResponse {
  const verdict = (response.value as Record<string, unknown> | null)?.[question.field] as Verdict
  const probability = response.distribution?.[String(verdict)]
  return { juror, response, verdict, ...(probability === undefined ? {} : { probability }) }
}

/** True when every juror gave the same point verdict. */
export function unanimous(answers: readonly JurorResponse[]): boolean {
  return answers.every((answer) => String(answer.verdict) === String(answers[0]?.verdict))
}

/**
 * The jury's verdict and distribution: the distribution is the mean of the jurors' (a point answer as one-hot);
 * `mean` picks its most probable verdict, `majority` the verdict most jurors chose. Ties go to the verdict named
 * first by a juror in declaration order, then to the question's own order (true before false, options, levels).
 */
export function combineVerdicts(
  question: JudgeQuestion,
  answers: readonly JurorResponse[],
  combine: JuryCombine,
): { readonly verdict: Verdict; readonly distribution: Readonly<Record<string, number>> } {
  const order = [...new Set([...answers.map((answer) => String(answer.verdict)), ...declaredOrder(question)])]
  const sums = new Map(order.map((key) => [key, 0]))
  for (const answer of answers) {
    const own = answer.response.distribution ?? { [String(answer.verdict)]: 1 }
    for (const [key, probability] of Object.entries(own)) sums.set(key, (sums.get(key) ?? 0) + probability)
  }
  const distribution: Record<string, number> = {}
  for (const [key, sum] of sums) distribution[key] = sum / answers.length
  const weight =
    combine === 'mean'
      ? (key: string) => distribution[key] ?? 0
      : (key: string) => answers.filter((answer) => String(answer.verdict) === key).length
  let best = order[0] as string
  for (const key of order) if (weight(key) > weight(best)) best = key
  return { verdict: typed(question, best, answers), distribution: inDeclaredOrder(question, distribution) }
}

/** The answers a question allows, as distribution keys, in the order it declares them. */
function declaredOrder(question: JudgeQuestion): string[] {
  if (question.kind === 'predicate') return ['true', 'false']
  if (question.kind === 'choice') return [...question.options]
  return question.levels.map(String)
}

/** The distribution keyed in the question's order (as a judge's own reads), keeping any key it does not declare. */
function inDeclaredOrder(question: JudgeQuestion, distribution: Record<string, number>): Record<string, number> {
  const ordered: Record<string, number> = {}
  for (const key of declaredOrder(question)) if (key in distribution) ordered[key] = distribution[key] as number
  return Object.assign(ordered, distribution)
}

/** The verdict as the answer's field holds it: a juror's own value when one chose it, else parsed from the key. */
function typed(question: JudgeQuestion, key: string, answers: readonly JurorResponse[]): Verdict {
  const chosen = answers.find((answer) => String(answer.verdict) === key)
  if (chosen !== undefined) return chosen.verdict as Verdict
  if (question.kind === 'predicate') return key === 'true'
  return question.kind === 'score' ? Number(key) : key
}
