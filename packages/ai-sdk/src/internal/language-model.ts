// What aiSdkJudge takes as its model: an AI SDK language model object, and what to pass instead of anything else.
import { ConfigurationError } from '@judgetree/core'
import type { LanguageModel } from 'ai'

/** An AI SDK language model object; model id strings (which go through the global provider) are not accepted. */
export type LanguageModelObject = Exclude<LanguageModel, string>

const SPECIFICATIONS = ['v2', 'v3', 'v4']
const EXAMPLE = "`anthropic('claude-sonnet-4-5')` or `openai.chat('gpt-4.1')`"

/** Checks that `model` is an AI SDK language model, and says what it is instead and what to pass when it is not. */
export function assertLanguageModel(model: unknown): asserts model is LanguageModelObject {
  const problem = whatIsWrong(model)
  if (problem === undefined) return
  throw new ConfigurationError(
    `Expected aiSdkJudge's \`model\` to be an AI SDK language model such as ${EXAMPLE}, got ${problem}.`,
  )
}

function whatIsWrong(model: unknown): string | undefined {
  if (typeof model === 'string') {
    if (model.includes('/')) {
      return (
        `the string '${model}'. Call the provider's package with the model id, e.g. \`anthropic('claude-sonnet-4-5')\`, ` +
        `or pass \`gateway('${model}')\` from 'ai' to go through the AI Gateway`
      )
    }
    return (
      `the string '${model}'. Call a provider with it, e.g. \`openai.chat('${model}')\`; an OpenAI model name needs ` +
      `no adapter: \`model: '${model}'\` uses the built-in OpenAIJudge`
    )
  }
  if (typeof model === 'function') {
    const provider = model as { languageModel?: unknown; name?: string }
    if (typeof provider.languageModel === 'function') {
      return "a provider, not one of its models. Call it with a model id: `provider('model-id')`"
    }
    return `function ${provider.name || '(anonymous)'}`
  }
  if (typeof model !== 'object' || model === null)
    return `\`${String(model)}\` (${model === null ? 'null' : typeof model})`
  const candidate = model as Record<string, unknown>
  if (typeof candidate.generate === 'function' && typeof candidate.name === 'string') {
    return `a judgetree judge ("${candidate.name}"). Pass it as the metric's \`model\` directly, without aiSdkJudge`
  }
  if (typeof candidate.doEmbed === 'function') {
    return 'an embedding model (it has doEmbed, not doGenerate). Pass a language (chat) model of the provider'
  }
  if (!SPECIFICATIONS.includes(String(candidate.specificationVersion))) {
    const version = candidate.specificationVersion
    if (typeof version === 'string' && typeof candidate.doGenerate === 'function') {
      return `a language model of specification ${version}, which this version of 'ai' cannot call (it calls v2, v3 and v4). Update 'ai' or the provider package so their majors match`
    }
    return `${describeKeys(candidate)}, which has no \`specificationVersion\` of 'v2', 'v3' or 'v4'`
  }
  const missing = ['provider', 'modelId'].filter((key) => typeof candidate[key] !== 'string')
  if (typeof candidate.doGenerate !== 'function') missing.push('doGenerate')
  if (missing.length > 0) return `an object without ${missing.map((key) => `\`${key}\``).join(', ')}`
  return undefined
}

function describeKeys(value: object): string {
  const keys = Object.keys(value)
  return keys.length === 0 ? '`{}`' : `an object with keys ${keys.map((key) => `\`${key}\``).join(', ')}`
}
