import { unanimous } from '../judge/jury-verdict.js'
import type { JudgeResponse, JurorResponse } from '../judge/types.js'
import type { JurorVerdict } from '../trace/types.js'
import type { JuryDecisions, MetricUsage } from './types.js'
import { addUsage, NO_USAGE, usageOf } from './usage.js'

/** The usage of a jury's answer: its jurors' summed, each juror's by name, and the decision it made (if one). */
export function juryUsageOf(jurors: readonly JurorResponse[]): MetricUsage {
  const byJuror: Record<string, MetricUsage> = {}
  let sum = NO_USAGE
  for (const { juror, response } of jurors) {
    const own = usageOf(response)
    byJuror[juror] = addUsage(byJuror[juror] ?? NO_USAGE, own)
    sum = addUsage(sum, own)
  }
  const decided = jurors.some((answer) => answer.verdict !== undefined)
  return {
    ...sum,
    jurors: byJuror,
    ...(decided ? { juryDecisions: { decided: 1, unanimous: unanimous(jurors) ? 1 : 0 } } : {}),
  }
}

/** The jury parts of two usages added: each juror's usage, and the decisions. */
export function addJuryUsage(a: MetricUsage, b: MetricUsage): Pick<MetricUsage, 'jurors' | 'juryDecisions'> {
  const jurors: Record<string, MetricUsage> = { ...a.jurors }
  for (const [juror, usage] of Object.entries(b.jurors ?? {}))
    jurors[juror] = addUsage(jurors[juror] ?? NO_USAGE, usage)
  const decisions = addDecisions(a.juryDecisions, b.juryDecisions)
  return { jurors, ...(decisions === undefined ? {} : { juryDecisions: decisions }) }
}

function addDecisions(a: JuryDecisions | undefined, b: JuryDecisions | undefined): JuryDecisions | undefined {
  if (a === undefined || b === undefined) return a ?? b
  return { decided: a.decided + b.decided, unanimous: a.unanimous + b.unanimous }
}

/** `{ agreement }` for a usage with jury decisions: the share of them that were unanimous; `{}` otherwise. */
export function agreementOf(usage: MetricUsage): { readonly agreement?: number } {
  const decisions = usage.juryDecisions
  return decisions === undefined || decisions.decided === 0
    ? {}
    : { agreement: decisions.unanimous / decisions.decided }
}

/** Each juror's verdict on a jury's decision, for its trace entry; undefined for any other answer. */
export function juryVerdicts(response: JudgeResponse<unknown>): JurorVerdict[] | undefined {
  const decided = response.jurors?.filter((answer) => answer.verdict !== undefined) ?? []
  if (decided.length === 0) return undefined
  return decided.map(({ juror, verdict, probability }) => ({
    juror,
    verdict: verdict as JurorVerdict['verdict'],
    ...(probability === undefined ? {} : { probability }),
  }))
}
