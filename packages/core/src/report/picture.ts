import type { DotOptions } from '../dag/dot.js'
import { xmlSafe } from '../internal/safe-text.js'

/** What a picture needs of a metric: a DAG metric's graph can draw itself in DOT. */
interface DrawableMetric {
  readonly dag?: { toDot?: (options?: DotOptions) => string } | undefined
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
 * The SVG of a DAG metric's graph with the walk of `trace` highlighted; undefined for a metric without a DAG, a
 * trace without nodes, or when Graphviz is absent or fails (a picture is a convenience: the text says everything).
 */
export async function drawDag(
  metric: unknown,
  trace: { readonly nodes: readonly unknown[] },
): Promise<string | undefined> {
  const dag = (metric as DrawableMetric | null)?.dag
  if (typeof dag?.toDot !== 'function' || trace.nodes.length === 0) return undefined
  const render = await loadRenderer()
  if (render === undefined) return undefined
  try {
    return render(dag.toDot({ trace: trace as DotOptions['trace'] }))
  } catch {
    return undefined
  }
}

/**
 * One SVG picture of a result: the DAG as Graphviz lays it out with the walked path highlighted (for a DAG
 * metric), above the result's text with its indentation kept.
 */
export async function resultPicture(
  metric: unknown,
  record: { readonly trace: { readonly nodes: readonly unknown[] }; readonly text: string },
): Promise<string> {
  return composePicture(await drawDag(metric, record.trace), record.text)
}

const FONT_SIZE = 12
const LINE_HEIGHT = 16
/** A monospace glyph is about 0.6 em wide; the box-drawing characters of the tree are too. */
const CHAR_WIDTH = FONT_SIZE * 0.6
const MARGIN = 12

/**
 * Puts the Graphviz drawing (if any) above the text, each line its own `<text>` with spaces preserved. Any text
 * makes well-formed XML: control characters are drawn as their pictures, what XML cannot hold as U+FFFD.
 */
export function composePicture(graph: string | undefined, text: string): string {
  const lines = xmlSafe(text).split('\n')
  const size = graph === undefined ? { width: 0, height: 0 } : svgSize(graph)
  const textWidth = Math.max(...lines.map((line) => line.length)) * CHAR_WIDTH + 2 * MARGIN
  const width = Math.ceil(Math.max(size.width, textWidth))
  const top = size.height + MARGIN
  const height = Math.ceil(top + lines.length * LINE_HEIGHT + MARGIN)
  const nested =
    graph === undefined
      ? ''
      : svgElement(graph).replace('<svg', `<svg x="${((width - size.width) / 2).toFixed(1)}" y="0"`)
  const rows = lines
    .map(
      (line, index) =>
        `<text x="${MARGIN}" y="${top + (index + 1) * LINE_HEIGHT - 4}">${escapeMarkup(keepSpaces(line))}</text>`,
    )
    .join('')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    nested,
    `<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${FONT_SIZE}" fill="#18181b">${rows}</g>`,
    '</svg>',
  ].join('')
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

/** Graphviz writes `width="123pt" height="45pt"`; points are drawn as CSS pixels here, at 4/3 the size. */
function svgSize(svg: string): { width: number; height: number } {
  const width = /<svg[^>]*\swidth="([\d.]+)pt"/.exec(svg)?.[1]
  const height = /<svg[^>]*\sheight="([\d.]+)pt"/.exec(svg)?.[1]
  return { width: Number(width ?? 0) * (4 / 3), height: Number(height ?? 0) * (4 / 3) }
}

/** SVG collapses runs of spaces (an image cannot be told otherwise everywhere): non-breaking ones keep the tree's indentation. */
function keepSpaces(line: string): string {
  return line.replace(/ /g, '\u00a0')
}
