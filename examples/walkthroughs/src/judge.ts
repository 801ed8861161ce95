import type { JudgeModel } from '@judgetree/core'
import { type ScriptedRule, scriptedJudge } from '@judgetree/core/testing'

/** True when a real (or OpenAI-compatible) judge is configured in the environment. */
export const usingRealJudge = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)

/**
 * The judge for an example: the real OpenAI judge when a key or base URL is set, otherwise a scripted judge that
 * answers with the rules written in the example, so the suite runs offline and says so.
 */
export function exampleJudge(offlineAnswers: ScriptedRule[]): JudgeModel | undefined {
  return usingRealJudge ? undefined : scriptedJudge({ name: 'scripted (offline)', rules: offlineAnswers })
}
