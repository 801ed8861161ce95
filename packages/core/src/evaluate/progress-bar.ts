import { formatCount } from './summary.js'

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
