import { MissingTestCaseParamError } from '../errors.js'
import { batchError, runJobs } from '../internal/jobs.js'
import { shortText } from '../internal/text.js'
import { predicateShares } from '../judge/distribution.js'
import type { JudgeModel, JudgeResponse } from '../judge/types.js'
import type { MetricScore } from '../metric/base-metric.js'
import { callJudge, type JudgeCall } from '../metric/judge-call.js'
import type { EntryBase, Measurement, TraceSlot } from '../metric/measurement.js'
import { countedPassProbability, pointAnswerWhy } from '../metric/pass-probability.js'
import { addUsage, NO_USAGE } from '../metric/usage.js'
import type { WindowTurn } from '../prompts/conversation-relevancy.js'
import {
  STATEMENT_RELEVANCY_PROMPT,
  statementRelevancyPrompt,
  statementRelevancySchema,
  statementRelevantInstructions,
  TURN_CONTEXT_STATEMENTS_PROMPT,
  TURN_CONTEXTUAL_RELEVANCY_PROMPT,
  turnContextStatementsPrompt,
  turnContextStatementsSchema,
  turnContextualRelevancyPrompt,
  turnContextualRelevancySchema,
} from '../prompts/turn-contextual-relevancy.js'
import type { ConversationalTestCase } from '../test-case/schemas.js'
import { formatProbability, formatScore } from '../trace/render.js'
import {
  type ReplyWindow,
  replyWindows,
  WindowedMetric,
  type WindowedMetricOptions,
  windowTurns,
} from './conversation-windows.js'

/** Options for {@link TurnContextualRelevancyMetric}. */
export interface TurnContextualRelevancyMetricOptions extends WindowedMetricOptions {
  /** Identifies the metric in reports. @default 'Turn Contextual Relevancy' */
  name?: string | undefined
  /** Exchanges (a user turn and the replies to it) whose user input the context is judged against. @default 10 */
  windowSize?: number | undefined
}

interface Statement {
  readonly chunk: number
  readonly statement: string
  readonly relevant: boolean
  readonly reason: string
  /** The probability that it is relevant, when a decision judge gave one (an empty chunk's is 0). */
  readonly probability?: number | undefined
}

interface TurnJudgement {
  readonly statements: readonly Statement[]
  readonly response: JudgeResponse<unknown> | undefined
}

interface Target {
  readonly window: ReplyWindow
  readonly chunks: readonly string[]
}

/**
 * Judges whether the context retrieved for each assistant turn is relevant to the user's input: every chunk is split
 * into statements, each judged relevant or not; turn score = relevant statements / statements; score = mean over the
 * assistant turns that have `retrievalContext` (others do not count). One judge call per such turn, run concurrently.
 *
 * @example
 * const result = await new TurnContextualRelevancyMetric().measure({ turns })
 */
export class TurnContextualRelevancyMetric extends WindowedMetric {
  constructor(options: TurnContextualRelevancyMetricOptions = {}) {
    super('TurnContextualRelevancyMetric', options, { name: 'Turn Contextual Relevancy', windowSize: 10 })
  }

