/** How long the guard waits for cancelled assertions to record their (aborted) results before failing the test. */
export const CANCEL_GRACE_MS = 1_000

/** One running assertion: its abort signal, and the function to call once it has settled. */
export interface RunningAssertion {
  /** Aborts when the guard cancels the assertion or when any of the signals passed to `start` aborts. */
  readonly signal: AbortSignal
  /**
   * True once the guard cancelled the assertion because its test had ended. The test then fails with the
   * guard's error; the assertion itself should not throw too, since nothing awaits it any more (Jest would
   * crash on the unhandled rejection, Vitest would report an unhandled error).
   */
  readonly cancelled: () => boolean
  readonly settle: () => void
}

/**
 * The `toPassMetric` assertions of one test that are still running. The matcher registers itself synchronously,
 * before its first await; if any are still registered when the test has ended (it returned without awaiting
 * them, or the runner gave up on it at its timeout), they are cancelled: nothing keeps running after the test.
 */
export class PendingAssertions {
  readonly #running = new Map<
    Promise<void>,
    { callSite: string | undefined; controller: AbortController; abandoned: (() => void) | undefined }
  >()

  /**
   * Registers one running assertion. `callSite` is a stack captured where the matcher was called, so the failure
   * can point at the `expect` line; `signals` (the test's, for instance) also abort the assertion. `abandoned` is
   * called, synchronously and before the test is reported, if the assertion has still not settled when the guard
   * stops waiting for it: what it records then is all the runner will ever send of it.
   */
  start(
    callSite?: string,
    signals: readonly (AbortSignal | undefined)[] = [],
    abandoned?: () => void,
  ): RunningAssertion {
    const controller = new AbortController()
    let resolve = (): void => {}
    const running = new Promise<void>((done) => {
      resolve = done
    })
    this.#running.set(running, { callSite, controller, abandoned })
    return {
      signal: anySignal([controller.signal, ...signals]) ?? controller.signal,
      cancelled: () => controller.signal.aborted,
      settle: () => {
        this.#running.delete(running)
        resolve()
      },
    }
  }

  /**
   * Aborts the assertions still running, so their judge calls are cancelled, waits briefly for them to settle,
   * and returns the error the test fails with, if there were any.
   */
  async cancelUnfinished(): Promise<Error | undefined> {
    const running = [...this.#running]
    if (running.length === 0) return undefined
    for (const [, { controller }] of running) {
      controller.abort(new Error('the test ended before this toPassMetric() assertion finished'))
    }
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CANCEL_GRACE_MS)
      timer.unref?.()
    })
    await Promise.race([Promise.allSettled(running.map(([promise]) => promise)), grace])
    clearTimeout(timer)
    // Those that did not settle in time (a measurement that ignores the abort, or a worker starved of CPU) would
    // record their results after the runner has sent the test's last update, where no reporter sees them.
    for (const [promise, { abandoned }] of running) if (this.#running.has(promise)) abandoned?.()
    return unfinishedError(running.length, running[0]?.[1].callSite)
  }
}

/** The signals combined (aborts when any does), or undefined when there is none. */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined)
  if (present.length <= 1) return present[0]
  return AbortSignal.any(present)
}

/** The error a test fails with when it ended before its `toPassMetric` assertions finished. */
function unfinishedError(count: number, callSite: string | undefined): Error {
  const what =
    count === 1
      ? '1 toPassMetric() assertion was still running when the test ended, so its judge calls were cancelled.'
      : `${count} toPassMetric() assertions were still running when the test ended, so their judge calls were cancelled.`
  const error = new Error(
    `${what} If the test timed out, raise its timeout; otherwise write: await expect(testCase).toPassMetric(metric)`,
  )
  const frames = callSite?.split('\n').slice(1)
  if (frames && frames.length > 0) error.stack = [`${error.name}: ${error.message}`, ...frames].join('\n')
  return error
}

/** The stack of a call to `matcher`, starting at the first frame outside node_modules: the user's `expect` line. */
export function callSiteOf(matcher: (...args: never[]) => unknown): string | undefined {
  const holder: { stack?: string } = {}
  Error.captureStackTrace(holder, matcher)
  const [head = '', ...frames] = (holder.stack ?? '').split('\n')
  const first = frames.findIndex((frame) => !/[\\/]node_modules[\\/]|\(node:/.test(frame))
  return first === -1 ? undefined : [head, ...frames.slice(first)].join('\n')
}
