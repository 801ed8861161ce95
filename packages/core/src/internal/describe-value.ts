import { isDagNode } from '../dag/node.js'

/** Renders any value briefly for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === undefined) return 'undefined'
  // JSON would say `null` for NaN and ±Infinity, naming a value that was never there.
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'function') return 'a function'
  if (isDagNode(value)) return `a single ${value.describe()} (wrap it in an array)`
  try {
    const json = JSON.stringify(value)
    return json.length > 80 ? `${json.slice(0, 79)}…` : json
  } catch {
    return String(value)
  }
}
