import { DagValidationError } from '../../errors.js'
import { describeValue } from '../../internal/describe-value.js'
import type { DagNode } from '../node.js'
import { isVerdictNode, type VerdictNodeBase } from './verdict-node.js'

/**
 * What happens when a verdict added with `addVerdict` is chosen: the walk ends with `score` (an integer 0..10), or
 * continues at `then` (a node, or a metric whose score becomes the DAG's score). Exactly one of the two.
 */
export type VerdictOutcome<Child> =
  | {
      /** The score (an integer 0..10) the metric gets when the walk ends here. */
      score: number
      then?: undefined
    }
  | {
      /** The node to continue the walk at, or a metric whose score becomes the DAG's score. */
      then: Child
      score?: undefined
    }

/**
 * The shared body of every `addVerdict`: builds the VerdictNode for `verdict` and `outcome` (or takes an existing
 * VerdictNode, to share it with another judgement) and hands it to `append`. Problems with the outcome throw at once,
 * naming `owner`; the rules about the owner's verdicts are checked when the graph is built, as for `children`.
 */
export function addVerdictTo<Verdict extends VerdictNodeBase>(
  owner: DagNode,
  verdict: unknown,
  outcome: unknown,
  create: new (options: never) => Verdict,
  append: (node: Verdict) => Verdict,
): Verdict {
  const call = `addVerdict(${describeValue(verdict)})`
  const fail = (rule: string, message: string): never => {
    throw new DagValidationError([{ rule, node: owner.describe(), message }])
  }
  if (isVerdictNode(verdict)) {
    if (outcome !== undefined) {
      fail(
        'add-verdict-outcome',
        `addVerdict(verdictNode) shares an existing VerdictNode, which already has its score or child; drop the second argument ${describeValue(outcome)}.`,
      )
    }
    return append(verdict as Verdict)
  }
  const { score, then } = (typeof outcome === 'object' && outcome !== null ? outcome : {}) as {
    score?: unknown
    then?: unknown
  }
  if ((score === undefined) === (then === undefined)) {
    fail(
      'add-verdict-outcome',
      score === undefined
        ? `${call} needs a second argument { score } (an integer 0..10 that ends the walk) or { then } (a node or metric to continue with); got ${describeValue(outcome)}.`
        : `${call} takes either { score } or { then }, not both: remove one.`,
    )
  }
  let node: Verdict
  try {
    node = new create((then === undefined ? { verdict, score } : { verdict, child: then }) as never)
  } catch (error) {
    if (!(error instanceof DagValidationError)) throw error
    // The VerdictNode's own message, said of the call that made it.
    throw new DagValidationError(error.issues.map((issue) => ({ ...issue, node: `${owner.describe()}.${call}` })))
  }
  return append(node)
}
