import type { JudgeModel } from '@judgetree/core'
import { type ScriptedRule, scriptedJudge } from '@judgetree/core/testing'

import { usingAiSdk, usingLoopback, usingRealJudge } from './mode.js'

const model = process.env.JUDGETREE_MODEL ?? 'gpt-6-luna'

// Loaded only when asked for, so the default runs never import the AI SDK.
const aiSdk = usingAiSdk
  ? await Promise.all([import('@judgetree/ai-sdk'), import('@ai-sdk/openai')]).then(([judge, openai]) => ({
      aiSdkJudge: judge.aiSdkJudge,
      createOpenAI: openai.createOpenAI,
    }))
  : undefined
const loopback = usingLoopback ? await import('./loopback.js').then(({ startLoopback }) => startLoopback()) : undefined

function aiSdkOpenAIJudge(headers?: Record<string, string>): JudgeModel {
  if (aiSdk === undefined) throw new Error('unreachable: the AI SDK is loaded whenever JUDGETREE_JUDGE asks for it')
  // createOpenAI reads OPENAI_API_KEY and OPENAI_BASE_URL itself; a local server needs no key.
  const openai = aiSdk.createOpenAI({
    ...(process.env.OPENAI_API_KEY && !loopback ? {} : { apiKey: 'not-needed' }),
    ...(loopback ? { baseURL: loopback.baseURL } : {}),
    ...(headers ? { headers } : {}),
  })
  // .chat: Chat Completions, which every OpenAI-compatible server speaks (the default factory uses the Responses API).
  return aiSdk.aiSdkJudge(openai.chat(model))
}

const sharedAiSdkModel = usingAiSdk && !usingLoopback ? aiSdkOpenAIJudge() : undefined

/**
 * The judge for an example: the real OpenAI judge when a key or base URL is set (through the AI SDK with
 * JUDGETREE_JUDGE=ai-sdk), otherwise a scripted judge that answers with the rules written in the example, so the
 * suite runs offline and says so.
 */
export function exampleJudge(offlineAnswers: ScriptedRule[]): JudgeModel | undefined {
  const scripted = () => scriptedJudge({ name: 'scripted (offline)', rules: offlineAnswers })
  if (loopback) return aiSdkOpenAIJudge(loopback.serve(scripted()))
  if (sharedAiSdkModel !== undefined) return sharedAiSdkModel
  return usingRealJudge ? undefined : scripted()
}
