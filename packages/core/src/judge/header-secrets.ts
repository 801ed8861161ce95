// The secrets a transport scrubs: those its user named, and the credentials its provider sends in request headers
// (read at every call, so a key that changes is followed). For transports whose key the environment does not name.

/** Provider keys remembered at once (a key that rotates adds one per rotation). */
const MAX_PROVIDER_KEYS = 8

/** Header names whose values are credentials: Authorization, api-key (Azure), x-api-key, x-goog-api-key, tokens. */
const CREDENTIAL_HEADER = /auth|key|token|secret|password|cookie|signature/i

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

  /**
   * Adds the credentials in `headers` (an object, a Headers, or a function giving either, awaited as providers do);
   * headers that cannot be built (no key: the call says so) add none.
   */
  async refresh(headers: unknown): Promise<readonly string[]> {
    for (const secret of await credentialsInHeaders(headers)) {
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

async function credentialsInHeaders(headers: unknown): Promise<string[]> {
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
