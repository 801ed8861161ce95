// The words for a sampling setting a model refused or a provider ignored (reasoning models take no temperature but
// 1, often no logprobs or `n`): the reason every result made without it carries, and the one warning.
import type { SamplingSetting } from './structured-judge.js'
import type { JudgeResponse } from './types.js'

/** Refused: the model answered 400 and the call was made again without it. Ignored: the provider said so. */
export type SettingNotApplied = 'refused' | 'ignored'

/** A setting as messages name it, and what leaving it out does to the answers. */
const WITHOUT: Record<SamplingSetting, { readonly shown: string; readonly mark: string; readonly warning: string }> = {
  temperature: {
    shown: '`temperature`',
    mark: 'it sampled at its own temperature',
    warning: 'it samples at its own temperature, trials too',
  },
  logprobs: {
    shown: 'logprobs',
    mark: 'it is asked without them',
    warning: 'it answers without logprobs, so G-Eval uses the raw score and verdicts get no probabilities',
  },
  n: {
    shown: '`n`',
    mark: 'the samples were asked for one by one',
    warning: 'the samples of trials are asked for one by one (each call pays for the prompt)',
  },
}

/** Why a result was made without `setting`, as results and traces say it. */
export function settingReason(model: string, setting: SamplingSetting, how: SettingNotApplied, detail: string): string {
  const { shown, mark } = WITHOUT[setting]
  // Refused logprobs keep the words G-Eval's raw-score note has always quoted.
  if (setting === 'logprobs' && how === 'refused')
    return `the model "${model}" does not accept logprobs (${detail}), so ${mark}`
  return `the judge model "${model}" ${how} ${shown} (${detail}), so ${mark}`
}

/** The one warning for a model and setting; `where` names the judge and its host ("The judge model … at …"). */
export function settingWarning(
  where: string,
  setting: SamplingSetting,
  how: SettingNotApplied,
  detail: string,
): string {
  const { shown, warning } = WITHOUT[setting]
  return (
    `judgetree: ${where.replace(/^The /, 'the ')} ${how} ${shown}: ${detail}\nIts calls leave ${shown} out from now ` +
    `on, so ${warning}; every result made that way says so.`
  )
}

/** The response's own sampling marks and `more`, once each. */
export function joinReasons(response: JudgeResponse<unknown>, more: string): string {
  const own = response.samplingNotApplied
  return own === undefined || own.includes(more) ? more : `${own}; ${more}`
}
