// OpenAIJudge's options (their schema, parsed by core's one option parser) and where it sends its calls: the checks
// that give a clear error before any call, and the endpoint named in messages and cache entries.
import OpenAI from 'openai'
import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { nonEmpty, readEnv } from '../internal/env.js'
import { expecting, expectingSecret, functionSchema, parseOptions } from '../internal/options.js'
import { scrubSecrets } from '../internal/scrub.js'
import { DEFAULT_JUDGE_MAX_RETRIES } from './default-timing.js'
import { judgeOptionsSchema, type SharedJudgeOptions } from './judge-option-schemas.js'

/** Options of {@link OpenAIJudge}; every one has a default, most read from the environment. */
export interface OpenAIJudgeOptions extends SharedJudgeOptions {
  /** @default process.env.JUDGETREE_MODEL ?? 'gpt-6-luna' */
  model?: string | undefined
  /** @default process.env.OPENAI_API_KEY; 'not-needed' when only a base URL is set (local servers ignore keys) */
  apiKey?: string | undefined
  /** Any OpenAI-compatible server (Azure, Ollama, vLLM, LM Studio). @default process.env.OPENAI_BASE_URL, else the SDK's */
  baseURL?: string | undefined
  /** Milliseconds one attempt may take before it is abandoned (and retried). @default 60_000 */
  timeoutMs?: number | undefined
  /**
   * Retries of a failed call. The SDK retries 5xx, timeouts and connection errors; a 429 is retried by the judge
   * runtime instead, after the server's Retry-After, which then pauses every worker of the run (with your own
   * `client`, the SDK retries 429s too, and only its last one pauses the run). @default 3
   */
  maxRetries?: number | undefined
  /**
   * The sampling temperature. A model that refuses it (reasoning models take no temperature but 1) is asked again
   * without it and samples at its own: warned once, and every result made that way says so. @default 0
   */
  temperature?: number | undefined
  /**
   * How hard a reasoning model thinks before it answers, sent as `reasoning_effort`: `'none'`, `'minimal'`, `'low'`,
   * `'medium'`, `'high'`, `'xhigh'`, `'max'`, or any other value the server takes. Part of the cache key when set.
   * @default process.env.JUDGETREE_REASONING_EFFORT, else not sent (the model's own default)
   */
  reasoningEffort?: ReasoningEffort | undefined
  /**
   * 'auto' asks with a strict JSON schema and, for a schema the server refuses, falls back to JSON mode: warned once
   * per schema, and every result made that way says so. 'json_schema' makes a refusal an error. @default 'auto'
   */
  structuredOutputs?: 'auto' | 'json_schema' | 'json_object' | undefined
  /** Replaces the global fetch, e.g. to add a proxy. @default globalThis.fetch */
  fetch?: typeof fetch | undefined
  /**
   * A preconfigured SDK client, e.g. `new AzureOpenAI({ endpoint, deployment, apiVersion })`; apiKey, baseURL and
   * fetch are then ignored. @default a client built from the options
   */
  client?: OpenAI | undefined
}

/** The `reasoning_effort` values OpenAI names, or any other a compatible server takes. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | (string & {})

/** The client OpenAIJudge calls through, where it points, and the key to take out of what comes back. */
export interface Connection {
  readonly client: OpenAI
  readonly host: string
  readonly maxRetries: number
  readonly secret: string | null | undefined
}

