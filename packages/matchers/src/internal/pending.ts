/**
 * The `toPassMetric` assertions of one test that are still running. The matcher registers itself synchronously,
 * before its first await; if any are still registered when the test body has returned, they were not awaited.
 */
export class PendingAssertions {
  readonly #running = new Map<Promise<void>, string | undefined>()

  /**
   * Registers one running assertion; call the returned function when it has settled. `callSite` is a stack
   * captured where the matcher was called, so the failure can point at the `expect` line that lacks `await`.
   */
  start(callSite?: string): () => void {
    let settle = (): void => {}
    const running = new Promise<void>((resolve) => {
      settle = resolve
    })
    this.#running.set(running, callSite)
    return () => {
      this.#running.delete(running)
      settle()
    }
  }

  /** Waits for the assertions still running, then returns the error for them, if there were any: they were not awaited. */
  async settleUnawaited(): Promise<Error | undefined> {
    const running = [...this.#running]
    if (running.length === 0) return undefined
    await Promise.allSettled(running.map(([promise]) => promise))
    return unawaitedError(running.length, running[0]?.[1])
  }
}

/** The error a test fails with when it returned before its `toPassMetric` assertions finished. */
function unawaitedError(count: number, callSite: string | undefined): Error {
  const what = count === 1 ? '1 toPassMetric() assertion was' : `${count} toPassMetric() assertions were`
  const error = new Error(
    `${what} not awaited, so the test ended before the judge answered and the result was never checked. ` +
      'Write: await expect(testCase).toPassMetric(metric)',
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
