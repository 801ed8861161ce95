/**
 * How many judge calls may be in flight, and how fast they may start, found from the provider's answers (AIMD, as
 * TCP finds a link's capacity). Every call that ends without a 429 raises both a little; a 429 cuts the
 * concurrency to 70% and paces starts at 90% of the rate they were starting at. Most providers limit requests per
 * minute, and a rate is what such a limit needs: a concurrency cut alone overshoots or undershoots by a whole call
 * at a time. The calls already in flight at a cut were sent under the old limits, so their 429s are the same
 * congestion, not new evidence: only a call started after the last cut can cut again. The concurrency stays
 * between 1 (never starves) and `max` (the configured concurrency); the pace never falls below one start a second.
 */
export class AdaptiveLimit {
  readonly max: number
  #limit: number
  #epoch = 0
  #rateLimited = 0
  #lowest: number
  /** Starts per second once a 429 has been seen; undefined (unpaced) before. */
  #pace: number | undefined
  /** When calls started: those from `#firstRecent` on started within the last second. */
  readonly #starts: number[] = []
  #firstRecent = 0

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

  /** Starts per second allowed now; undefined until the first 429. */
  get pace(): number | undefined {
    return this.#pace
  }

  /** The least time between two starts, from the pace; 0 when unpaced. */
  get spacingMs(): number {
    return this.#pace === undefined ? 0 : 1000 / this.#pace
  }

  /** A stamp for a call that starts now; hand it back with its outcome. */
  get epoch(): number {
    return this.#epoch
  }

  /** A call starts now (performance.now() time). */
  started(now: number): void {
    this.#starts.push(now)
    this.#forgetBefore(now - 1000)
  }

  /** A call ended without a 429 (an answer or another error: neither says the provider is overloaded). */
  succeeded(): void {
    // +0.5/limit per call: one more slot per two windows of `limit` calls; the pace likewise gains 0.5 starts a
    // second per second of calls at that pace.
    this.#limit = Math.min(this.max, this.#limit + 0.5 / this.#limit)
    if (this.#pace !== undefined) this.#pace += 0.5 / this.#pace
  }

  /** A call started at `epoch` got a 429 (seen at `now`, a performance.now() time). */
  rateLimitedAt(epoch: number, now = performance.now()): void {
    this.#rateLimited += 1
    if (epoch !== this.#epoch) return
    this.#epoch += 1
    this.#limit = Math.max(1, this.#limit * DECREASE)
    this.#lowest = Math.min(this.#lowest, this.current)
    this.#forgetBefore(now - 1000)
    const recent = Math.max(this.#starts.length - this.#firstRecent, 1)
    this.#pace = Math.max(1, Math.min(this.#pace ?? recent, recent) * PACE_DECREASE)
  }

  /**
   * Moves past the starts at or before `cutoff`. Not `shift()`: at tens of thousands of starts a second the array
   * outgrows what V8 can trim in place, and each shift would copy it. The old part is dropped in one go once it is
   * at least half the array, so the work per start stays constant.
   */
  #forgetBefore(cutoff: number): void {
    const starts = this.#starts
    while (this.#firstRecent < starts.length && (starts[this.#firstRecent] as number) <= cutoff) this.#firstRecent += 1
    if (this.#firstRecent > 1024 && this.#firstRecent * 2 >= starts.length) {
      starts.splice(0, this.#firstRecent)
      this.#firstRecent = 0
    }
  }
}

/** The cut on a 429: gentler than TCP's halving, since a rate limit resets within seconds. */
const DECREASE = 0.7
/** The pace after a 429: just under the rate that met the limit. */
const PACE_DECREASE = 0.9
