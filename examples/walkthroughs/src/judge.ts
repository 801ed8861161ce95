import type { JudgeModel } from '@judgetree/core'
import { type ScriptedRule, scriptedJudge } from '@judgetree/core/testing'

/** True when a real (or OpenAI-compatible) judge is configured in the environment. */
export const usingRealJudge = Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL)

/** JUDGETREE_JUDGE=ai-sdk: the real judge goes through @judgetree/ai-sdk and the AI SDK's OpenAI provider instead. */
export const usingAiSdk = usingRealJudge && process.env.JUDGETREE_JUDGE === 'ai-sdk'

// Loaded only when asked for, so the default runs never import the AI SDK.
const aiSdkModel = usingAiSdk ? await aiSdkOpenAIJudge() : undefined

async function aiSdkOpenAIJudge(): Promise<JudgeModel> {
  const [{ aiSdkJudge }, { createOpenAI }] = await Promise.all([import('@judgetree/ai-sdk'), import('@ai-sdk/openai')])
  // createOpenAI reads OPENAI_API_KEY and OPENAI_BASE_URL itself; a local server needs no key.
  const openai = createOpenAI(process.env.OPENAI_API_KEY ? {} : { apiKey: 'not-needed' })
  // .chat: Chat Completions, which every OpenAI-compatible server speaks (the default factory uses the Responses API).
  return aiSdkJudge(openai.chat(process.env.JUDGETREE_MODEL ?? 'gpt-4.1'))
}

/**
 * The judge for an example: the real OpenAI judge when a key or base URL is set (through the AI SDK with
 * JUDGETREE_JUDGE=ai-sdk), otherwise a scripted judge that answers with the rules written in the example, so the
 * suite runs offline and says so.
 */
export function exampleJudge(offlineAnswers: ScriptedRule[]): JudgeModel | undefined {
  if (aiSdkModel !== undefined) return aiSdkModel
  return usingRealJudge ? undefined : scriptedJudge({ name: 'scripted (offline)', rules: offlineAnswers })
}
