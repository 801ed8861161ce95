// Reading a baseline file: its shape and every value's range are checked, so a hand-edited or damaged file is
// reported as such (naming each bad entry) instead of printing "was Infinity" or comparing with nonsense.
import type { BaselineEntry, BaselineFile } from './baseline.js'

/** The bad entries a message names before "and N more". */
const MAX_LISTED = 5

/**
 * Reads a baseline file's text; throws an Error saying what is wrong with it (the caller names the file). Entries
 * written before `ordinal` existed get one: same-named entries are numbered in the order the file lists them, which
 * was the order of their tests in the file.
 */
export function parseBaseline(text: string): BaselineFile {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`it is not valid JSON (${(error as Error).message})`)
  }
  const file = value as { version?: unknown; entries?: unknown } | null
  if (typeof file !== 'object' || file === null || file.version !== 1 || !Array.isArray(file.entries)) {
    throw new Error('it is not a judgetree baseline (expected { "version": 1, "entries": [...] })')
  }
  const problems = file.entries.flatMap((entry: unknown, index) => {
    const issues = entryIssues(entry)
    return issues.length === 0 ? [] : [`entries[${index}]: ${issues.join('; ')}`]
  })
  if (problems.length > 0) {
    const more = problems.length > MAX_LISTED ? `; and ${problems.length - MAX_LISTED} more bad entries` : ''
    const count = problems.length === 1 ? '1 bad entry' : `${problems.length} bad entries`
    throw new Error(`it has ${count}: ${problems.slice(0, MAX_LISTED).join('; ')}${more}`)
  }
  return { version: 1, entries: withOrdinals(file.entries as EntryFields[]) }
}

type EntryFields = Omit<BaselineEntry, 'ordinal'> & { readonly ordinal?: number }

/** Every field that is missing, of the wrong type or out of range, e.g. `score is 1e+308, not …`. */
function entryIssues(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${shown(value)} is not an object`]
  const entry = value as Record<string, unknown>
  const issues: string[] = []
  const check = (field: string, ok: (field: unknown) => boolean, wanted: string, optional = false) => {
    const fieldValue = entry[field]
    if (optional && fieldValue === undefined) return
    if (!ok(fieldValue)) issues.push(`${field} is ${shown(fieldValue)}, not ${wanted}`)
  }
  const text = (field: unknown) => typeof field === 'string'
  const count = (field: unknown) => Number.isSafeInteger(field) && (field as number) >= 1
  const fraction = (field: unknown) => typeof field === 'number' && field >= 0 && field <= 1
  const flag = (field: unknown) => typeof field === 'boolean'
  check('project', text, 'a string')
  check('file', (field) => text(field) && field !== '', 'a file path')
  check('test', text, 'a string')
  check('ordinal', count, 'a whole number from 1 up', true)
  check('assertion', count, 'a whole number from 1 up')
  check('metric', text, 'a string')
  check('score', (field) => field === null || fraction(field), 'null or a number from 0 to 1')
  check('threshold', fraction, 'a number from 0 to 1')
  check('passed', flag, 'true or false')
  check('negated', flag, 'true or false')
  check('passProbability', fraction, 'a number from 0 to 1', true)
  return issues
}

/** A value as a message shows it: JSON, cut short; `undefined` for a missing field. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing'
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 40 ? `${json.slice(0, 39)}…` : json
}

function withOrdinals(entries: readonly EntryFields[]): BaselineEntry[] {
  const seen = new Map<string, number>()
  return entries.map((entry) => {
    if (entry.ordinal !== undefined) return entry as BaselineEntry
    const key = JSON.stringify([entry.project, entry.file, entry.test, entry.assertion])
    const ordinal = (seen.get(key) ?? 0) + 1
    seen.set(key, ordinal)
    return { ...entry, ordinal }
  })
}
