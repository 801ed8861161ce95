import type { JudgeModel } from '@judgetree/core'
import { jsonReply, type ScriptedReply, startOpenAIServer } from '@judgetree/test-support'
import { z } from 'zod'

/** The header that tells the loopback server which example's scripted answers to use. */
const JUDGE_HEADER = 'x-judgetree-example-judge'

/**
 * A local OpenAI-compatible server answering with the examples' scripted judges (JUDGETREE_JUDGE=ai-sdk-loopback).
 * Each `serve(judge)` returns the headers a provider sends so its requests reach that judge; the answer is then
 * validated a second time, against the real schema, by the judge under test on the client side.
 */
export async function startLoopback(): Promise<{ baseURL: string; serve(judge: JudgeModel): Record<string, string> }> {
  const judges: JudgeModel[] = []
  const server = await startOpenAIServer(async (request): Promise<ScriptedReply> => {
    const judge = judges[Number(request.headers[JUDGE_HEADER])]
    if (judge === undefined) return { status: 400, error: { message: `no example judge for ${JUDGE_HEADER}` } }
    const format = request.body.response_format
    try {
      const answer = await judge.generate({
        messages: request.body.messages.map(({ role, content }) => ({
          // The AI SDK sends the system prompt as a `developer` message to a reasoning model (gpt-5.x, gpt-6-luna).
          role: role === 'system' || role === 'developer' ? 'system' : role === 'assistant' ? role : 'user',
          content,
        })),
        schema: z.unknown(),
        schemaName: format?.type === 'json_schema' ? format.json_schema.name : 'answer',
        promptVersion: 'loopback',
      })
      // Roughly four characters a token, so the run reports usage as a real server would.
      const promptTokens = Math.ceil(JSON.stringify(request.body.messages).length / 4)
      const completionTokens = Math.ceil(JSON.stringify(answer.value).length / 4)
      return jsonReply(answer.value, { usage: { promptTokens, completionTokens } })
    } catch (error) {
      return { status: 400, error: { message: error instanceof Error ? error.message : String(error) } }
    }
  })
  // The server lives as long as the test worker; its sockets must not keep the worker alive.
  process.once('beforeExit', () => void server.close())
  return {
    baseURL: server.baseURL,
    serve(judge) {
      judges.push(judge)
      return { [JUDGE_HEADER]: String(judges.length - 1) }
    },
  }
}
