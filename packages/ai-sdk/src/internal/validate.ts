import { ConfigurationError } from '@judgetree/core'
import type { LanguageModel } from 'ai'
import type { AiSdkJudgeOptions } from '../ai-sdk-judge.js'

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

/** The p-queue style option message: Expected `x` to be …, got `v` (type). */
export function invalidOption(name: string, expected: string, got: unknown): ConfigurationError {
  return new ConfigurationError(
    `Expected aiSdkJudge's \`${name}\` to be ${expected}, got \`${String(got)}\` (${typeof got}).`,
  )
}

/** Checks every option of aiSdkJudge, naming the first wrong one and what it should be. */
export function validateOptions(options: AiSdkJudgeOptions): void {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'an object', options)
  const { timeoutMs, maxRetries, temperature, providerOptions, schemaInPrompt, structuredOutputs, warn } = options
  const { cacheNamespace, secrets } = options
  if (secrets !== undefined) {
    if (!Array.isArray(secrets)) throw invalidOption('secrets', 'a list of strings', secrets)
    const wrong = secrets.findIndex((secret) => typeof secret !== 'string' || secret.length < 8)
    if (wrong !== -1) {
      // The value itself is never shown: it is a secret, or part of one.
      throw new ConfigurationError(
        `Expected every item of aiSdkJudge's \`secrets\` to be a string of 8 characters or more (shorter ones cannot ` +
          `be told from ordinary words); item ${wrong} is a ${typeof secrets[wrong] === 'string' ? `string of ${(secrets[wrong] as string).length} characters` : typeof secrets[wrong]}.`,
      )
    }
  }
  if (cacheNamespace !== undefined && (typeof cacheNamespace !== 'string' || cacheNamespace.trim() === '')) {
    throw invalidOption('cacheNamespace', "a non-empty name such as 'ollama-q4'", cacheNamespace)
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw invalidOption('timeoutMs', 'a whole number of milliseconds from 1 and up', timeoutMs)
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw invalidOption('maxRetries', 'a whole number from 0 and up', maxRetries)
  }
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw invalidOption('temperature', 'a number from 0 to 2', temperature)
  }
  if (providerOptions !== undefined && (typeof providerOptions !== 'object' || providerOptions === null)) {
    throw invalidOption('providerOptions', 'an object keyed by provider name', providerOptions)
  }
  if (schemaInPrompt !== undefined && typeof schemaInPrompt !== 'boolean') {
    throw invalidOption('schemaInPrompt', 'true or false', schemaInPrompt)
  }
  if (structuredOutputs !== undefined && structuredOutputs !== 'auto' && structuredOutputs !== 'required') {
    throw invalidOption('structuredOutputs', "'auto' or 'required'", structuredOutputs)
  }
  if (warn !== undefined && typeof warn !== 'function') {
    throw invalidOption('warn', 'a function that takes the warning text', warn)
  }
}
