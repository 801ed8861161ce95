import { xmlSafe } from '../internal/safe-text.js'
import { formatProbability } from '../trace/render.js'
import type { MetricTrace } from '../trace/types.js'
import { GREEN, RED } from './dot.js'
import type { DeepAcyclicGraph } from './graph.js'
import type { DagNode, NodePicture } from './node.js'
import { planOf } from './plan.js'
import { walkView } from './walk.js'

/** Options for {@link dagToMermaid}. */
export interface MermaidOptions {
  /**
   * A measurement's trace: the walked path is highlighted, each walked edge to a verdict labelled with its
   * probability when the judge gave one, and nodes that did not run are greyed.
   */
  trace?: MetricTrace | undefined
  /**
   * Whether the measurement of `trace` passed: when false, its walked path and the verdict it reached are drawn red
   * instead of green, as `toDot()` draws them. @default true
   */
  passed?: boolean | undefined
  /** Layout direction. @default 'TD' */
  direction?: 'TD' | 'LR' | undefined
}

const LABEL_LIMIT = 70

/**
 * Draws a DAG as a Mermaid flowchart: tasks as boxes, judgements as diamonds, verdicts as pills, TaskNode outputs
 * as dotted edges labelled by their output label. With a trace, the walked path is highlighted.
 */
export function dagToMermaid(dag: DeepAcyclicGraph, options: MermaidOptions = {}): string {
  const plan = planOf(dag)
  const lines = [`flowchart ${options.direction ?? 'TD'}`]
  const edges: { line: string; walked: boolean }[] = []
  const { id, status, walked: walkedTo, probability } = walkView(plan, options.trace)
  const ran = (node: DagNode) => status(node) === 'ran'

  for (const node of plan.order) {
    lines.push(`  ${id(node)}${shape(node)}`)
    const { metric } = node.picture()
    if (metric) {
      lines.push(`  ${id(node)}_metric[["metric: ${escapeLabel(metric)}"]]`)
      edges.push({ line: `  ${id(node)} --> ${id(node)}_metric`, walked: ran(node) })
    }
    for (const child of new Set(node.children)) {
      const walked = walkedTo(node, child)
      const chance = probability(node, child)
      const arrow =
        node.childEdge === 'data'
          ? `-.->|${escapeLabel(node.outputLabel ?? '')}|`
          : chance === undefined
            ? '-->'
            : `-->|${formatProbability(chance)}|`
      edges.push({ line: `  ${id(node)} ${arrow} ${id(child)}`, walked })
    }
  }
  lines.push(...edges.map((edge) => edge.line))
  if (options.trace) {
    const outcome = options.passed === false ? RED : GREEN
    lines.push(`  classDef walked fill:${outcome.fill},stroke:${outcome.line},stroke-width:2px`)
    lines.push('  classDef skipped fill:#f4f4f5,stroke:#a1a1aa,color:#71717a,stroke-dasharray:4 3')
    lines.push(`  classDef failed fill:${RED.fill},stroke:${RED.line},stroke-width:2px`)
    for (const [cls, wanted] of [
      ['walked', 'ran'],
      ['skipped', 'skipped'],
      ['failed', 'failed'],
    ] as const) {
      const ids = plan.order.filter((node) => status(node) === wanted).map(id)
      if (ids.length > 0) lines.push(`  class ${ids.join(',')} ${cls}`)
    }
    const walked = edges.flatMap((edge, index) => (edge.walked ? [index] : []))
    if (walked.length > 0) lines.push(`  linkStyle ${walked.join(',')} stroke:${outcome.line},stroke-width:3px`)
  }
  return lines.join('\n')
}

const SHAPES: Readonly<Record<NodePicture['shape'], readonly [string, string]>> = {
  box: ['["', '"]'],
  diamond: ['{"', '"}'],
  hexagon: ['{{"', '"}}'],
  pill: ['(["', '"])'],
}

function shape(node: DagNode): string {
  const picture = node.picture()
  const [open, close] = SHAPES[picture.shape]
  const title = picture.title === undefined ? '' : `${picture.title}: `
  const score = picture.score === undefined ? '' : ` → ${picture.score}`
  return `${open}${title}${escapeLabel(picture.text)}${score}${close}`
}

/**
 * A label's text as Mermaid entity codes where it could end the label (a quote, a `|`), become markup (`<`, `&`),
 * start Mermaid's Markdown labels or end a Markdown code fence (a backtick), or read as an entity code itself (`#`).
 * One line, control characters shown, not sent: whatever a test case or a judge wrote stays text in one node.
 */
function escapeLabel(text: string): string {
  const flat = xmlSafe(text.replace(/\s+/g, ' ').trim())
  const short = flat.length > LABEL_LIMIT ? `${flat.slice(0, LABEL_LIMIT - 1)}…` : flat
  return short.replace(/[#"<>|&`]/g, (char) => ENTITIES[char] ?? char)
}

const ENTITIES: Readonly<Record<string, string>> = {
  '#': '#35;',
  '"': '#quot;',
  '<': '#lt;',
  '>': '#gt;',
  '|': '#124;',
  '&': '#38;',
  '`': '#96;',
}
