// The credentials an AI SDK model sends, read from the headers its provider builds for every request, so that the
// judge can take them out of whatever the server sends back; and the refusal of a base URL that holds credentials.
import { ConfigurationError } from '@judgetree/core'
import type { LanguageModelObject } from './validate.js'

/** Provider keys remembered at once (a key that rotates adds one per rotation). */
const MAX_PROVIDER_KEYS = 8

/** The secrets one judge scrubs: those its user named, and every key its provider has sent so far (a few at most). */
export class JudgeSecrets {
  readonly #named: readonly string[]
  readonly #known: Set<string>

  constructor(named: readonly string[] = []) {
    this.#named = named
    this.#known = new Set(named)
  }

  /** Every secret known now. */
  get all(): readonly string[] {
    return [...this.#known]
  }

  /** Adds the keys the model's provider sends as of this call (it may read them anew for each request). */
  async refresh(model: object): Promise<readonly string[]> {
    for (const secret of await providerSecrets(model)) {
      if (this.#known.has(secret)) continue
      // A rotating key adds one entry per rotation: the oldest provider keys go first, never the named ones.
      if (this.#known.size >= MAX_PROVIDER_KEYS + this.#named.length) {
        const oldest = [...this.#known].find((known) => !this.#named.includes(known))
        if (oldest !== undefined) this.#known.delete(oldest)
      }
      this.#known.add(secret)
    }
    return this.all
  }
}

/** Header names whose values are credentials: Authorization, api-key (Azure), x-api-key, x-goog-api-key, tokens. */
const CREDENTIAL_HEADER = /auth|key|token|secret|password|cookie|signature/i

/**
 * The secrets in the headers the model's provider sends with each call. The official providers (@ai-sdk/openai,
 * -openai-compatible, -azure, -anthropic, -google, -mistral, -groq, …) keep them as `config.headers`: a function
 * that reads the key passed to the provider, or its environment variable, when called. It is called (and awaited,
 * as the provider does) at every judge call, so a key that changes is followed. Empty when the model does not show
 * its headers (a model wrapped in middleware, a custom provider) or cannot build them (no key: the call says so).
 */
export async function providerSecrets(model: object): Promise<string[]> {
  const headers = (model as { config?: { headers?: unknown } }).config?.headers
  if (headers === undefined || headers === null) return []
  let resolved: unknown
  try {
    resolved = await (typeof headers === 'function' ? (headers as () => unknown)() : headers)
  } catch {
    return []
  }
  if (typeof resolved !== 'object' || resolved === null) return []
  const entries = resolved instanceof Headers ? [...resolved.entries()] : Object.entries(resolved)
  return entries.flatMap(([name, value]) =>
    typeof value === 'string' && CREDENTIAL_HEADER.test(name) ? credentialsIn(value.trim()) : [],
  )
}

/** `Bearer abc` gives `abc`; `Basic dXNlcjpwYXNz` gives the encoded pair, the pair and the password. */
function credentialsIn(value: string): string[] {
  const [, scheme, token] = /^([A-Za-z-]+) +(\S+)$/.exec(value) ?? []
  if (scheme === undefined || token === undefined) return value === '' ? [] : [value]
  if (scheme.toLowerCase() !== 'basic') return [token]
  const pair = Buffer.from(token, 'base64').toString('utf8')
  const password = pair.slice(pair.indexOf(':') + 1)
  return [token, pair, password].filter((secret) => secret !== '')
}

/** fetch refuses a URL with credentials at every call, and its message quotes the password: refused up front. */
export function refuseCredentialsInURL(model: LanguageModelObject): void {
  const url = urlOf(model)
  if (url === undefined || (url.username === '' && url.password === '')) return
  throw new ConfigurationError(
    `The judge model "${model.modelId}" (AI SDK provider ${model.provider}) has a baseURL with credentials before ` +
      `its host (${url.protocol}//***@${url.host}${url.pathname.replace(/\/+$/, '')}): fetch refuses such a URL for ` +
      "every call. Take them out of the URL and pass the key as the provider's `apiKey` (it goes in the " +
      "Authorization header), or in the provider's `headers` option.",
  )
}

/**
 * The API root, when the provider shows it: `@ai-sdk/openai` and OpenAI-compatible models build their URLs with
 * `config.url`.
 */
export function urlOf(model: LanguageModelObject): URL | undefined {
  const config = (model as { config?: { url?: unknown } }).config
  if (typeof config?.url !== 'function') return undefined
  try {
    return new URL(String(config.url({ modelId: model.modelId, path: '' })))
  } catch {
    return undefined
  }
}
