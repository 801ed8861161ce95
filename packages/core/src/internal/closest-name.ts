/**
 * The known name a mistyped one was probably meant to be, for "did you mean" hints: the same name in another case
 * or spelling (`windowsize`, `window_size` → `windowSize`), else the nearest within two edits, an edit being one
 * letter inserted, removed, replaced, or two neighbours swapped (`treshold`, `threshhold`, `thershold` →
 * `threshold`). Names of three letters or fewer must match up to case. Undefined when nothing is that close, or
 * when two names are equally close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const folded = fold(name)
  const same = known.find((candidate) => fold(candidate) === folded)
  if (same !== undefined) return same
  const limit = folded.length <= 3 ? 0 : folded.length <= 5 ? 1 : 2
  let best: string | undefined
  let bestDistance = limit + 1
  let tie = false
  for (const candidate of known) {
    const distance = editDistance(folded, fold(candidate))
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
      tie = false
    } else if (distance === bestDistance) {
      tie = true
    }
  }
  return tie ? undefined : best
}

/** Lower case without separators: `window_size`, `window-size` and `windowSize` fold alike. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, '')
}

/** Edits between two strings (optimal string alignment: insert, delete, replace, swap two neighbours). */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1
  // d[i * width + j]: edits between the first i letters of a and the first j of b.
  const d = new Uint16Array((a.length + 1) * width)
  const at = (i: number, j: number): number => d[i * width + j] ?? 0
  for (let i = 0; i <= a.length; i++) d[i * width] = i
  for (let j = 0; j <= b.length; j++) d[j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1)
      d[i * width + j] = value
    }
  }
  return at(a.length, b.length)
}
