import type { MetricResult } from '../metric/types.js'
import { formatCount } from '../report/summary.js'

/** Where evaluate() is on its way through the pairs. */
export interface EvaluationProgress {
  /** Pairs measured so far. */
  readonly done: number
  /** Pairs to measure (skipped pairs excluded). */
  readonly total: number
  readonly passed: number
  readonly failed: number
  readonly errored: number
  readonly judgeCalls: number
  readonly cachedCalls: number
  readonly elapsedMs: number
}

/** Counts results as they arrive, for the progress bar and `onProgress` of evaluate() and calibrate(). */
export class ProgressTally {
  readonly #total: number
  readonly #started: number
  readonly #counts = { done: 0, passed: 0, failed: 0, errored: 0, judgeCalls: 0, cachedCalls: 0 }

  /** `started` is the run's `performance.now()` at its start. */
  constructor(total: number, started: number) {
    this.#total = total
    this.#started = started
  }

  /** Counts one result and returns where the run is now. */
  add(result: MetricResult): EvaluationProgress {
    const counts = this.#counts
    counts.done += 1
    if (result.error) counts.errored += 1
    else if (result.success) counts.passed += 1
    else counts.failed += 1
    counts.judgeCalls += result.usage.judgeCalls
    counts.cachedCalls += result.usage.cachedCalls
    return { ...counts, total: this.#total, elapsedMs: performance.now() - this.#started }
  }
}

/** A stream the progress bar and the summary are written to. */
export interface OutputStream {
  write(text: string): unknown
  readonly isTTY?: boolean | undefined
}

const BAR_WIDTH = 24

/** One line: `[██████░░░░] 45/120 · 40 passed, 3 failed, 2 errored · 135 judge calls (12 cached) · 0:12`. */
export function renderProgressLine(progress: EvaluationProgress): string {
  const ratio = progress.total === 0 ? 1 : progress.done / progress.total
  const filled = Math.round(ratio * BAR_WIDTH)
  const bar = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`
  return (
    `${bar} ${formatCount(progress.done)}/${formatCount(progress.total)} · ${formatCount(progress.passed)} passed, ` +
    `${formatCount(progress.failed)} failed, ${formatCount(progress.errored)} errored · ` +
    `${formatCount(progress.judgeCalls)} judge calls (${formatCount(progress.cachedCalls)} cached) · ` +
    formatElapsed(progress.elapsedMs)
  )
}

/** A bar redrawn in place on a terminal at most every `intervalMs`, and erased when the run ends. */
export class ProgressBar {
  readonly #stream: OutputStream
  readonly #intervalMs: number
  #lastDraw = Number.NEGATIVE_INFINITY
  #drawn = false

  constructor(stream: OutputStream, intervalMs = 100) {
    this.#stream = stream
    this.#intervalMs = intervalMs
  }

  update(progress: EvaluationProgress): void {
    const now = performance.now()
    if (progress.done < progress.total && now - this.#lastDraw < this.#intervalMs) return
    this.#lastDraw = now
    this.#drawn = true
    this.#stream.write(`\r\x1b[2K${renderProgressLine(progress)}`)
  }

  /** Clears the line so what follows starts on a clean one. */
  finish(): void {
    if (this.#drawn) this.#stream.write('\r\x1b[2K')
    this.#drawn = false
  }
}

function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}
