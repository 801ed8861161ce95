/**
 * How many judge calls may be in flight, and how fast they may start, found from the provider's answers.
 *
 * Concurrency is AIMD, as TCP finds a link's capacity: every call that ends without a 429 raises it a little, a 429
 * cuts it to 70%. The calls already in flight at a cut were sent under the old limits, so their 429s are the same
 * congestion, not new evidence: only a call started after the last cut can cut again. It stays between 1 (never
 * starves) and `max` (the configured concurrency).
 *
 * Most providers limit requests per minute, and a rate is what such a limit needs (a concurrency cut alone
 * overshoots or undershoots by a whole call at a time), so a 429 also paces starts: at 90% of the rate the provider
 * accepted over the last second, never below one start a second. It is lowered again only when 429s keep coming at
 * that pace (more than a stray few, with calls getting through in between). The pace is a guard, not a setting: it
 * is dropped after a quiet while without any 429, since a burst of 429s (a provider's hiccup, a cold start) or a few
 * random ones would otherwise slow the rest of the run for good. A provider that really limits the rate answers 429
 * again soon after the pace is dropped, and each time it does the quiet while doubles (from half a second up to a
 * minute), so the run probes above a real limit rarely, yet runs at full speed again within a second of a hiccup.
 */
export class AdaptiveLimit {
  readonly max: number
  #limit: number
  #epoch = 0
  #rateLimited = 0
  #lowest: number
  /** Starts per second while paced; undefined (unpaced) before the first 429 and after a quiet while. */
  #pace: number | undefined
  readonly #starts = new RecentTimes()
  readonly #rejections = new RecentTimes()
  /** Whether a call ended without a 429 since the pace was last lowered (or since the run began). */
  #acceptedSinceCut = false
  /** When the first call started: in a run's first second, rates are measured over the time there was. */
  #measuredFrom: number | undefined
  /** When the last 429 came, and when the pace was last lowered (performance.now() times). */
  #lastRateLimitAt = Number.NEGATIVE_INFINITY
  #lastPaceCutAt = Number.NEGATIVE_INFINITY
  /** How long without a 429 before the pace is dropped. */
  #quietMs = MIN_QUIET_MS
  /** When the pace was last dropped, until the next 429. */
  #releasedAt: number | undefined

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

  /** Starts per second allowed now; undefined while unpaced. */
  get pace(): number | undefined {
    return this.#pace
  }

  /** The least time between two starts, from the pace; 0 when unpaced. */
  get spacingMs(): number {
    return this.#pace === undefined ? 0 : 1000 / this.#pace
  }

  /** How long without a 429 before the pace is dropped; doubles each time a 429 comes soon after a drop. */
  get quietMs(): number {
    return this.#quietMs
  }

  /** A stamp for a call that starts now; hand it back with its outcome. */
  get epoch(): number {
    return this.#epoch
  }

  /** A call starts now (performance.now() time). */
  started(now: number): void {
    this.#measuredFrom ??= now
    this.#starts.add(now)
  }

