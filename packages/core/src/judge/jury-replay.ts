import { AsyncLocalStorage } from 'node:async_hooks'
import { JudgeCallError } from '../errors.js'
import type { JudgeModel, JudgeRequest, JudgeResponse } from './types.js'

// calibrate() on a jury reports each juror's agreement with the labels. It learns each juror's verdicts without a
// judge call of its own: while the jury measures, every answer it gives is recorded; then each juror's walk is
// measured again with the jury answering from that record as that juror alone. A decision the juror was never
// asked (its walk took a branch the jury's did not, or `escalate` spared it) ends that walk: it is not guessed.

/** The jury's answers while calibrate() measured, by jury and request. */
export type JuryRecord = Map<string, JudgeResponse<unknown>>

type Scope = { readonly record: JuryRecord; readonly juror?: string | undefined }

const scope = new AsyncLocalStorage<Scope>()

/** Runs `run` recording every answer a jury gives inside it into `record`. */
export function recordingJuries<T>(record: JuryRecord, run: () => Promise<T>): Promise<T> {
  return scope.run({ record }, run)
}

/** Runs `run` with every jury answering from `record` as `juror` alone, making no judge call. */
export function replayingJuror<T>(record: JuryRecord, juror: string, run: () => Promise<T>): Promise<T> {
  return scope.run({ record, juror }, run)
}

/** The names of the jurors that answered in `record`, in the order they first did. */
export function jurorsIn(record: JuryRecord): string[] {
  const names = new Set<string>()
  for (const response of record.values()) for (const answer of response.jurors ?? []) names.add(answer.juror)
  return [...names]
}

/** The key of one request of one jury in a record: what it was asked, not how (no signal). */
function keyOf(jury: JudgeModel, request: JudgeRequest<unknown>): string {
  return JSON.stringify([jury.name, request.messages, request.schemaName, request.promptVersion, request.trial ?? 0])
}

/**
 * Inside replayingJuror: the answer the juror gave to `request` (for a request that was no decision, the jury's:
 * its first juror's), or a JudgeCallError when it was not asked. Outside: undefined, and the jury asks its jurors.
 */
export function replayedAnswer<T>(jury: JudgeModel, request: JudgeRequest<T>): JudgeResponse<T> | undefined {
  const current = scope.getStore()
  if (current?.juror === undefined) return undefined
  const recorded = current.record.get(keyOf(jury, request as JudgeRequest<unknown>))
  const own = recorded?.jurors?.find((answer) => answer.juror === current.juror)
  if (recorded !== undefined && request.question === undefined) return { ...recorded, cached: true } as JudgeResponse<T>
  if (own === undefined) {
    throw new JudgeCallError(
      `The juror "${current.juror}" was not asked this decision when the jury measured, so its own verdict on this ` +
        'case is unknown; calibrate() leaves the case out of its numbers rather than make a call.',
    )
  }
  return { ...own.response, cached: true } as JudgeResponse<T>
}

/** Inside recordingJuries: keeps the jury's answer to `request`. */
export function recordAnswer(jury: JudgeModel, request: JudgeRequest<unknown>, response: JudgeResponse<unknown>): void {
  scope.getStore()?.record.set(keyOf(jury, request), response)
}
