/** A trimmed string, or undefined when it is missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

/** An environment variable's trimmed value; unset and blank both read as undefined. */
export function readEnv(name: string): string | undefined {
  return nonEmpty(process.env[name])
}
