import { describeValue } from '../../internal/describe-value.js'
import type { DagNode, ReportIssue } from '../node.js'
import { isVerdictNode, type VerdictNodeBase } from './verdict-node.js'

/**
 * The rules for a node that decides between VerdictNode children without a judge (code and tool-call nodes):
 * every child is a verdict, and the verdicts are either exactly `true` and `false`, or (when `strings` is allowed)
 * two or more distinct strings. `name` is how the message calls the node, e.g. `a ToolCallNode`.
 */
export function checkVerdictChildren(
  name: string,
  children: readonly DagNode[],
  report: ReportIssue,
  strings: boolean,
): void {
  const strays = children.filter((child) => !isVerdictNode(child))
  if (strays.length > 0) {
    report(
      'decision-children',
      `every child of ${name} must be a VerdictNode; found ${strays.map((child) => describeChild(child)).join(', ')}. ` +
        'To continue the walk after a verdict, give that VerdictNode the node as its `child`.',
    )
  }
  const values = children.filter(isVerdictNode).map((verdict: VerdictNodeBase) => verdict.verdict)
  const binary = values.length === 2 && values.includes(true) && values.includes(false)
  const distinctStrings =
    values.length >= 2 && values.every((value) => typeof value === 'string') && new Set(values).size === values.length
  if (binary || (strings && distinctStrings)) return
  const got = values.length === 0 ? 'none' : values.map((value) => JSON.stringify(value)).join(', ')
  report(
    'decision-verdicts',
    strings
      ? `${name} needs VerdictNode children with verdicts true and false (when it decides yes or no), or two or more ` +
          `distinct string verdicts (when it picks one); got ${got}.`
      : `${name} needs exactly two VerdictNode children, one with verdict true and one with verdict false; got ${got}.`,
  )
}

function describeChild(child: unknown): string {
  return typeof child === 'object' && child !== null && typeof (child as DagNode).describe === 'function'
    ? (child as DagNode).describe()
    : describeValue(child)
}