  protected override async score(parsed: ConversationalTestCase, ctx: Measurement): Promise<MetricScore> {
    const turns = windowTurns(parsed)
    const targets: Target[] = replyWindows(turns, this.windowSize).flatMap((window) => {
      const chunks = parsed.turns[window.reply]?.retrievalContext ?? []
      return chunks.length > 0 ? [{ window, chunks }] : []
    })
    if (targets.length === 0) {
      throw new MissingTestCaseParamError(
        this.name,
        ['retrievalContext'],
        'at least one assistant turn',
        "Give each assistant turn to judge the chunks it was answered from: { role: 'assistant', content: '…', " +
          "retrievalContext: ['…'] }. The metric has no evaluationParams: it always reads that field.",
      )
    }
    const slots = targets.map((target) => ctx.slot(entryBase(target, turns)))
    const { decisionJudge } = this.options
    const hybrid = decisionJudge === undefined ? undefined : { chat: this.options.judge, decider: decisionJudge }
    const settled = await runJobs(targets, this.options.asyncMode, ctx.signal, (target, signal) =>
      judgeTurn(
        slots[targets.indexOf(target)] as TraceSlot,
        turns,
        target,
        signal,
        hybrid,
        this.options.decisionLogprobs,
      ),
    )
    const judged = new Set(targets.map((target) => target.window.reply))
    const unjudged = turns.filter((turn) => turn.role === 'assistant' && !judged.has(turn.index))
    const notes = [
      `each turn's context was judged against the user input in a window of up to ${this.windowSize} exchanges`,
      ...(unjudged.length > 0
        ? [`not counted (no retrieval context): ${unjudged.map((turn) => `turn ${turn.index}`).join(', ')}`]
        : []),
    ]
    if (settled.some((entry) => !entry.ok)) {
      for (const [position, entry] of settled.entries()) {
        if (!entry.ok) slots[position]?.fail(entry.error, 'the measurement stopped before this turn was judged')
      }
      for (const note of notes) ctx.note(note)
      throw batchError(settled, (index) => {
        const target = targets[index] as Target
        const chunks = target.chunks.length === 1 ? 'its 1 chunk' : `its chunks 1 to ${target.chunks.length}`
        return `Judging the retrieval context of turn ${target.window.reply} (${chunks})`
      })
    }
    const perTurn = settled.map((entry, position) => {
      const { statements } = (entry as { value: TurnJudgement }).value
      const relevant = statements.filter((statement) => statement.relevant).length
      return { reply: targets[position]?.window.reply ?? 0, statements, relevant, score: relevant / statements.length }
    })
    const raw = perTurn.reduce((sum, turn) => sum + turn.score, 0) / perTurn.length
    const turnScores = perTurn.map((turn) => `turn ${turn.reply} ${turn.relevant}/${turn.statements.length}`)
    ctx.note(
      `mean over ${perTurn.length} turn(s) with retrieval context (${turnScores.join(', ')}): ${formatScore(raw)}`,
    )
    for (const note of notes) ctx.note(note)
    for (const entry of settled) {
      const response = (entry as { value: TurnJudgement }).value.response
      if (response) ctx.checkedLocally(response)
    }
    const irrelevant = perTurn.flatMap((turn) =>
      turn.statements
        .filter((statement) => !statement.relevant)
        .map(
          (statement) =>
            `turn ${turn.reply} chunk ${statement.chunk} “${shortText(statement.statement, 80)}” (${shortText(statement.reason, 120)})`,
        ),
    )
    const reason =
      `Mean statement relevancy over ${perTurn.length} assistant turn(s) with retrieval context: ${turnScores.join(', ')}.` +
      (irrelevant.length === 0 ? ' Every statement was relevant.' : ` Irrelevant: ${listSome(irrelevant, 5)}.`)
    const groups = perTurn.map((turn, position) =>
      turn.statements.map((statement) => ({
        node: (slots[position] as TraceSlot).id,
        label: `turn ${turn.reply} chunk ${statement.chunk} “${shortText(statement.statement, 60)}”`,
        verdict: statement.relevant ? 'relevant' : 'irrelevant',
        yes: statement.relevant,
        probability: statement.probability,
      })),
    )
    const passProbability = countedPassProbability(groups, this.options.threshold, this.options.strictMode)
    const point = groups.flat().find((verdict) => verdict.probability === undefined)
    if (passProbability === undefined && point !== undefined) {
      const response = (settled[slots.findIndex((slot) => slot.id === point.node)] as { value?: TurnJudgement }).value
        ?.response
      const unavailable =
        this.options.decisionLogprobs > 0
          ? (response?.logprobsUnavailable ?? 'its logprobs could not be read for every statement')
          : undefined
      ctx.noPassProbability(`[${point.node}] ${point.label}`, pointAnswerWhy(this.options, unavailable))
    }
    return { score: raw, reason, passProbability }
  }
}

