import { indentContinuation, oneLineSafe, terminalSafe } from '../internal/safe-text.js'
import type { MetricResult } from '../metric/types.js'
import { juryLine } from './render-jury.js'
import { renderPassGate, renderPassProbability } from './render-pass-probability.js'
import type { MetricTrace, TraceNode } from './types.js'

const ROLE_TITLES: Readonly<Record<TraceNode['role'], string>> = {
  task: 'Task',
  judgement: 'Judgement',
  verdict: 'Verdict',
  step: 'Step',
}

/**
 * Past this many characters of indentation, a subtree starts again at the left margin (after a line that says
 * so): a chain of thousands of judgements stays readable, and its text grows with its length, not its square.
 */
const INDENT_LIMIT = 96

/**
 * Renders a trace as an indented tree a person reads in a terminal: each node that ran with its step number,
 * output or verdict and reason; verdicts that were not chosen as `○`; nested metrics indented below their verdict.
 * The text is safe to print (see `terminalSafe`): what judges and test cases wrote cannot act in a terminal or a
 * CI log. Any depth renders: the walk is iterative.
 */
export function renderTrace(trace: MetricTrace, metricError?: string): string {
  const byId = new Map(trace.nodes.map((node) => [node.id, node]))
  // Verdicts shared with other judgements are drawn once; under each other judgement a line points to them.
  const shared = new Map<string, TraceNode[]>()
  for (const node of trace.nodes) {
    for (const owner of node.alsoUnder ?? []) shared.set(owner, [...(shared.get(owner) ?? []), node])
  }
  const tree: Tree = { byId, shared }
  const lines: string[] = []
  const roots = trace.roots.flatMap((id) => byId.get(id) ?? [])
  renderTree(roots, tree, lines)
  renderExplored(trace.explored ?? [], byId, lines)
  for (const note of trace.notes) lines.push(`note: ${indentContinuation(note, 'note: '.length)}`)
  if (metricError === undefined) return terminalSafe(lines.join('\n'))
  // A node's error that the metric's error already says in full (the same text, or "<node> failed: <text>") is
  // printed once, above the tree: the node points there.
  const said = oneLine(metricError)
  const pointed = lines.map((line) => {
    const at = line.indexOf('error: ')
    if (at === -1 || !/^[│ ]*$/.test(line.slice(0, at))) return line
    const text = line.slice(at + 'error: '.length)
    return text.length > 0 && (said === text || said.endsWith(`: ${text}`))
      ? `${line.slice(0, at)}error: (above)`
      : line
  })
  return terminalSafe(pointed.join('\n'))
}

/** The one-line summary that opens every report of a result: metric, score, threshold, judge. */
export function renderSummaryLine(result: MetricResult): string {
  const verdict = result.error ? 'ERROR' : result.success ? 'PASS' : 'FAIL'
  const strict = result.strictMode ? ', strict' : ''
  const score = result.error ? 'no score' : `score ${formatScore(result.score)}`
  // A test case rejected before any judge call involved no judge: naming one would send the reader to it.
  const judgeless =
    result.usage.judgeCalls === 0 &&
    (result.error?.code === 'TEST_CASE_INVALID' || result.error?.code === 'TEST_CASE_PARAM_MISSING')
  const decisions = result.decisionModel === undefined ? '' : ` · decisions ${result.decisionModel}`
  const judge = judgeless ? '' : ` · judge ${result.judgeModel}${decisions}`
  const trials = trialsSummary(result)
  const aggregate = trials === undefined ? '' : ` · ${trials} (${result.aggregate})`
  const gate = result.minPassProbability === undefined ? '' : `, minPassProbability ${result.minPassProbability}`
  const chance = result.passProbability === undefined || result.error ? '' : ` · ${passChance(result.passProbability)}`
  const line = `${verdict} ${result.name}: ${score} (threshold ${formatScore(result.threshold)}${strict}${gate})${aggregate}${chance}${judge}`
  return oneLineSafe(line)
}

/** The chance of passing as every surface shows it: `P(pass) 0.72`. */
export function passChance(chance: { readonly p: number }): string {
  return `P(pass) ${formatProbability(chance.p)}`
}

/** "2/5 trials passed, scores 0.4–0.9" for a result measured in trials; undefined for a single measurement. */
export function trialsSummary(result: MetricResult): string | undefined {
  const { trials, spread } = result
  if (trials === undefined || spread === undefined) return undefined
  const passed = trials.filter((trial) => trial.success).length
  const range =
    spread.min === spread.max
      ? `score ${formatScore(spread.min)}`
      : `scores ${formatScore(spread.min)}–${formatScore(spread.max)}`
  return `${passed}/${trials.length} trials passed, ${range}`
}

