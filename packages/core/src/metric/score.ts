/** Clamps a score into [0, 1]; NaN becomes 0 so a broken computation can never pass. */
export function clampScore(score: number): number {
  if (Number.isNaN(score)) return 0
  return Math.min(1, Math.max(0, score))
}

/**
 * Applies strict mode, which means the same for every metric: the threshold becomes 1 and the score becomes 1
 * if it is 1, else 0.
 */
export function applyStrictMode(score: number, threshold: number, strictMode: boolean) {
  if (!strictMode) return { score: clampScore(score), threshold }
  return { score: clampScore(score) === 1 ? 1 : 0, threshold: 1 }
}
