import { ConfigurationError } from '../errors.js'
import { describeValue } from '../internal/describe-value.js'
import type { ConversationalTestCase, LLMTestCase } from '../test-case/schemas.js'

/** A human's verdict on one case: pass or fail, or a score from 0 to 1. One calibration uses one kind. */
export type CalibrationLabel = { readonly pass: boolean } | { readonly score: number }

/** A test case with the verdict a human gave it after reading it. */
export interface LabelledCase<TestCase = LLMTestCase | ConversationalTestCase> {
  readonly testCase: TestCase
  readonly label: CalibrationLabel
  /** Names the case in the summary and the disagreements. @default the test case's `name`, if it has one */
  readonly name?: string | undefined
}

/** Which kind of label a calibration's cases carry. */
export type LabelKind = 'pass' | 'score'

const HOW_TO_LABEL = 'Give every case `label: { pass: true | false }` or every case `label: { score: 0..1 }`.'

/**
 * Checks the labelled cases against the metric's kind and returns the kind of their labels; throws one
 * ConfigurationError listing every problem, each with the index of its case.
 */
export function checkLabelledCases(labelled: unknown, metricKind: string | undefined): LabelKind {
  if (!Array.isArray(labelled) || labelled.length === 0) {
    throw new ConfigurationError(
      `calibrate(metric, labelled): expected \`labelled\` to be a non-empty array of { testCase, label }, got ${describeValue(labelled)}.`,
    )
  }
  const problems: string[] = []
  const kinds = new Map<LabelKind, number[]>()
  for (const [index, entry] of labelled.entries()) {
    const at = `labelled[${index}]`
    if (typeof entry !== 'object' || entry === null) {
      problems.push(`${at} is ${describeValue(entry)}, not an object { testCase, label }.`)
      continue
    }
    const { testCase, label, name } = entry as Record<string, unknown>
    if (typeof testCase !== 'object' || testCase === null) {
      problems.push(`${at}.testCase is ${describeValue(testCase)}; expected a test case object.`)
    } else {
      const conversational = 'turns' in testCase
      if (metricKind === 'single-turn' && conversational) {
        problems.push(`${at}.testCase is a conversation, but the metric judges single-turn test cases.`)
      } else if (metricKind === 'conversational' && !conversational) {
        problems.push(`${at}.testCase has no \`turns\`, but the metric judges conversations.`)
      }
    }
    if (name !== undefined && typeof name !== 'string') {
      problems.push(`${at}.name is ${describeValue(name)}; expected a string or nothing.`)
    }
    const kind = labelKindOf(label, `${at}.label`, problems)
    if (kind !== undefined) kinds.set(kind, [...(kinds.get(kind) ?? []), index])
  }
  const passes = kinds.get('pass') ?? []
  const scores = kinds.get('score') ?? []
  if (passes.length > 0 && scores.length > 0) {
    const fewer = passes.length < scores.length ? { kind: 'pass', indices: passes } : { kind: 'score', indices: scores }
    problems.push(
      `The labels mix kinds: ${passes.length} pass/fail and ${scores.length} score labels. ${HOW_TO_LABEL} ` +
        `The ${fewer.kind} labels are at ${listIndices(fewer.indices)}.`,
    )
  }
  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid calibrate() labels:\n  - ${problems.join('\n  - ')}`)
  }
  return scores.length > 0 ? 'score' : 'pass'
}

function labelKindOf(label: unknown, at: string, problems: string[]): LabelKind | undefined {
  if (typeof label !== 'object' || label === null) {
    problems.push(`${at} is ${describeValue(label)}. ${HOW_TO_LABEL}`)
    return undefined
  }
  const { pass, score } = label as Record<string, unknown>
  if (pass !== undefined && score !== undefined) {
    problems.push(`${at} has both \`pass\` and \`score\`; keep one. ${HOW_TO_LABEL}`)
    return undefined
  }
  if (pass !== undefined) {
    if (typeof pass === 'boolean') return 'pass'
    problems.push(`${at}.pass is ${describeValue(pass)}; expected true or false.`)
    return undefined
  }
  if (score !== undefined) {
    if (typeof score === 'number' && score >= 0 && score <= 1) return 'score'
    problems.push(`${at}.score is ${describeValue(score)}; expected a number from 0 to 1.`)
    return undefined
  }
  problems.push(`${at} has neither \`pass\` nor \`score\`. ${HOW_TO_LABEL}`)
  return undefined
}

function listIndices(indices: readonly number[]): string {
  const shown = indices.slice(0, 10).map((index) => `labelled[${index}]`)
  return indices.length > 10 ? `${shown.join(', ')} and ${indices.length - 10} more` : shown.join(', ')
}
