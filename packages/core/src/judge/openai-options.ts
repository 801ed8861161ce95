// OpenAIJudge's options and where it sends its calls: the checks that give a clear error before any call, and the
// endpoint named in messages and cache entries.
import type OpenAI from 'openai'
import { ConfigurationError } from '../errors.js'
import { nonEmpty } from '../internal/env.js'
import { scrubSecrets } from '../internal/scrub.js'
import { MAX_TIMER_MS } from '../runtime/limits.js'
import type { OpenAIJudgeOptions } from './openai-judge.js'

export function validateOptions(options: OpenAIJudgeOptions): void {
  const { model, timeoutMs, maxRetries, temperature, structuredOutputs, warn, cacheNamespace } = options ?? {}
  if (cacheNamespace !== undefined && (typeof cacheNamespace !== 'string' || cacheNamespace.trim() === '')) {
    throw invalidOption('cacheNamespace', "a non-empty name such as 'ollama-q4'", cacheNamespace)
  }
  if (model !== undefined && (typeof model !== 'string' || model.trim() === '')) {
    throw invalidOption('model', 'a non-empty model name such as `gpt-4.1`', model)
  }
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `new OpenAIJudge(options) takes an options object (or nothing); got \`${String(options)}\` (${typeof options}).`,
    )
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw invalidOption(
      'timeoutMs',
      `a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (2^31−1, the longest timer Node can set, about 24.8 days)`,
      timeoutMs,
    )
  }
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string') {
    throw new ConfigurationError(`Expected OpenAIJudge's \`apiKey\` to be a string, got a ${typeof options.apiKey}.`)
  }
  if (nonEmpty(options.baseURL) !== undefined) checkBaseURL(options.baseURL as string, 'baseURL')
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw invalidOption('maxRetries', 'a whole number from 0 and up', maxRetries)
  }
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw invalidOption('temperature', 'a number from 0 to 2', temperature)
  }
  if (structuredOutputs !== undefined && !['auto', 'json_schema', 'json_object'].includes(structuredOutputs)) {
    throw invalidOption('structuredOutputs', "one of 'auto', 'json_schema', 'json_object'", structuredOutputs)
  }
  if (warn !== undefined && typeof warn !== 'function') {
    throw invalidOption('warn', 'a function that takes the warning text', warn)
  }
  // `undefined` is "the default"; `null` is a value, and is refused like any other wrong one.
  if (options.baseURL !== undefined && typeof options.baseURL !== 'string') {
    throw invalidOption('baseURL', "the API root as a string, such as 'http://127.0.0.1:11434/v1'", options.baseURL)
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw invalidOption('fetch', 'a fetch function (the global `fetch`, or one with the same signature)', options.fetch)
  }
  if (options.client !== undefined && (typeof options.client !== 'object' || options.client === null)) {
    throw invalidOption('client', 'an `OpenAI` (or `AzureOpenAI`) client from the openai package', options.client)
  }
  const clientBaseURL = (options.client as { baseURL?: unknown } | undefined)?.baseURL
  if (typeof clientBaseURL === 'string' && clientBaseURL !== '') checkBaseURL(clientBaseURL, "the `client`'s baseURL")
  const { pricing } = options
  if (pricing !== undefined && (typeof pricing !== 'object' || pricing === null || Array.isArray(pricing))) {
    throw invalidOption(
      'pricing',
      "an object of USD per million tokens by model, such as { 'my-model': { inputPerMillion: 0.5, outputPerMillion: 1.5 } }",
      pricing,
    )
  }
}

export function invalidOption(name: string, expected: string, got: unknown): ConfigurationError {
  return new ConfigurationError(
    `Expected OpenAIJudge's \`${name}\` to be ${expected}, got \`${String(got)}\` (${typeof got}).`,
  )
}

/**
 * Host and path of the API root: enough to tell servers apart, with no credentials. An Azure client adds its
 * deployment to each request's path rather than to its base URL, so it is added here: deployments can serve
 * different models under one judge name.
 */
export function endpointOf(baseURL: string | undefined, azureDeployment: string | undefined): string {
  if (baseURL === undefined) return 'api.openai.com/v1'
  try {
    const url = new URL(baseURL)
    const deployment =
      azureDeployment === undefined || url.pathname.includes('/deployments/') ? '' : `/deployments/${azureDeployment}`
    return `${url.host}${url.pathname.replace(/\/+$/, '')}${deployment}`
  } catch {
    return 'unparsable-base-url'
  }
}

/** The deployment of an `AzureOpenAI` client (read by shape: the caller's `openai` may be another copy). */
export function azureDeploymentOf(client: OpenAI | undefined): string | undefined {
  const deployment = (client as { deploymentName?: unknown } | undefined)?.deploymentName
  return typeof deployment === 'string' && deployment !== '' ? deployment : undefined
}

export function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host
  } catch {
    return baseURL
  }
}

/**
 * Rejects a base URL that is not an absolute http(s) URL, or that holds credentials (`http://user:pass@host/v1`),
 * naming the setting it came from. `fetch` refuses a URL with credentials at every call, and its message would quote
 * the password: this error shows the URL without them.
 */
export function checkBaseURL(baseURL: string, setting: string): void {
  let url: URL | undefined
  try {
    url = new URL(baseURL)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError(`${setting} is not an http(s) URL: got ${JSON.stringify(scrubSecrets(baseURL))}.`, {
      advice: `Set ${setting} to the API root of an OpenAI-compatible server, such as \`http://localhost:11434/v1\`.`,
    })
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigurationError(
      `${setting} holds credentials before its host (${JSON.stringify(scrubSecrets(baseURL))}): fetch refuses such ` +
        'a URL for every call. Take them out of the URL and send the key as the `apiKey` option (or OPENAI_API_KEY), ' +
        'which goes in the Authorization header, or as a header of your own `client`.',
    )
  }
}
