import { ConfigurationError } from '../errors.js'
import { isJury } from './jury-mark.js'
import { OpenAIDecisionJudge } from './openai-decision-judge.js'
import { OpenAIJudge } from './openai-judge.js'
import type { JudgeModel } from './types.js'

// One judge (and so one SDK client and connection pool) per model name, however many metrics use it.
const judgesByModel = new Map<string, OpenAIJudge>()

/** Turns a metric's `model` option into a judge: a model name, your own JudgeModel, or undefined for the default. */
export function resolveJudge(model: string | JudgeModel | undefined): JudgeModel {
  if (model === undefined) return sharedJudge(new OpenAIJudge())
  if (typeof model === 'string') {
    if (model.trim() === '') throw invalidModel(model)
    return judgesByModel.get(model) ?? sharedJudge(new OpenAIJudge({ model }))
  }
  if (isJudgeModel(model)) return model
  throw invalidModel(model)
}

// One decision judge per model name, as for chat judges.
const decisionJudgesByModel = new Map<string, JudgeModel>()

/**
 * Turns a metric's `decisionModel` option into the judge its decisions go to: a model name (an OpenAIDecisionJudge),
 * a decision judge of your own (`decides: true`), or undefined for JUDGETREE_DECISION_MODEL; undefined when neither
 * names one, and when the metric's `model` is a decision judge itself (it answers the decisions already).
 */
export function resolveDecisionJudge(
  decisionModel: string | JudgeModel | undefined,
  judge: JudgeModel | undefined,
): JudgeModel | undefined {
  const fromEnvironment = process.env.JUDGETREE_DECISION_MODEL?.trim()
  const wanted = decisionModel ?? (fromEnvironment === '' ? undefined : fromEnvironment)
  if (wanted === undefined || (decisionModel === undefined && judge?.decides === true)) return undefined
  if (typeof wanted === 'string') {
    if (wanted.trim() === '') throw invalidDecisionModel(wanted)
    let shared = decisionJudgesByModel.get(wanted)
    if (shared === undefined) {
      shared = new OpenAIDecisionJudge({ model: wanted })
      decisionJudgesByModel.set(wanted, shared)
    }
    return shared
  }
  // A jury answers decisions whatever its jurors are: that is what it is for.
  if (isJudgeModel(wanted) && (wanted.decides === true || isJury(wanted))) return wanted
  throw invalidDecisionModel(wanted)
}

function invalidDecisionModel(value: unknown): ConfigurationError {
  const shown = isJudgeModel(value)
    ? `the judge "${value.name}", which is not a decision judge (its \`decides\` is not true); a chat judge goes in \`model\``
    : `${typeof value === 'string' ? `'${value}'` : describe(value)} (${kindOf(value)})`
  return new ConfigurationError(
    "Expected `decisionModel` to be a decision model's name such as 'gpt-6-luna', a decision judge (new " +
      'OpenAIDecisionJudge(...), aiSdkDecisionJudge(...) from @judgetree/ai-sdk, or your own JudgeModel with ' +
      `\`decides: true\`), a jury(...) of any judges, or undefined; got ${shown}.`,
  )
}

/** The default judge's name depends on JUDGETREE_MODEL, so it is shared under the name it resolved to. */
function sharedJudge(judge: OpenAIJudge): OpenAIJudge {
  const existing = judgesByModel.get(judge.name)
  if (existing !== undefined) return existing
  judgesByModel.set(judge.name, judge)
  return judge
}

/** True for an object with a judge's `name` and `generate`. */
export function isJudgeModel(value: unknown): value is JudgeModel {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as { name?: unknown; generate?: unknown }
  return typeof candidate.name === 'string' && typeof candidate.generate === 'function'
}

function invalidModel(value: unknown): ConfigurationError {
  const shown = typeof value === 'string' ? `'${value}'` : describe(value)
  return new ConfigurationError(
    `Expected \`model\` to be a model name such as 'gpt-4.1', an object implementing JudgeModel ` +
      `({ name: string, generate(request) }), or undefined for the default judge; got ${shown} (${kindOf(value)}).`,
  )
}

function describe(value: unknown): string {
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`
  if (typeof value !== 'object' || value === null) return `\`${String(value)}\``
  const keys = Object.keys(value)
  return keys.length === 0 ? '`{}`' : `an object with keys ${keys.map((key) => `\`${key}\``).join(', ')}`
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
