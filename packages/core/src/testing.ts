// @judgetree/core/testing: judges and helpers for testing a DAG's wiring without any model.
import type { JudgeRequest } from './judge/types.js'
import { readData } from './prompts/shared.js'

export {
  type ScriptedJudge,
  type ScriptedJudgeOptions,
  type ScriptedMatch,
  type ScriptedRule,
  scriptedJudge,
} from './judge/scripted-judge.js'

/**
 * What a judge request shows about the test case: the JSON data block of its prompt, parsed (turns, fields, the
 * outputs of earlier TaskNodes). Scripted answers use it to reply to what each request is about.
 *
 * @example
 * { match: 'Is the reply relevant', answer: (request) => ({ verdict: !JSON.stringify(requestData(request)).includes('lottery'), reason: '…' }) }
 */
export function requestData<T = Record<string, unknown>>(request: JudgeRequest<unknown>): T {
  const user = request.messages.filter((message) => message.role === 'user')[0]
  const data = readData(user?.content ?? '')
  if (data === undefined)
    throw new Error(`The judge request has no data block:\n${(user?.content ?? '').slice(0, 300)}`)
  return data as T
}
