// Reads the Mermaid flowcharts judgetree writes, line by line, the way a strict reader would: every line must be one
// of the forms judgetree emits, so a label that broke out of its quotes, or text injected by a test case, shows up.

/** A flowchart as read by {@link readMermaid}. */
export interface MermaidChart {
  /** Node ids and their labels, as written (entity codes not decoded). */
  readonly nodes: ReadonlyMap<string, string>
  /** `from → to` of each edge, in order (the order `linkStyle` counts in). */
  readonly edges: readonly (readonly [string, string])[]
  /** Each `classDef`'s style. */
  readonly classDefs: ReadonlyMap<string, string>
  /** The ids each class is given to. */
  readonly classes: ReadonlyMap<string, readonly string[]>
  /** Every line that is none of judgetree's forms, or names a node, class or edge that does not exist. */
  readonly problems: readonly string[]
}

const NODE = /^ {2}([A-Za-z]\w*)(\["[^"]*"\]|\{"[^"]*"\}|\{\{"[^"]*"\}\}|\(\["[^"]*"\]\)|\[\["[^"]*"\]\])$/
const EDGE = /^ {2}([A-Za-z]\w*) (-->|-->\|[^|"]*\||-\.->\|[^|"]*\|) ([A-Za-z]\w*)$/
const CLASS_DEF = /^ {2}classDef (\w+) ([\w#:.,-]+(?: \d+)*)$/
const CLASS = /^ {2}class ([\w,]+) (\w+)$/
const LINK_STYLE = /^ {2}linkStyle ([\d,]+) ([\w#:.,-]+)$/

/** Reads one flowchart; its `problems` are empty when every line is well-formed and refers to what exists. */
export function readMermaid(chart: string): MermaidChart {
  const [header, ...lines] = chart.split('\n')
  const problems: string[] = []
  if (!/^flowchart (TD|LR)$/.test(header ?? '')) problems.push(`not a flowchart header: ${JSON.stringify(header)}`)
  const nodes = new Map<string, string>()
  const edges: [string, string][] = []
  const classDefs = new Map<string, string>()
  const classes = new Map<string, string[]>()
  const styled: number[] = []
  for (const line of lines) {
    const node = NODE.exec(line)
    const edge = EDGE.exec(line)
    const classDef = CLASS_DEF.exec(line)
    const assigned = CLASS.exec(line)
    const linkStyle = LINK_STYLE.exec(line)
    if (node) nodes.set(node[1] as string, (node[2] as string).replace(/^[[{(]+"|"[\]})]+$/g, ''))
    else if (edge) edges.push([edge[1] as string, edge[3] as string])
    else if (classDef) classDefs.set(classDef[1] as string, classDef[2] as string)
    else if (assigned) classes.set(assigned[2] as string, (assigned[1] as string).split(','))
    else if (linkStyle) styled.push(...(linkStyle[1] as string).split(',').map(Number))
    else problems.push(`not a line judgetree writes: ${JSON.stringify(line)}`)
  }
  for (const [from, to] of edges) {
    for (const id of [from, to]) if (!nodes.has(id)) problems.push(`an edge names no node: ${id}`)
  }
  for (const [name, ids] of classes) {
    if (!classDefs.has(name)) problems.push(`class ${name} has no classDef`)
    for (const id of ids) if (!nodes.has(id)) problems.push(`class ${name} names no node: ${id}`)
  }
  for (const index of styled) if (index >= edges.length) problems.push(`linkStyle ${index} names no edge`)
  return { nodes, edges, classDefs, classes, problems }
}

/**
 * The Mermaid blocks of a Markdown text; throws when a code fence is left open, since GitHub would then render the
 * rest of the document as code.
 */
export function mermaidBlocks(markdown: string): string[] {
  const blocks: string[] = []
  let open: { readonly mermaid: boolean; readonly lines: string[] } | undefined
  for (const line of markdown.split('\n')) {
    if (open === undefined) {
      if (line.startsWith('```')) open = { mermaid: line === '```mermaid', lines: [] }
    } else if (line.startsWith('```')) {
      if (open.mermaid) blocks.push(open.lines.join('\n'))
      open = undefined
    } else open.lines.push(line)
  }
  if (open !== undefined) throw new Error('a code fence is left open')
  return blocks
}