  /** A call ended without a 429 (an answer or another error: neither says the provider is overloaded). */
  succeeded(now?: number): void {
    // +0.5/limit per call: one more slot per two windows of `limit` calls (none once at the most: no work per call).
    if (this.#limit < this.max) this.#limit = Math.min(this.max, this.#limit + 0.5 / this.#limit)
    this.#acceptedSinceCut = true
    // The clock is read only while paced: it is the one thing left per call here.
    if (this.#pace !== undefined && (now ?? performance.now()) - this.#lastRateLimitAt >= this.#quietMs) {
      this.#pace = undefined
      this.#releasedAt = now ?? performance.now()
    }
  }

  /** A call started at `epoch` got a 429 (seen at `now`, a performance.now() time). */
  rateLimitedAt(epoch: number, now = performance.now()): void {
    this.#rateLimited += 1
    this.#lastRateLimitAt = Math.max(this.#lastRateLimitAt, now)
    this.#rejections.add(now)
    if (epoch !== this.#epoch) return
    this.#epoch += 1
    this.#limit = Math.max(1, this.#limit * DECREASE)
    this.#lowest = Math.min(this.#lowest, this.current)
    this.#adjustQuiet(now)
    // While every call meets a 429 (none got through since the pace was set, or since the run began), the server's
    // pause is what helps, and there is no accepted rate to pace at: cutting on each would pace the run to nothing.
    if (!this.#acceptedSinceCut || (this.#pace !== undefined && !this.#stillTooFast(now))) return
    this.#pace = Math.max(1, Math.min(this.#pace ?? Number.POSITIVE_INFINITY, this.#acceptedRate(now)) * PACE_DECREASE)
    this.#lastPaceCutAt = now
    this.#acceptedSinceCut = false
  }

  /** Whether a 429 while paced says the pace is still too fast: 429s were at least 3 and 5% of a second's starts. */
  #stillTooFast(now: number): boolean {
    const since = now - RATE_WINDOW_MS
    const rejections = this.#rejections.countAfter(since)
    return rejections >= REPEAT_MIN && rejections >= REPEAT_SHARE * this.#starts.countAfter(since)
  }

  /**
   * Starts per second the provider accepted (not answered 429) over the last second, or since the run began if that
   * is nearer: a 429 10 ms into a run met the rate of those 10 ms (5 calls are 500 a second). At least half the start
   * rate: a burst of 429s just before does not pace the run to nothing.
   */
  #acceptedRate(now: number): number {
    const since = now - RATE_WINDOW_MS
    const from = Math.max(since, this.#measuredFrom ?? now)
    const starts = Math.max(this.#starts.countAfter(since, from), 1)
    const accepted = Math.max(starts - this.#rejections.countAfter(since, from), starts / 2)
    return (accepted * RATE_WINDOW_MS) / Math.max(1, now - from)
  }

  /**
   * A 429 soon after the pace was dropped says the limit is real: wait twice as long before dropping it again. A
   * 429 that the pace did not prevent (a second or more after it was last lowered) says these 429s do not depend on
   * the rate (a flaky provider, a quota shared with others): holding the pace would not help, so it is dropped sooner.
   */
  #adjustQuiet(now: number): void {
    if (this.#releasedAt !== undefined) {
      const soon = now - this.#releasedAt < SOON_AFTER_RELEASE_MS
      this.#quietMs = soon
        ? Math.min(MAX_QUIET_MS, this.#quietMs * QUIET_GROWTH)
        : Math.max(MIN_QUIET_MS, this.#quietMs / 2)
      this.#releasedAt = undefined
    } else if (this.#pace !== undefined && now - this.#lastPaceCutAt >= RATE_WINDOW_MS) {
      this.#quietMs = Math.max(MIN_QUIET_MS, this.#quietMs / 2)
    }
  }
}

/** Times of events (performance.now()), counted over a recent window. */
class RecentTimes {
  readonly #times: number[] = []
  /** Times before this index are older than the last window asked about. */
  #first = 0

  add(now: number): void {
    this.#times.push(now)
    this.#forgetBefore(now - RATE_WINDOW_MS)
  }

  /**
   * Events after `since` and not before `from`; those at or before `since` (never earlier than a previous call's) are
   * forgotten. `from` may be later than `since`, to count part of the window.
   */
  countAfter(since: number, from = since): number {
    this.#forgetBefore(since)
    const times = this.#times
    let low = this.#first
    let high = times.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((times[middle] as number) < from) low = middle + 1
      else high = middle
    }
    return times.length - low
  }

  /**
   * Moves past the times at or before `cutoff`. Not `shift()`: at tens of thousands of starts a second the array
   * outgrows what V8 can trim in place, and each shift would copy it. The old part is dropped in one go once it is
   * at least half the array, so the work per event stays constant.
   */
  #forgetBefore(cutoff: number): void {
    const times = this.#times
    while (this.#first < times.length && (times[this.#first] as number) <= cutoff) this.#first += 1
    if (this.#first > 1024 && this.#first * 2 >= times.length) {
      // In place: splice would also build an array of the times it drops.
      times.copyWithin(0, this.#first)
      times.length -= this.#first
      this.#first = 0
    }
  }
}

/** The cut on a 429: gentler than TCP's halving, since a rate limit resets within seconds. */
const DECREASE = 0.7
/** The pace after a 429: just under the rate the provider accepted. */
const PACE_DECREASE = 0.9
/** The 429s among the last second's starts that lower the pace again once paced: at least 3, and 5% of them. */
const REPEAT_MIN = 3
const REPEAT_SHARE = 0.05
/** The window rates are measured over. */
const RATE_WINDOW_MS = 1000
/** The quiet while after which the pace is dropped: at first, and at most (after 429s soon after each drop). */
const MIN_QUIET_MS = 500
const MAX_QUIET_MS = 60_000
/** How much longer the quiet while gets after a 429 soon after the pace was dropped. */
const QUIET_GROWTH = 2
/** A 429 within this long of dropping the pace says the limit is real. */
const SOON_AFTER_RELEASE_MS = 2_000
