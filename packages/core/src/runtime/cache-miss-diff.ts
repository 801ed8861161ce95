// What a replay miss is missing: of the recorded calls of the same kind, the one nearest to this call, and how the
// two differ (a judge, a judge option, a trial, the words of a message). A miss then explains itself: "turn 0
// changed", not "re-record everything".

import { oneLineSafe } from '../internal/safe-text.js'
import type { RecordedSummary } from './cache.js'
import type { AskedMaterial } from './cache-key.js'

/** How much context to show either side of a changed passage, and at most how much of the passage itself. */
const CONTEXT = 30
const PASSAGE = 80
const WORD = /[\p{L}\p{N}_]/u

/** Cost of a difference outside the messages, in characters, so that the nearest recording is the one with the fewest changes. */
const SETTING_WEIGHT = 40

export interface MissDiff {
  readonly file: string
  readonly lines: readonly string[]
}

/** The recorded call nearest to `asked` (by judge, settings and changed characters), and how it differs. */
export function nearestDifference(
  judge: string,
  asked: AskedMaterial,
  recorded: readonly RecordedSummary[],
): MissDiff | undefined {
  // Costs first, for every recording; the lines only for the nearest (a miss may compare with 2,000 recordings).
  let best: { readonly entry: RecordedSummary; readonly cost: number } | undefined
  for (const entry of recorded) {
    if (entry.asked === undefined) continue
    const cost = differences(judge, asked, entry, undefined, best?.cost ?? Number.POSITIVE_INFINITY)
    if (cost > 0 && (best === undefined || cost < best.cost)) best = { entry, cost }
  }
  if (best === undefined) return undefined
  const lines: string[] = []
  differences(judge, asked, best.entry, lines, Number.POSITIVE_INFINITY)
  return { file: best.entry.file, lines }
}

/**
 * How far `asked` is from a recording, in changed characters (a setting counts as SETTING_WEIGHT), or infinity once
 * it cannot come under `bound`; each difference is described into `lines` when given.
 */
function differences(
  judge: string,
  asked: AskedMaterial,
  entry: RecordedSummary,
  lines: string[] | undefined,
  bound: number,
): number {
  const before = entry.asked as AskedMaterial
  let cost = 0
  const setting = (name: string, was: unknown, now: unknown) => {
    if (was === now || (was ?? null) === (now ?? null) || JSON.stringify(was ?? null) === JSON.stringify(now ?? null)) {
      return
    }
    lines?.push(`${name}: ${shown(was)} → ${shown(now)}`)
    cost += SETTING_WEIGHT
  }
  setting('judge', entry.judge, judge)
  const wasIdentity = (before.identity ?? {}) as Record<string, unknown>
  const nowIdentity = (asked.identity ?? {}) as Record<string, unknown>
  for (const name of new Set([...Object.keys(wasIdentity), ...Object.keys(nowIdentity)])) {
    setting(`judge option ${name}`, wasIdentity[name], nowIdentity[name])
  }
  setting('trial', before.trial, asked.trial)
  setting('trial temperature', before.defaultTemperature, asked.defaultTemperature)
  setting('logprobs', before.topLogprobs, asked.topLogprobs)
  const count = Math.max(before.messages.length, asked.messages.length)
  for (let index = 0; index < count; index++) {
    const was = before.messages[index]
    const now = asked.messages[index]
    const name = `message ${index + 1} (${now?.role ?? was?.role})`
    if (was === undefined || now === undefined) {
      lines?.push(`${name}: ${was === undefined ? 'added' : 'removed'}`)
      cost += (was ?? now)?.content.length ?? 0
      continue
    }
    if (was.content === now.content) continue
    // At least the difference in length changes: no need to look closer at a recording already farther than the best.
    if (cost + Math.abs(was.content.length - now.content.length) >= bound) return Number.POSITIVE_INFINITY
    const span = changedSpan(was.content, now.content)
    lines?.push(`${name}: ${passage(was.content, span)} → ${passage(now.content, span)}`)
    cost += Math.max(was.content.length, now.content.length) - span.start - span.end
  }
  return cost
}

/** Where two texts differ: the lengths of their common start and common end, widened to whole words. */
function changedSpan(was: string, now: string): { readonly start: number; readonly end: number } {
  const limit = Math.min(was.length, now.length)
  let start = 0
  while (start < limit && was.charCodeAt(start) === now.charCodeAt(start)) start++
  let end = 0
  while (end < limit - start && was.charCodeAt(was.length - 1 - end) === now.charCodeAt(now.length - 1 - end)) end++
  // Whole words: "[sunny]" → "[cloudy]", not "[sunn]y" → "[cloud]y".
  while (start > 0 && WORD.test(was[start - 1] as string)) start--
  while (end > 0 && WORD.test(was[was.length - end] as string)) end--
  return { start, end }
}

/** The changed passage of `text`, in brackets, with a little context either side, on one line. */
function passage(text: string, { start, end }: { readonly start: number; readonly end: number }): string {
  const before = text.slice(Math.max(0, start - CONTEXT), start)
  const changed = text.slice(start, text.length - end)
  const after = text.slice(text.length - end, text.length - end + CONTEXT)
  const cut = changed.length > PASSAGE ? `${changed.slice(0, PASSAGE)}…` : changed
  const line = `${start > CONTEXT ? '…' : ''}${before}[${cut}]${after}${end > CONTEXT ? '…' : ''}`
  // On one line (the prompt's layout is not what changed), and no escape or CI command from a test case acts.
  return `"${oneLineSafe(line)}"`
}

function shown(value: unknown): string {
  return value === undefined || value === null
    ? '(none)'
    : oneLineSafe(typeof value === 'string' ? value : JSON.stringify(value))
}
