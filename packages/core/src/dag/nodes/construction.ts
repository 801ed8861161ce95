import { type DagIssue, DagValidationError } from '../../errors.js'
import { describeValue } from '../../internal/describe-value.js'
import type { ReportIssue } from '../node.js'

/**
 * Collects every problem with a node's own options so they are thrown together: a user fixes a node in one go.
 * Call `report` for each problem, then `done()` once every option was checked.
 */
export function nodeOptionIssues(
  kind: string,
  options: unknown,
  identify?: Identify,
): { report: ReportIssue; done: () => void } {
  const issues: DagIssue[] = []
  const where = describeNodeOptions(kind, options, identify)
  const report: ReportIssue = (rule, message) => issues.push({ rule, node: where, message })
  if (typeof options !== 'object' || options === null) {
    report('options', `new ${kind}(options) needs an options object; got ${describeValue(options)}.`)
    throw new DagValidationError(issues)
  }
  return {
    report,
    done: () => {
      if (issues.length > 0) throw new DagValidationError(issues)
    },
  }
}

/** Checks a required, non-blank string option. */
export function requireText(options: object, key: string, report: ReportIssue, hint: string): string {
  const value = (options as Record<string, unknown>)[key]
  if (typeof value === 'string' && value.trim().length > 0) return value
  report(key, `${key} must be a non-empty string (${hint}); got ${describeValue(value)}.`)
  return ''
}

/** Checks the optional `label` option. */
export function optionalLabel(options: object, report: ReportIssue): string | undefined {
  const value = (options as Record<string, unknown>).label
  if (value === undefined || typeof value === 'string') return value
  report('label', `label must be a string shown in traces; got ${describeValue(value)}.`)
  return undefined
}

/**
 * Checks the optional `children` option is an array (absent when the node is completed top-down, with
 * `addNode`/`addVerdict`); the rules about what it holds are checked when the graph is built.
 */
export function childrenOption<C>(options: object, report: ReportIssue): readonly C[] {
  const value = (options as Record<string, unknown>).children
  if (value === undefined) return Object.freeze([])
  if (Array.isArray(value)) return Object.freeze([...value]) as readonly C[]
  report('children', `children must be an array of nodes; got ${describeValue(value)}.`)
  return Object.freeze([])
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
