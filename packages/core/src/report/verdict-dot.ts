import { GREEN, quote, RED, wrap } from '../dag/dot.js'
import { formatScore } from '../trace/render.js'
import type { TraceNode } from '../trace/types.js'

/** What a picture of a step metric's verdicts needs of a result. */
export interface VerdictsOf {
  readonly name: string
  readonly score: number
  readonly threshold: number
  readonly success: boolean
  readonly trace: { readonly nodes: readonly StepEntry[] }
}

/** The fields of a trace entry the picture reads (a record's entries have them too). */
type StepEntry = Pick<TraceNode, 'id' | 'role' | 'label' | 'status' | 'verdict' | 'output' | 'outputLabel'>

const GREY = { fill: '#f4f4f5', line: '#a1a1aa' }
const NEUTRAL = { fill: '#ffffff', line: '#52525b' }

/**
 * The verdicts of a metric that judges windows or turns one by one (the relevancy metrics) as a small graph in DOT:
 * the metric and its score on the left, one node per judged window with its verdict, green where it holds and red
 * where it does not, and for a turn whose retrieval context was split into statements, one node per statement.
 * Undefined when no step of the trace gave a verdict: such a trace is text, and the text is shown already.
 */
export function verdictsToDot(result: VerdictsOf): string | undefined {
  const steps = result.trace.nodes.filter((node) => node.role === 'step')
  if (!steps.some((node) => node.verdict !== undefined)) return undefined
  const lines = [
    'digraph judgetree {',
    '  graph [rankdir=LR, bgcolor="white", pad=0.2, nodesep=0.2, ranksep=0.5, fontname="Helvetica"]',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, margin="0.12,0.06"]',
    '  edge [color="#a1a1aa"]',
    `  metric [label=${quote(`${result.name}\nscore ${formatScore(result.score)} (threshold ${formatScore(result.threshold)})`)}${colours(result.success ? GREEN : RED)}, penwidth=2]`,
  ]
  for (const node of steps) {
    const id = dotId(node.id)
    const statements = node.outputLabel === 'statements' ? statementsOf(node.output ?? '') : []
    const look = lookOf(node, statements)
    const verdict = node.status === 'failed' ? 'error' : node.status === 'skipped' ? 'not judged' : node.verdict
    const label = `${node.label ?? node.id}: ${verdict === undefined ? 'no verdict' : String(verdict)}`
    lines.push(
      `  ${id} [label=${quote(wrap(label))}${colours(look)}${node.status === 'skipped' ? ', style="rounded,filled,dashed"' : ''}]`,
    )
    lines.push(`  metric -> ${id}`)
    statements.forEach((statement, index) => {
      lines.push(`  ${id}_s${index} [label=${quote(wrap(statement.text))}${colours(statement.holds ? GREEN : RED)}]`)
      lines.push(`  ${id} -> ${id}_s${index}`)
    })
  }
  lines.push('}')
  return lines.join('\n')
}

/** The `✓ …` / `✗ …` lines a statement-judging step writes as its output. */
function statementsOf(output: string): { readonly text: string; readonly holds: boolean }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('✓') || line.startsWith('✗'))
    .map((line) => ({ text: line, holds: line.startsWith('✓') }))
}

function lookOf(node: StepEntry, statements: readonly { readonly holds: boolean }[]): typeof GREEN {
  if (node.status === 'failed') return RED
  if (node.status === 'skipped') return GREY
  if (statements.length > 0) return statements.every((statement) => statement.holds) ? GREEN : RED
  const holds = verdictHolds(node.verdict)
  return holds === undefined ? NEUTRAL : holds ? GREEN : RED
}

/** Whether a step's verdict is the good one: `relevant`, `yes`, `true`, or `k of n …` with every one of n. */
function verdictHolds(verdict: TraceNode['verdict']): boolean | undefined {
  if (typeof verdict === 'boolean') return verdict
  if (verdict === undefined) return undefined
  const counted = /^(\d+) of (\d+)\b/.exec(verdict)
  if (counted !== null) return counted[1] === counted[2]
  const word = verdict.trim().toLowerCase()
  if (['relevant', 'yes', 'true'].includes(word)) return true
  if (['irrelevant', 'no', 'false'].includes(word)) return false
  return undefined
}

function colours({ fill, line }: typeof GREEN): string {
  return `, fillcolor="${fill}", color="${line}"`
}

/** Trace ids are `n1`, `n2`, …; anything else is made a safe DOT identifier. */
function dotId(id: string): string {
  return `v_${id.replace(/\W/g, '_')}`
}