/**
 * The full text of a result: summary line, error or reason (later lines indented under the first), then the trace
 * tree. Safe to print: see `terminalSafe`.
 */
export function renderResult(result: MetricResult): string {
  const parts = [renderSummaryLine(result)]
  if (result.error) parts.push(`error: ${indentContinuation(result.error.message, 'error: '.length)}`)
  const gate = renderPassGate(result)
  if (gate !== undefined) parts.push(`gate: ${gate}`)
  if (result.reason) parts.push(`reason: ${indentContinuation(result.reason, 'reason: '.length)}`)
  if (result.passProbability) parts.push(renderPassProbability(result.passProbability))
  if (result.verboseLogs) parts.push(result.verboseLogs)
  return terminalSafe(parts.join('\n'))
}

/** Formats a 0..1 score with at most three decimals, e.g. `0.5`, `0.725`. */
export function formatScore(score: number): string {
  return String(Math.round(score * 1000) / 1000)
}

/** A trace's entries by id, and the verdicts each judgement shares with one they are drawn under. */
interface Tree {
  readonly byId: ReadonlyMap<string, TraceNode>
  readonly shared: ReadonlyMap<string, readonly TraceNode[]>
}

/** A node still to draw, and where it goes in the tree. */
interface NodeToDraw {
  readonly node: TraceNode
  readonly prefix: string
  readonly last: boolean
  readonly top: boolean
  readonly underSkipped: boolean
}

/** What the walk has left to do: a node to draw, or lines to add once the nodes drawn before them are. */
type Pending = NodeToDraw | { readonly lines: readonly string[] }

/** Draws the roots and everything below them, depth first, with a stack instead of recursion. */
function renderTree(roots: readonly TraceNode[], tree: Tree, lines: string[]): void {
  const stack: Pending[] = roots
    .map((node, index) => ({ node, prefix: '', last: index === roots.length - 1, top: true, underSkipped: false }))
    .reverse()
  for (let pending = stack.pop(); pending !== undefined; pending = stack.pop()) {
    if ('lines' in pending) {
      for (const line of pending.lines) lines.push(line)
      continue
    }
    stack.push(...renderNode(pending, tree, lines).reverse())
  }
}

/**
 * Draws a DAG's explored branches below the path, under a line that says what they are; what they name on the path
 * (the judgement whose input they were shown) is looked up there.
 */
function renderExplored(explored: readonly TraceNode[], path: ReadonlyMap<string, TraceNode>, lines: string[]): void {
  if (explored.length === 0) return
  lines.push('explored off the path, for P(pass) only (never scored):')
  const below = new Set(explored.flatMap((node) => node.children))
  const byId = new Map(path)
  for (const node of explored) byId.set(node.id, node)
  const tree: Tree = { byId, shared: new Map() }
  renderTree(
    explored.filter((node) => !below.has(node.id)),
    tree,
    lines,
  )
}

/** Draws one node's own lines; returns what comes below it, in order: its children, then its shared verdicts. */
function renderNode({ node, prefix, last, top, underSkipped }: NodeToDraw, tree: Tree, lines: string[]): Pending[] {
  const branch = top ? '' : last ? '└─ ' : '├─ '
  const continuation = top ? '' : last ? '   ' : '│  '
  const { byId } = tree
  lines.push(`${prefix}${branch}${headLine(node, underSkipped)}${alsoUnderText(node, byId)}`)
  const hidden = node.status === 'skipped' && node.role !== 'verdict'
  const children = hidden ? [] : node.children.flatMap((id) => byId.get(id) ?? [])
  const references = hidden ? [] : (tree.shared.get(node.id) ?? [])
  let inner = prefix + continuation
  const detailPrefix = `${inner}${children.length > 0 || references.length > 0 || node.metric ? '│' : ' '}    `
  for (const detail of detailLines(node, byId)) lines.push(`${detailPrefix}${detail}`.trimEnd())
  if (node.metric) {
    const nested = node.metric.verboseLogs.split('\n').filter((line) => line.length > 0)
    const metricLast = children.length === 0
    lines.push(`${inner}${metricLast ? '└─ ' : '├─ '}metric ${node.metric.name}: ${metricSummary(node.metric)}`)
    const metricPrefix = inner + (metricLast ? '   ' : '│  ')
    if (node.metric.reason) lines.push(`${metricPrefix}reason: ${oneLine(node.metric.reason)}`)
    for (const line of nested) lines.push(`${metricPrefix}${line}`)
  }
  if (node.status === 'skipped' && node.role !== 'verdict' && node.children.length > 0) {
    lines.push(`${inner}└─ … ${node.children.length} node${node.children.length === 1 ? '' : 's'} below not reached`)
  }
  if (children.length > 0 && inner.length >= INDENT_LIMIT) {
    lines.push(`${inner}⋮ what is below ${nodeRef(node)} goes on at the left margin`)
    inner = ''
  }
  const below: Pending[] = children.map((child, index) => ({
    node: child,
    prefix: inner,
    last: index === children.length - 1 && references.length === 0,
    top: false,
    underSkipped: node.status === 'skipped',
  }))
  const pointers = references.map(
    (verdict, index) =>
      `${inner}${index === references.length - 1 ? '└─ ' : '├─ '}${sharedVerdictLine(verdict, node, byId)}`,
  )
  return pointers.length === 0 ? below : [...below, { lines: pointers }]
}

