import { z } from 'zod'
import { ConfigurationError } from '../errors.js'
import { closestName } from './closest-name.js'

// One way to check every option bag: a zod schema beside the bag's owner says what each option must be, and this
// file turns zod's issues into judgetree's sentence, p-queue style: what was expected, and what was given.

/**
 * What an option should have been, worded to follow "Expected `x` to be …". A function picks the wording from the
 * value given, for an option whose fix depends on how it was wrong (`trials: 1000` is too many, `trials: 1.5` not
 * a count).
 */
export type Expectation = string | ((given: unknown) => string)

const expectations = z.registry<{ expected: Expectation; concealed?: boolean }>()

/** Gives a schema the words its errors use: every issue zod finds in it becomes one "Expected … got …" sentence. */
export function expecting<Schema extends z.ZodType>(schema: Schema, expected: Expectation): Schema {
  expectations.add(schema, { expected })
  return schema
}

/** As {@link expecting}, for an option that may hold a secret (a key): errors name the type given, never the value. */
export function expectingSecret<Schema extends z.ZodType>(schema: Schema, expected: string): Schema {
  expectations.add(schema, { expected, concealed: true })
  return schema
}

/** One problem with an option bag: the option's path (`failOnRegression.tolerance`; '' for the bag itself). */
export interface OptionProblem {
  readonly option: string
  readonly message: string
}

/** The value the schema made of the options, or every problem with them. */
export type OptionCheck<Output> =
  | { readonly ok: true; readonly value: Output }
  | { readonly ok: false; readonly problems: readonly OptionProblem[] }

/** Checks `value` against `schema`, collecting every problem (one per option) instead of stopping at the first. */
export function checkOptions<Schema extends z.ZodType>(schema: Schema, value: unknown): OptionCheck<z.output<Schema>> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return { ok: true, value: parsed.data }
  const problems = new Map<string, string>()
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(shapeOf(schemaAt(schema, issue.path)) ?? {})
      for (const key of issue.keys) {
        const option = joinPath([...issue.path, key])
        problems.set(option, unknownOption(option, key, known))
      }
      continue
    }
    const { option, expected, given, concealed } = locate(schema, value, issue)
    const shown = concealed ? kindWithArticle(given) : describeGiven(given)
    if (!problems.has(option))
      problems.set(option, `Expected \`${option || 'options'}\` to be ${expected}, got ${shown}.`)
  }
  return { ok: false, problems: [...problems].map(([option, message]) => ({ option, message })) }
}

/**
 * Parses `value` with `schema`, or throws one ConfigurationError that lists every problem: "Invalid options for
 * `where`:" and a line per option.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: string,
): z.output<Schema> {
  const checked = checkOptions(schema, value)
  if (checked.ok) return checked.value
  throw new ConfigurationError(`Invalid options for ${where}:\n${listProblems(checked.problems.map((p) => p.message))}`)
}

/** The problems as an indented list, one per line, the way every "Invalid options" error shows them. */
export function listProblems(problems: readonly string[]): string {
  return problems.map((problem) => `  - ${problem}`).join('\n')
}

/** Shows a value the way an error message should: short, with its type, e.g. "`1.5` (number)". */
export function describeGiven(value: unknown): string {
  return `${shortForm(value)} (${kindOf(value)})`
}

function unknownOption(option: string, key: string, known: readonly string[]): string {
  const meant = closestName(key, known)
  return meant === undefined
    ? `unknown option \`${option}\`; the options are ${known.map((name) => `\`${name}\``).join(', ')}.`
    : `unknown option \`${option}\`; did you mean \`${meant}\`?`
}

/**
 * The option an issue is about and the words for it: the deepest schema on the issue's path that has an
 * expectation, so `{ tolerance: 2 }` is reported as the whole `failOnRegression` when only that one is worded.
 */
