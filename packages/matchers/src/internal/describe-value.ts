/** Shows a value the way an error message should: short, with its type, e.g. "`1.5` (number)". */
export function describeValue(value: unknown): string {
  return `${shortForm(value)} (${kindOf(value)})`
}

function shortForm(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value)
    if (keys.length === 0) return '`{}`'
    const shown = keys.slice(0, 5).map((key) => `\`${key}\``)
    return `an object with keys ${shown.join(', ')}${keys.length > 5 ? ', …' : ''}`
  }
  return `\`${String(value)}\``
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name
    return typeof name === 'string' && name !== 'Object' ? name : 'object'
  }
  return typeof value
}