/** How a node that points to a shared verdict shows it: chosen by this node or not, and where it is drawn. */
function sharedVerdictLine(verdict: TraceNode, owner: TraceNode, byId: ReadonlyMap<string, TraceNode>): string {
  const chosen = owner.status === 'ran' && owner.verdict !== undefined && String(owner.verdict) === verdict.text
  const score = verdict.score !== undefined ? ` → ${verdict.score}` : ''
  const drawnUnder = [...byId.values()].find((entry) => entry.children.includes(verdict.id))
  const where = drawnUnder ? ` under ${nodeRef(drawnUnder)}` : ''
  return `${chosen ? '●' : '○'} ${verdict.text}${score}  (shared: drawn${where})`
}

/** A shared verdict, where it is drawn, names the other nodes it belongs to. */
function alsoUnderText(node: TraceNode, byId: ReadonlyMap<string, TraceNode>): string {
  const owners = (node.alsoUnder ?? []).flatMap((id) => byId.get(id) ?? [])
  return owners.length === 0 ? '' : `  (also under ${owners.map(nodeRef).join(', ')})`
}

/** Names an entry in one line: its step when it ran, else its label or text. */
function nodeRef(node: TraceNode): string {
  return node.step !== undefined ? `[${node.step}]` : `"${oneLine(node.label ?? node.text)}"`
}

function headLine(node: TraceNode, underSkipped: boolean): string {
  if (node.role === 'verdict') {
    const mark = node.status === 'ran' ? '●' : node.status === 'failed' ? '✖' : '○'
    const score = node.score !== undefined ? ` → ${node.score}` : ''
    const leaf =
      node.status === 'ran' && node.score !== undefined && !node.explored
        ? `  ◀ score ${formatScore(node.score / 10)}`
        : ''
    const chosen = node.trials && node.trials.ran > 0 ? `  (chosen in ${node.trials.ran}/${node.trials.of} trials)` : ''
    const explored = node.explored ? '  (explored)' : ''
    return `${mark} ${node.text}${score}${leaf}${chosen}${explored}`
  }
  const step =
    node.step !== undefined ? `[${node.step}]` : node.status === 'failed' ? '[✖]' : node.explored ? '[explored]' : '[ ]'
  const title = node.title ?? ROLE_TITLES[node.role]
  const name = node.label ? `${title} "${node.label}"` : title
  const window = windowText(node)
  const answer = answerText(node)
  const asked = node.usage !== undefined && (node.usage.judgeCalls > 0 || node.decidedBy !== undefined)
  const cost = node.status === 'ran' && asked ? ` · ${callSummary(node)}` : ''
  // Under a verdict that was not chosen, "not reached" says it all; elsewhere the reason is worth reading.
  const why = underSkipped ? 'not reached' : `skipped: ${node.skippedBecause ?? 'not reached'}`
  const status = node.status === 'skipped' ? `  (${why})` : ''
  const trials = node.trials
  const share =
    trials && node.status !== 'skipped' && trials.ran < trials.of ? `  (ran in ${trials.ran}/${trials.of} trials)` : ''
  return `${step} ${name}: ${oneLine(node.text)}${window}${answer}${cost}${status}${share}`
}

/** The node's answer; in a trials trace, each different answer with how many trials gave it. */
function answerText(node: TraceNode): string {
  const answers = node.trials?.answers ?? []
  if (answers.length > 1) return ` → ${answers.map(({ answer, count }) => `${answer} ×${count}`).join(', ')}`
  if (node.verdict === undefined) return ''
  const probability = node.probabilities?.[String(node.verdict)]
  return ` → ${String(node.verdict)}${probability === undefined ? '' : ` (${formatProbability(probability)})`}`
}