function locate(
  root: z.ZodType,
  value: unknown,
  issue: z.core.$ZodIssue,
): { option: string; expected: string; given: unknown; concealed: boolean } {
  let schema: z.ZodType | undefined = root
  let given = value
  // The bag's own words are for the bag itself (not an object); an option inside it is worded by its own schema.
  let found = { depth: 0, meta: issue.path.length === 0 ? metaOf(root) : undefined, given: value }
  for (const [index, key] of issue.path.entries()) {
    schema = schema === undefined ? undefined : schemaAt(schema, [key])
    given = typeof given === 'object' && given !== null ? (given as Record<PropertyKey, unknown>)[key] : undefined
    const meta = schema === undefined ? undefined : metaOf(schema)
    if (meta !== undefined) found = { depth: index + 1, meta, given }
  }
  const { meta } = found
  if (meta === undefined) return { option: joinPath(issue.path), expected: zodWords(issue), given, concealed: false }
  const expected = typeof meta.expected === 'string' ? meta.expected : meta.expected(found.given)
  const option = joinPath(issue.path.slice(0, found.depth))
  return { option, expected, given: found.given, concealed: meta.concealed === true }
}

/** Zod's own words, for a schema nobody worded: "Invalid input: expected number, received string" → "number". */
function zodWords(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `a${/^[aeiou]/.test(issue.expected) ? 'n' : ''} ${issue.expected}`
  return issue.message.replace(/^Invalid input: /, '').replace(/^expected /, '')
}

/** The words of a schema, looking through `.optional()` and the like, which wrap it in a new schema. */
function metaOf(schema: z.ZodType): { expected: Expectation; concealed?: boolean } | undefined {
  let current: z.ZodType | undefined = schema
  while (current !== undefined) {
    const meta = expectations.get(current)
    if (meta !== undefined) return meta
    current = innerOf(current)
  }
  return undefined
}

function innerOf(schema: z.ZodType): z.ZodType | undefined {
  const def = schema.def as { type: string; innerType?: z.ZodType; in?: z.ZodType }
  if (def.type === 'pipe') return def.in
  return def.innerType
}

/** The schema of the value at `path` inside an object schema, or undefined where the path leaves the objects. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema
  for (const key of path) {
    const shape: Record<string, z.ZodType> | undefined = current === undefined ? undefined : shapeOf(current)
    current = shape?.[key as string]
  }
  return current
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  let current = schema
  while (current !== undefined) {
    const def = current.def as { type: string; shape?: Record<string, z.ZodType> }
    if (def.type === 'object') return def.shape
    current = innerOf(current)
  }
  return undefined
}

function joinPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join('')
}

function shortForm(value: unknown): string {
  if (typeof value === 'string') return `'${visible(value.length > 40 ? `${value.slice(0, 40)}…` : value)}'`
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value)
    if (keys.length === 0) return '`{}`'
    const entries = Object.entries(value)
    // A small bag of plain values is clearer shown whole: `{ tolerance: 2 }`.
    if (entries.length <= 3 && entries.every(([, inner]) => isPlain(inner))) {
      return `\`{ ${entries.map(([key, inner]) => `${key}: ${typeof inner === 'string' ? `'${visible(inner.slice(0, 40))}'` : String(inner)}`).join(', ')} }\``
    }
    const shown = keys.slice(0, 5).map((key) => `\`${key}\``)
    return `an object with keys ${shown.join(', ')}${keys.length > 5 ? ', …' : ''}`
  }
  return `\`${String(value)}\``
}

/** Control characters as escapes, so a given value can neither hide in nor rewrite the message (a NUL, an ANSI code). */
function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function isPlain(value: unknown): boolean {
  return value === null || value === undefined || ['string', 'number', 'boolean', 'bigint'].includes(typeof value)
}

/** "a number", "an object", "null": what a concealed value was, without the value. */
function kindWithArticle(value: unknown): string {
  const kind = kindOf(value)
  return kind === 'null' || kind === 'undefined' ? kind : `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`
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

/** An option that is on or off. */
export const flagSchema = expecting(z.boolean(), 'true or false')

/** An option that takes a function; what it is called with belongs in the expectation's words. */
export function functionSchema<Fn>(expected: string): z.ZodType<Fn> {
  return expecting(
    z.custom<Fn>((value) => typeof value === 'function'),
    expected,
  )
}
