import { DagValidationError } from '../../errors.js'
import { describeValue } from '../../internal/describe-value.js'
import type { NodeMode } from '../node.js'
import { NodeBase } from './node-base.js'
import {
  type ConversationalVerdictChild,
  ConversationalVerdictNode,
  isVerdictNode,
  type VerdictChild,
  VerdictNode,
  type VerdictNodeBase,
} from './verdict-node.js'

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

/** The verdict class of each mode, and what its verdicts continue with: what `addVerdict` takes and returns. */
interface Verdicts {
  'single-turn': { node: VerdictNode; child: VerdictChild }
  conversational: { node: ConversationalVerdictNode; child: ConversationalVerdictChild }
}

const VERDICT_CLASSES = { 'single-turn': VerdictNode, conversational: ConversationalVerdictNode } as const

/**
 * A node that decides between VerdictNode children (judgements, tool-call and code nodes): its children are
 * `Mode`'s verdicts, whose values are `Value`s, and it can be given them top-down with `addVerdict`.
 */
export abstract class VerdictParent<Value extends boolean | string, Mode extends NodeMode> extends NodeBase<
  VerdictNodeBase,
  Mode
> {
  readonly childEdge = 'choice' as const
  readonly traceRole = 'judgement' as const

  /**
   * Adds an outcome top-down and returns it: `{ score }` ends the walk there, `{ then }` continues at a node or
   * metric. Pass an existing verdict of this node's mode instead to share it with another node. Problems with the
   * outcome throw at once; the rules about the node's verdicts are checked when the graph is built, as for `children`.
   * @example present.addVerdict(false, { score: 0 })
   */
  addVerdict(verdict: Value, outcome: VerdictOutcome<Verdicts[Mode]['child']>): Verdicts[Mode]['node']
  addVerdict(shared: Verdicts[Mode]['node']): Verdicts[Mode]['node']
  addVerdict(verdict: unknown, outcome?: unknown): Verdicts[Mode]['node'] {
    const call = `addVerdict(${describeValue(verdict)})`
    const fail = (rule: string, message: string): never => {
      throw new DagValidationError([{ rule, node: this.describe(), message }])
    }
    if (isVerdictNode(verdict)) {
      if (outcome !== undefined) {
        fail(
          'add-verdict-outcome',
          `addVerdict(verdictNode) shares an existing VerdictNode, which already has its score or child; drop the second argument ${describeValue(outcome)}.`,
        )
      }
      return this.appendChild(verdict, 'addVerdict') as Verdicts[Mode]['node']
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
    let node: VerdictNodeBase
    try {
      const options = then === undefined ? { verdict, score } : { verdict, child: then }
      node = new VERDICT_CLASSES[this.mode](options as never)
    } catch (error) {
      if (!(error instanceof DagValidationError)) throw error
      // The VerdictNode's own message, said of the call that made it.
      throw new DagValidationError(error.issues.map((issue) => ({ ...issue, node: `${this.describe()}.${call}` })))
    }
    return this.appendChild(node, 'addVerdict') as Verdicts[Mode]['node']
  }
}
