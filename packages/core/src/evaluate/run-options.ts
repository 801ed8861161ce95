// The options evaluate() and calibrate() share, checked the same way: `undefined` is "the default", and anything
// else, `null` included, must be a value of the right kind.

/** The problems with the shared options, one sentence each; empty when all are fine. */
export function runOptionProblems(options: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = []
  const { signal, onProgress, progress, summary, stdout, stderr, concurrency } = options
  const asSignal = signal as Partial<AbortSignal> | null | undefined
  if (
    signal !== undefined &&
    (typeof asSignal?.aborted !== 'boolean' || typeof asSignal.addEventListener !== 'function')
  ) {
    problems.push(`Expected \`signal\` to be an AbortSignal, got \`${String(signal)}\` (${typeOf(signal)}).`)
  }
  if (
    concurrency !== undefined &&
    !(typeof concurrency === 'number' && Number.isInteger(concurrency) && concurrency >= 1)
  ) {
    problems.push(`Expected \`concurrency\` to be a whole number from 1 and up, got \`${String(concurrency)}\`.`)
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    problems.push(`Expected \`onProgress\` to be a function, got \`${String(onProgress)}\` (${typeOf(onProgress)}).`)
  }
  for (const [name, value] of [
    ['progress', progress],
    ['summary', summary],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') {
      problems.push(`Expected \`${name}\` to be true or false, got \`${String(value)}\` (${typeOf(value)}).`)
    }
  }
  for (const [name, value] of [
    ['stdout', stdout],
    ['stderr', stderr],
  ] as const) {
    if (value !== undefined && typeof (value as { write?: unknown } | null)?.write !== 'function') {
      problems.push(
        `Expected \`${name}\` to be a stream with a write(text) method, such as process.${name}, got \`${String(value)}\` (${typeOf(value)}).`,
      )
    }
  }
  return problems
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value
}
