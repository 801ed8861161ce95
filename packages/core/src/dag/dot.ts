import { xmlSafe } from '../internal/safe-text.js'
import { formatProbability } from '../trace/render.js'
import type { MetricTrace, TraceNode } from '../trace/types.js'
import type { DeepAcyclicGraph } from './graph.js'
import type { NodePicture } from './node.js'
import { planOf } from './plan.js'
import { walkView } from './walk.js'

/** Options for {@link dagToDot}. */
export interface DotOptions {
  /**
   * A measurement's trace: the walked path is drawn bold (green, or red when `passed` is false), each walked edge to a verdict labelled with its
   * probability when the judge gave one, and nodes that did not run grey and dashed.
   */
  trace?: MetricTrace | undefined
  /**
   * Whether the measurement of `trace` passed: when false, its walked path and the verdict it reached are drawn red
   * instead of green, so a failed evaluation does not look like a pass. @default true
   */
  passed?: boolean | undefined
  /** Layout direction: top to bottom or left to right. @default 'TB' */
  direction?: 'TB' | 'LR' | undefined
}

const LINE_WIDTH = 32
const LABEL_LIMIT = 120

/** Graphviz shape and the styles it needs (a pill is a rounded box). */
const SHAPES: Readonly<Record<NodePicture['shape'], readonly [string, readonly string[]]>> = {
  box: ['box', []],
  diamond: ['diamond', []],
  hexagon: ['hexagon', []],
  pill: ['box', ['rounded']],
}

export const GREEN = { fill: '#dcfce7', line: '#15803d' }
export const RED = { fill: '#fee2e2', line: '#b91c1c' }

/** How a node looks after a measurement, by its status in the trace; a node that ran takes the outcome's colour. */
function looks(
  status: TraceNode['status'],
  outcome: typeof GREEN,
): { readonly colours: string; readonly style?: string } {
  if (status === 'skipped')
    return { colours: 'fillcolor="#f4f4f5", color="#a1a1aa", fontcolor="#71717a"', style: 'dashed' }
  const { fill, line } = status === 'failed' ? RED : outcome
  return { colours: `fillcolor="${fill}", color="${line}", penwidth=2` }
}

/**
 * Draws a DAG in Graphviz's DOT language, for any Graphviz renderer (`dot -Tsvg`, or Graphviz compiled to
 * WebAssembly): the same shapes as `toMermaid()`, and with a trace the walked path highlighted.
 */
export function dagToDot(dag: DeepAcyclicGraph, options: DotOptions = {}): string {
  const plan = planOf(dag)
  const view = walkView(plan, options.trace)
  const traced = options.trace !== undefined
  const outcome = options.passed === false ? RED : GREEN
  const lines = [
    'digraph judgetree {',
    `  graph [rankdir=${options.direction ?? 'TB'}, bgcolor="white", pad=0.2, nodesep=0.35, ranksep=0.45, fontname="Helvetica"]`,
    '  node [fontname="Helvetica", fontsize=11, fillcolor="white", color="#52525b", margin="0.12,0.06"]',
    '  edge [fontname="Helvetica", fontsize=10, color="#71717a"]',
  ]
  const edges: string[] = []
  for (const node of plan.order) {
    const id = view.id(node)
    const picture = node.picture()
    const status = view.status(node)
    const [shape, styles] = SHAPES[picture.shape]
    const look = traced && status !== undefined ? looks(status, outcome) : undefined
    const style = ['filled', ...styles, ...(look?.style === undefined ? [] : [look.style])].join(',')
    const colours = look === undefined ? '' : `, ${look.colours}`
    lines.push(`  ${id} [shape=${shape}, style="${style}", label=${quote(labelOf(picture))}${colours}]`)
    if (picture.metric !== undefined) {
      const label = quote(`metric: ${wrap(picture.metric)}`)
      lines.push(`  ${id}_metric [shape=box, peripheries=2, style="${style}", label=${label}${colours}]`)
      edges.push(`  ${id} -> ${id}_metric${edgeLook(traced && outcome, status === 'ran')}`)
    }
    for (const child of new Set(node.children)) {
      const walked = view.walked(node, child)
      const chance = view.probability(node, child)
      const data =
        node.childEdge === 'data'
          ? `style=dashed, label=${quote(node.outputLabel ?? '')}`
          : chance === undefined
            ? ''
            : `label=${quote(formatProbability(chance))}`
      edges.push(`  ${id} -> ${view.id(child)}${edgeLook(traced && outcome, walked, data)}`)
    }
  }
  lines.push(...edges)
  lines.push('}')
  return lines.join('\n')
}

function labelOf(picture: NodePicture): string {
  const title = picture.title === undefined ? '' : `${picture.title}: `
  const score = picture.score === undefined ? '' : ` → ${picture.score}`
  return wrap(`${title}${picture.text}${score}`)
}

/** A walked edge in the outcome's colour (none without a trace), any other one grey. */
function edgeLook(outcome: typeof GREEN | false, walked: boolean, extra = ''): string {
  const look = outcome === false ? '' : walked ? `color="${outcome.line}", penwidth=3` : 'color="#a1a1aa"'
  const attributes = [extra, look].filter((part) => part !== '').join(', ')
  return attributes === '' ? '' : ` [${attributes}]`
}

/** Long criteria would make huge diamonds: wrapped into short lines, and cut after a few of them. */
export function wrap(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const short = flat.length > LABEL_LIMIT ? `${flat.slice(0, LABEL_LIMIT - 1)}…` : flat
  const lines: string[] = []
  let line = ''
  for (const word of short.split(' ')) {
    if (line !== '' && line.length + word.length + 1 > LINE_WIDTH) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  lines.push(line)
  return lines.join('\n')
}

/**
 * A DOT string: quotes and backslashes escaped, line breaks as DOT's centred `\n`. Control characters are shown as
 * their pictures and what XML cannot hold as U+FFFD: Graphviz refuses a NUL, and copies an ESC into its SVG, which
 * is then no XML.
 */
export function quote(text: string): string {
  return `"${xmlSafe(text).split('\n').map(escapeDot).join('\\n')}"`
}

function escapeDot(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
}
