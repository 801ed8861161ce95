import type { DotOptions } from '../dag/dot.js'
import type { MermaidOptions } from '../dag/mermaid.js'
import { xmlSafe } from '../internal/safe-text.js'
import { type VerdictsOf, verdictsToDot } from './verdict-dot.js'

/** What a picture needs of a metric: a DAG metric's graph can draw itself in DOT and in Mermaid. */
interface DrawableMetric {
  readonly dag?:
    | { toDot?: (options?: DotOptions) => string; toMermaid?: (options?: MermaidOptions) => string }
    | undefined
}

type Renderer = (dot: string) => string

let renderer: Promise<Renderer | undefined> | undefined

/**
 * Graphviz compiled to WebAssembly (`@viz-js/viz`, an optional peer dependency that @judgetree/matchers brings),
 * loaded on the first picture so that a run without one never pays for it; undefined when it cannot be loaded (the
 * text of every report still works).
 */
function loadRenderer(): Promise<Renderer | undefined> {
  renderer ??= import('@viz-js/viz').then(
    async (viz) => {
      const instance = await viz.instance()
      return (dot: string) => instance.renderString(dot, { format: 'svg' })
    },
    () => undefined,
  )
  return renderer
}

/**
 * The SVG of a DAG metric's graph with the walk of `trace` highlighted (red when `passed` is false); undefined for a
 * metric without a DAG, a trace without nodes, or when Graphviz is absent or fails (a picture is a convenience: the
 * text says everything).
 */
export async function drawDag(
  metric: unknown,
  trace: { readonly nodes: readonly unknown[] },
  passed?: boolean,
): Promise<string | undefined> {
  const dag = (metric as DrawableMetric | null)?.dag
  if (typeof dag?.toDot !== 'function' || trace.nodes.length === 0) return undefined
  return draw(dag.toDot({ trace: trace as DotOptions['trace'], passed }))
}

/**
 * The Mermaid flowchart of a DAG metric's graph with the walk of `trace` highlighted (red when `passed` is false), for
 * Markdown that renders Mermaid (the CI step summary); undefined for a metric without a DAG or a trace without nodes.
 */
export function dagMermaid(
  metric: unknown,
  trace: { readonly nodes: readonly unknown[] },
  passed: boolean,
): string | undefined {
  const dag = (metric as DrawableMetric | null)?.dag
  if (typeof dag?.toMermaid !== 'function' || trace.nodes.length === 0) return undefined
  return dag.toMermaid({ trace: trace as MermaidOptions['trace'], passed })
}

/**
 * The picture of a result, for the reports that show images: the DAG as Graphviz lays it out with the walked path
 * highlighted, green when the evaluation passed and red when it failed; for a metric that judges windows one by
 * one (the relevancy metrics), each window's verdict. Only the drawing: the text tree is beside it in every report,
 * and under the drawing it would set the width and shrink it. Undefined when there is nothing to draw.
 */
export async function resultPicture(metric: unknown, record: VerdictsOf): Promise<string | undefined> {
  const dag = await drawDag(metric, record.trace, record.success)
  if (dag !== undefined) return dag
  const verdicts = verdictsToDot(record)
  return verdicts === undefined ? undefined : draw(verdicts)
}

async function draw(dot: string): Promise<string | undefined> {
  const render = await loadRenderer()
  if (render === undefined) return undefined
  try {
    return render(dot)
  } catch {
    return undefined
  }
}

/** Graphviz's `<svg>` element without its XML prolog and doctype, which cannot sit inside HTML or another SVG. */
export function svgElement(svg: string): string {
  const start = svg.indexOf('<svg')
  return start < 0 ? '' : svg.slice(start)
}

/**
 * Text for HTML or XML (SVG): markup escaped, control characters shown as their pictures and what XML cannot hold
 * as U+FFFD, so the page or picture stays well-formed whatever a judge or a test case wrote.
 */
export function escapeMarkup(text: string): string {
  return xmlSafe(text).replace(/[&<>"]/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[char]};`)
}