/** A turn's trace entry: the user input its context is judged against. */
function entryBase(target: Target, turns: readonly WindowTurn[]): EntryBase {
  const { start, reply } = target.window
  const input = turns.slice(start, reply).findLast((turn) => turn.role === 'user')
  return {
    kind: 'TurnContextualRelevancy',
    label: `turn ${reply}`,
    text: input ? `user: ${input.content}` : '(no user input in the window)',
    turnWindow: [start, reply],
  }
}

/** The decision asked of each statement, as its typed question (the prompt words it for a chat judge). */
const STATEMENT_RELEVANT = 'Does the statement help address the user input?'

async function judgeTurn(
  slot: TraceSlot,
  turns: readonly WindowTurn[],
  target: Target,
  signal: AbortSignal,
  decisions: HybridJudges | undefined,
  topLogprobs: number,
): Promise<TurnJudgement> {
  const numbered = target.chunks.map((text, index) => ({ chunk: index + 1, text }))
  const asked = numbered.filter((chunk) => chunk.text.trim().length > 0)
  if (asked.length === 0) {
    // An empty chunk says nothing the user needs; it counts as one irrelevant statement without asking the judge.
    const statements = statementsOf(numbered, new Map())
    slot.ran(statementFields(statements), { usage: NO_USAGE })
    return { statements, response: undefined }
  }
  const before = turns.slice(target.window.start, target.window.reply)
  if (decisions !== undefined) return decideTurn(slot, decisions, before, numbered, asked, signal)
  const call = await slot.judge(
    {
      messages: turnContextualRelevancyPrompt(before, asked),
      schema: turnContextualRelevancySchema(asked.map((chunk) => chunk.chunk)),
      schemaName: 'context_statements',
      promptVersion: TURN_CONTEXTUAL_RELEVANCY_PROMPT,
      question: { kind: 'predicate', instructions: STATEMENT_RELEVANT, state: asked, field: 'relevant' },
      // One answer holds every statement's verdict: their probabilities are read below, one per `relevant` value.
      ...(topLogprobs > 0 ? { topLogprobs } : {}),
      show: (answer) => statementFields(statementsOf(numbered, answeredOf(answer))),
      where: false,
      noteCheck: false,
    },
    signal,
  )
  const answered = withProbabilities(call.value, predicateShares('relevant', call.response.logprobs))
  return { statements: statementsOf(numbered, answeredOf(answered)), response: call.response }
}

type ChunkAnswers = Parameters<typeof answeredOf>[0]

/** The answer's statements with the probability read for each, in the order written; as they are when none was. */
function withProbabilities(answer: ChunkAnswers, shares: readonly number[] | undefined): ChunkAnswers {
  const count = answer.chunks.reduce((sum, chunk) => sum + chunk.statements.length, 0)
  if (shares === undefined || shares.length !== count) return answer
  let next = 0
  return {
    chunks: answer.chunks.map((chunk) => ({
      ...chunk,
      statements: chunk.statements.map((statement) => ({ ...statement, probability: shares[next++] })),
    })),
  }
}

/** The chat model that splits chunks into statements and the decision judge that judges each statement. */
interface HybridJudges {
  readonly chat: JudgeModel
  readonly decider: JudgeModel
}

/**
 * A turn judged with a decision judge: the chat model splits the chunks into statements (one call), then every
 * statement's relevance is a decision about the same state, the conversation before the reply, so the decision judge
 * answers all of the turn's statements in one request. The trace entry counts both calls.
 */
