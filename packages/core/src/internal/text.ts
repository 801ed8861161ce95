/** The text of anything thrown: an error's message, else the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Shortens text for a one-line reason. */
export function shortText(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
