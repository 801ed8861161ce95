/**
 * How many judge calls may be in flight, found from the provider's answers (AIMD, as TCP finds a link's capacity):
 * every call that ends without a 429 raises the limit a little, so it climbs by about one per window of calls; a
 * 429 cuts it to 70% at once. The calls already in flight when the limit was cut were sent under the old limit, so
 * their 429s are the same congestion, not new evidence: only a call started after the last cut can cut it again.
 * The limit stays between 1 (never starves) and `max` (the configured concurrency).
 */
export class AdaptiveLimit {
  readonly max: number
  #limit: number
  #epoch = 0
  #rateLimited = 0
  #lowest: number

  constructor(max: number) {
    this.max = max
    this.#limit = max
    this.#lowest = max
  }

  /** Calls that may be in flight now. */
  get current(): number {
    return Math.max(1, Math.floor(this.#limit))
  }

  /** The lowest the limit has been. */
  get lowest(): number {
    return this.#lowest
  }

  /** 429s seen since the start. */
  get rateLimited(): number {
    return this.#rateLimited
  }

  /** A stamp for a call that starts now; hand it back with its outcome. */
  get epoch(): number {
    return this.#epoch
  }

  /** A call ended without a 429 (an answer or another error: neither says the provider is overloaded). */
  succeeded(): void {
    // +1/limit per call: about one more slot per window of `limit` calls, halved so recovery stays gentle.
    this.#limit = Math.min(this.max, this.#limit + 0.5 / this.#limit)
  }

  /** A call started at `epoch` got a 429. */
  rateLimitedAt(epoch: number): void {
    this.#rateLimited += 1
    if (epoch !== this.#epoch) return
    this.#epoch += 1
    this.#limit = Math.max(1, this.#limit * DECREASE)
    this.#lowest = Math.min(this.#lowest, this.current)
  }
}

/** The cut on a 429: gentler than TCP's halving, since a rate limit resets within seconds. */
const DECREASE = 0.7