async function decideTurn(
  slot: TraceSlot,
  judges: HybridJudges,
  before: readonly WindowTurn[],
  numbered: readonly { readonly chunk: number; readonly text: string }[],
  asked: readonly { readonly chunk: number; readonly text: string }[],
  signal: AbortSignal,
): Promise<TurnJudgement> {
  let usage = NO_USAGE
  let latencyMs = 0
  const calls: JudgeCall<unknown>[] = []
  const count = <T>(call: JudgeCall<T>): JudgeCall<T> => {
    usage = addUsage(usage, call.usage)
    latencyMs = Math.max(latencyMs, call.latencyMs)
    calls.push(call as JudgeCall<unknown>)
    return call
  }
  try {
    const extracted = count(
      await callJudge(
        judges.chat,
        {
          messages: turnContextStatementsPrompt(asked),
          schema: turnContextStatementsSchema(asked.map((chunk) => chunk.chunk)),
          schemaName: 'context_statements_only',
          promptVersion: TURN_CONTEXT_STATEMENTS_PROMPT,
        },
        signal,
      ),
    )
    const listed = extracted.value.chunks.flatMap((entry) =>
      entry.statements.map((statement) => ({ chunk: entry.chunk, statement })),
    )
    const decided = await Promise.all(
      listed.map(async ({ statement }) =>
        count(
          await callJudge(
            judges.decider,
            {
              messages: statementRelevancyPrompt(before, statement),
              schema: statementRelevancySchema,
              schemaName: 'statement_relevancy',
              promptVersion: STATEMENT_RELEVANCY_PROMPT,
              question: {
                kind: 'predicate',
                instructions: statementRelevantInstructions(statement),
                state: before,
                field: 'relevant',
              },
            },
            signal,
          ),
        ),
      ),
    )
    const answered = new Map<number, Omit<Statement, 'chunk'>[]>()
    for (const [index, { chunk, statement }] of listed.entries()) {
      const call = decided[index] as JudgeCall<{ relevant: boolean }>
      const relevant = call.response.distribution?.true
      const reason = relevant === undefined ? 'no reason given' : `probability relevant ${formatProbability(relevant)}`
      const judgedStatement = { statement, relevant: call.value.relevant, reason, probability: relevant }
      answered.set(chunk, [...(answered.get(chunk) ?? []), judgedStatement])
    }
    const statements = statementsOf(numbered, answered)
    const cached = calls.every((call) => call.response.cached)
    slot.ran({ ...statementFields(statements), decidedBy: judges.decider.name }, { usage, latencyMs, cached })
    return { statements, response: extracted.response }
  } catch (error) {
    slot.fail(error)
    throw error
  }
}

function answeredOf(answer: {
  readonly chunks: readonly { chunk: number; statements: readonly Omit<Statement, 'chunk'>[] }[]
}) {
  return new Map(answer.chunks.map((entry) => [entry.chunk, entry.statements]))
}

/** Every chunk's statements, in chunk order; a chunk the judge was not asked about is one irrelevant statement. */
function statementsOf(
  numbered: readonly { readonly chunk: number }[],
  answered: ReadonlyMap<number, readonly Omit<Statement, 'chunk'>[]>,
): Statement[] {
  const empty = { statement: '(empty chunk)', relevant: false, reason: 'the chunk is empty', probability: 0 }
  return numbered.flatMap(({ chunk }) => (answered.get(chunk) ?? [empty]).map((statement) => ({ ...statement, chunk })))
}

function statementFields(statements: readonly Statement[]) {
  const relevant = statements.filter((statement) => statement.relevant).length
  return {
    verdict: `${relevant} of ${statements.length} statements relevant`,
    output: statements
      .map((s) => `${s.relevant ? '✓' : '✗'} [chunk ${s.chunk}] ${s.statement}${s.relevant ? '' : ` (${s.reason})`}`)
      .join('\n'),
    outputLabel: 'statements',
  }
}

function listSome(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join('; ')
  return `${items.slice(0, max).join('; ')}; and ${items.length - max} more (see the trace)`
}
