import { z } from 'zod'
import { type DagIssue, DagValidationError } from '../../errors.js'
import { checkOptions, expecting } from '../../internal/options.js'
import type { ReportIssue } from '../node.js'

/**
 * Collects every problem with a node's own options so they are thrown together: a user fixes a node in one go.
 * An option not among `keys` is one (`unknown-option`, with a `did you mean`). Call `report` for each problem, then
 * `done()` once every option was checked.
 */
export function nodeOptionIssues(
  kind: string,
  options: unknown,
  keys: readonly string[],
  identify?: Identify,
): { report: ReportIssue; done: () => void } {
  const issues: DagIssue[] = []
  const where = describeNodeOptions(kind, options, identify)
  const report: ReportIssue = (rule, message) => issues.push({ rule, node: where, message })
  checkNodeOption(expecting(z.object({}), `an options object (new ${kind}(options))`), options, report, 'options')
  if (issues.length > 0) throw new DagValidationError(issues)
  const known = z.strictObject(Object.fromEntries(keys.map((key) => [key, z.unknown().optional()])))
  checkNodeOption(known, options, report, 'options', 'unknown-option')
  return {
    report,
    done: () => {
      if (issues.length > 0) throw new DagValidationError(issues)
    },
  }
}

/**
 * Checks one option of a node with its schema through the one option checker, reporting each problem under `rule`
 * (the option's name unless told): the same words every option bag uses, with the DAG's rule codes. Returns the
 * value when it passed.
 */
export function checkNodeOption<Schema extends z.ZodType>(
  schema: Schema,
  options: unknown,
  report: ReportIssue,
  key: string,
  rule = key,
): { readonly ok: true; readonly value: z.output<Schema> } | { readonly ok: false } {
  const whole = key === 'options'
  const checked = checkOptions(whole ? schema : z.object({ [key]: schema }), options)
  if (checked.ok) {
    const value = whole ? checked.value : (checked.value as Record<string, unknown>)[key]
    return { ok: true, value: value as z.output<Schema> }
  }
  for (const problem of checked.problems) report(rule, problem.message)
  return { ok: false }
}

const nonBlank = z.string().refine((text) => text.trim().length > 0)

/** Checks a required, non-blank string option. */
export function requireText(options: object, key: string, report: ReportIssue, hint: string): string {
  const checked = checkNodeOption(expecting(nonBlank, `a non-empty string (${hint})`), options, report, key)
  return checked.ok ? checked.value : ''
}

const labelSchema = expecting(z.string(), 'a string shown in traces').optional()

/** Checks the optional `label` option. */
export function optionalLabel(options: object, report: ReportIssue): string | undefined {
  const checked = checkNodeOption(labelSchema, options, report, 'label')
  return checked.ok ? checked.value : undefined
}

const childrenSchema = expecting(z.array(z.unknown()), 'an array of nodes').optional()

/**
 * Checks the optional `children` option is an array (absent when the node is completed top-down, with
 * `addNode`/`addVerdict`); the rules about what it holds are checked when the graph is built.
 */
export function childrenOption<C>(options: object, report: ReportIssue): readonly C[] {
  const checked = checkNodeOption(childrenSchema, options, report, 'children')
  // A copy of the caller's array: adding children later never changes theirs.
  return Object.freeze(checked.ok && checked.value !== undefined ? [...checked.value] : []) as readonly C[]
}

/**
 * How a kind names a node from its options when it has no label, e.g. `(criteria: "Ok?")`; undefined when the
 * options do not say (then the kind alone names it).
 */
export type Identify = (options: Readonly<Record<string, unknown>>) => string | undefined

/** Names a node by a text option, e.g. `(criteria: "Is the answer polite?")`, shortened for one line. */
export function byText(key: string): Identify {
  return (options) => {
    const text = options[key]
    return typeof text === 'string' ? `(${key}: ${JSON.stringify(shorten(text))})` : undefined
  }
}

/** How messages and traces name a node: its label, else what the kind's `identify` picks from its options. */
export function describeNodeOptions(kind: string, options: unknown, identify?: Identify): string {
  if (typeof options !== 'object' || options === null) return kind
  const record = options as Record<string, unknown>
  if (typeof record.label === 'string') return `${kind} "${record.label}"`
  const identity = identify?.(record)
  return identity === undefined ? kind : `${kind} ${identity}`
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 50 ? `${flat.slice(0, 49)}…` : flat
}

export { shorten }

/** Drops undefined values, so serialised nodes list only the options that were set. */
export function compact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
}