/** Formats a probability with two decimals, never rounding a doubt away: `0.93`, `>0.99`, `<0.01`. */
export function formatProbability(probability: number): string {
  if (probability > 0.995 && probability < 1) return '>0.99'
  if (probability < 0.005 && probability > 0) return '<0.01'
  return probability.toFixed(2)
}

/**
 * A choice's or a score's probabilities, each option's: `a 0.10 · b 0.30 · c 0.60`; of a score's levels, those the
 * judge gave any chance.
 */
function probabilitiesLine(probabilities: Readonly<Record<string, number>>, levels: boolean): string {
  const listed = Object.entries(probabilities)
    .filter(([, p]) => !levels || p > 0)
    .map(([option, p]) => `${oneLine(option)} ${formatProbability(p)}`)
  return `probabilities: ${listed.join(' · ')}`
}

/** The turns a node read: as shown to its judge when it ran, else as declared; a window from the end says so. */
function windowText(node: TraceNode): string {
  const declared = node.turnWindow
  const fromEnd = declared !== undefined && (declared[0] < 0 || declared[1] < 0)
  const asDeclared = declared ? `turnWindow [${declared[0]}, ${declared[1]}]` : ''
  if (node.shownTurns) {
    const shown = `turns ${node.shownTurns[0]}–${node.shownTurns[1]}`
    return fromEnd ? ` · ${shown} (${asDeclared})` : ` · ${shown}`
  }
  if (!declared) return ''
  return fromEnd ? ` · ${asDeclared}` : ` · turns ${declared[0]}–${declared[1]}`
}

function detailLines(node: TraceNode, byId: ReadonlyMap<string, TraceNode>): string[] {
  const lines: string[] = []
  if (node.inputFrom !== undefined && node.status !== 'skipped') {
    const source = byId.get(node.inputFrom)
    const where = source?.step !== undefined ? `[${source.step}]` : `"${oneLine(source?.label ?? source?.text ?? '')}"`
    const outputs = node.inputs.flatMap((id) => byId.get(id)?.outputLabel ?? [])
    lines.push(`input: what ${where} was shown${outputs.length > 0 ? ` (${outputs.join(', ')})` : ''}`)
  }
  if (node.output !== undefined) {
    const [first = '', ...rest] = node.output.trim().split(/\r\n|[\n\r\u2028\u2029\u0085]/)
    const label = `${node.outputLabel ?? 'output'}: `
    lines.push(`${label}${first}`, ...rest.map((line) => `${' '.repeat(label.length)}${line}`))
  }
  if (node.reason !== undefined && node.role !== 'verdict') lines.push(`reason: ${oneLine(node.reason)}`)
  // A yes/no decision's probability is on its head line; a choice's options are listed, and a decision judge's
  // score levels (a chat judge's score probabilities are in the metric's note on its weighting).
  const { probabilities } = node
  if (probabilities !== undefined && !isPredicate(probabilities)) {
    const levels = Object.keys(probabilities).every((key) => /^\d+$/.test(key))
    if (!levels || node.decidedBy !== undefined) lines.push(probabilitiesLine(probabilities, levels))
  }
  if (node.decidedBy !== undefined) lines.push(`decided by: ${oneLine(node.decidedBy)}`)
  if (node.jury !== undefined) lines.push(juryLine(node.jury))
  if (node.error !== undefined) lines.push(`error: ${oneLine(node.error)}`)
  if (node.status === 'skipped' && node.role === 'verdict' && node.skippedBecause) {
    // The head line already says ○; the why matters only when the verdict was never offered to the judge.
    if (node.skipCause !== 'not-chosen') lines.push(`(${node.skippedBecause})`)
  }
  return lines
}

function isPredicate(probabilities: Readonly<Record<string, number>>): boolean {
  const options = Object.keys(probabilities)
  return options.length === 2 && 'true' in probabilities && 'false' in probabilities
}

function callSummary(node: TraceNode): string {
  const calls = node.usage?.judgeCalls ?? 0
  // A decision asked in one request with others about the same state (of this measurement or another one in flight):
  // the request and its tokens are counted at the first of them.
  if (calls === 0 && node.decidedBy !== undefined) return 'asked in a shared decision request'
  const cached = node.cached ? ', cached' : ''
  // Latency stays in the structured trace: the rendering must be identical between runs of the same answers.
  return `${calls} judge call${calls === 1 ? '' : 's'}${cached}`
}

function metricSummary(result: MetricResult): string {
  if (result.error) return `error: ${oneLine(result.error.message)}`
  return `score ${formatScore(result.score)} (threshold ${formatScore(result.threshold)})`
}

/** Collapses whitespace so a multi-line text fits one line of a report. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
