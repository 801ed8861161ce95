/** A trimmed string, or undefined when it is missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

/** An environment variable's trimmed value; unset and blank both read as undefined. */
export function readEnv(name: string): string | undefined {
  return nonEmpty(process.env[name])
}

/**
 * Where evaluate() and calibrate() print their summary unless told: stdout in a script, stderr inside a Vitest or
 * Jest worker, whose stdout belongs to the runner's own reporters (`vitest run --reporter=json > out.json` and
 * `jest --json` must stay parseable).
 */
export function defaultSummaryStream(): NodeJS.WriteStream {
  return insideTestRunner() ? process.stderr : process.stdout
}

/** True in a Vitest or Jest worker, where a test is running. */
export function insideTestRunner(): boolean {
  return readEnv('VITEST_WORKER_ID') !== undefined || readEnv('JEST_WORKER_ID') !== undefined
}
