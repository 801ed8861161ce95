import type { DotOptions } from '@judgetree/core'
import { xmlSafe } from '@judgetree/core/runtime'
import type { JudgetreeRecord } from './record.js'

/** What the picture needs of a metric: a DAG metric's graph can draw itself in DOT. */
interface DrawableMetric {
  readonly dag?: { toDot?: (options?: DotOptions) => string } | undefined
}

type Renderer = (dot: string) => string

let renderer: Promise<Renderer | undefined> | undefined

/**
 * Graphviz compiled to WebAssembly (`@viz-js/viz`), loaded on the first picture so that a run without one never
 * pays for it; undefined when it cannot be loaded (the text report still works).
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

const FONT_SIZE = 12
const LINE_HEIGHT = 16
/** A monospace glyph is about 0.6 em wide; the box-drawing characters of the tree are too. */
const CHAR_WIDTH = FONT_SIZE * 0.6
const MARGIN = 12

/**
 * One SVG picture of an evaluation: the DAG as Graphviz lays it out with the walked path highlighted (for a DAG
 * metric), above the trace tree as text with its indentation kept. Returns undefined when Graphviz cannot be
 * loaded and there is no text to draw.
 */
export async function evaluationPicture(metric: unknown, record: JudgetreeRecord): Promise<string | undefined> {
  const graph = await dagPicture(metric, record)
  return composePicture(graph, record.text)
}

async function dagPicture(metric: unknown, record: JudgetreeRecord): Promise<string | undefined> {
  const dag = (metric as DrawableMetric | null)?.dag
  if (typeof dag?.toDot !== 'function' || record.trace.nodes.length === 0) return undefined
  const render = await loadRenderer()
  if (render === undefined) return undefined
  try {
    return render(dag.toDot({ trace: record.trace as DotOptions['trace'] }))
  } catch {
    // A picture is a convenience: the text tree below it still says everything.
    return undefined
  }
}

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
  const nested = graph === undefined ? '' : nestSvg(graph, (width - size.width) / 2)
  const rows = lines
    .map(
      (line, index) =>
        `<text x="${MARGIN}" y="${top + (index + 1) * LINE_HEIGHT - 4}">${escapeXml(keepSpaces(line))}</text>`,
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

/** Graphviz writes `width="123pt" height="45pt"`; points are drawn as CSS pixels here, at 4/3 the size. */
function svgSize(svg: string): { width: number; height: number } {
  const width = /<svg[^>]*\swidth="([\d.]+)pt"/.exec(svg)?.[1]
  const height = /<svg[^>]*\sheight="([\d.]+)pt"/.exec(svg)?.[1]
  return { width: Number(width ?? 0) * (4 / 3), height: Number(height ?? 0) * (4 / 3) }
}

/** The Graphviz `<svg>` element without the XML prolog and doctype, placed at `x`. */
function nestSvg(svg: string, x: number): string {
  const start = svg.indexOf('<svg')
  const element = start < 0 ? svg : svg.slice(start)
  return element.replace('<svg', `<svg x="${x.toFixed(1)}" y="0"`)
}

/** SVG collapses runs of spaces (an image cannot be told otherwise everywhere): non-breaking ones keep the tree's indentation. */
function keepSpaces(line: string): string {
  return line.replace(/ /g, '\u00a0')
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[char]};`)
}