/** CR, LF, NUL and the other C0 controls (and DEL): no HTTP header can carry them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

/** The client for `options` (the user's own, or one built from the options and the environment). */
export function connect(options: OpenAIJudgeOptions, name: string, timeoutMs: number): Connection {
  let client = options.client
  let secret: string | null | undefined = client?.apiKey
  if (client === undefined) {
    const baseURL = nonEmpty(options.baseURL) ?? readEnv('OPENAI_BASE_URL')
    secret = nonEmpty(options.apiKey) ?? readEnv('OPENAI_API_KEY')
    if (secret !== undefined && CONTROL_CHARACTER.test(secret)) {
      // Never echoed: the SDK's own header error would print the whole key.
      throw new ConfigurationError(
        `The API key for the judge model "${name}" (${options.apiKey === undefined ? 'OPENAI_API_KEY' : 'the apiKey option'}) ` +
          'contains a control character (a line break, tab or NUL inside it), so it cannot be sent in an HTTP ' +
          'header.',
        { advice: 'Check how it was copied or read from its file.' },
      )
    }
    if (baseURL !== undefined) checkBaseURL(baseURL, options.baseURL === undefined ? 'OPENAI_BASE_URL' : 'baseURL')
    if (secret === undefined && baseURL === undefined) {
      throw new ConfigurationError(`The judge model "${name}" has no API key.`, {
        advice:
          'Set OPENAI_API_KEY, or set OPENAI_BASE_URL to a local OpenAI-compatible server (any key, or none), or ' +
          'pass `apiKey` to OpenAIJudge, or pass your own judge (any object implementing JudgeModel) as the ' +
          'metric’s model.',
      })
    }
    try {
      client = new OpenAI({
        apiKey: secret ?? 'not-needed',
        baseURL: baseURL ?? null,
        timeout: timeoutMs,
        maxRetries: options.maxRetries ?? DEFAULT_JUDGE_MAX_RETRIES,
        fetch: leavingRateLimitsToTheRuntime(options.fetch),
      })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      throw new ConfigurationError(`Could not create the OpenAI client: ${scrubSecrets(message, secret)}`)
    }
  }
  return { client, host: hostOf(client.baseURL), maxRetries: options.maxRetries ?? client.maxRetries, secret }
}

/**
 * A fetch whose 429 answers tell the SDK not to retry (its `x-should-retry` header), so the 429 reaches the judge
 * runtime, which pauses every worker for it and retries; the SDK keeps retrying 5xx and connection errors.
 */
function leavingRateLimitsToTheRuntime(custom: typeof fetch | undefined): typeof fetch {
  return async (input, init) => {
    const response = await (custom ?? globalThis.fetch)(input, init)
    if (response.status !== 429) return response
    const headers = new Headers(response.headers)
    headers.set('x-should-retry', 'false')
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  }
}

const optionsSchema = judgeOptionsSchema({
  model: expecting(z.string().trim().min(1), 'a non-empty model name such as `gpt-4.1`').optional(),
  // Never quoted in an error: a key given as a number or an object is still a key.
  apiKey: expectingSecret(z.string(), 'a string').optional(),
  baseURL: expecting(z.string(), "the API root as a string, such as 'http://127.0.0.1:11434/v1'").optional(),
  reasoningEffort: expecting(
    z.string().trim().min(1),
    "a non-empty effort such as 'low', 'medium' or 'high'",
  ).optional(),
  structuredOutputs: expecting(
    z.enum(['auto', 'json_schema', 'json_object']),
    "one of 'auto', 'json_schema', 'json_object'",
  ).optional(),
  fetch: functionSchema<typeof fetch>(
    'a fetch function (the global `fetch`, or one with the same signature)',
  ).optional(),
  client: expecting(
    z.custom<OpenAI>((value) => typeof value === 'object' && value !== null),
    'an `OpenAI` (or `AzureOpenAI`) client from the openai package',
  ).optional(),
})

/** Checks every option of OpenAIJudge at once (naming each wrong one), then the base URLs it was given. */
export function validateOptions(options: OpenAIJudgeOptions): void {
  parseOptions(optionsSchema, options, 'OpenAIJudge')
  if (nonEmpty(options.baseURL) !== undefined) checkBaseURL(options.baseURL as string, 'baseURL')
  const clientBaseURL = (options.client as { baseURL?: unknown } | undefined)?.baseURL
  if (typeof clientBaseURL === 'string' && clientBaseURL !== '') checkBaseURL(clientBaseURL, "the `client`'s baseURL")
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
