// The metric tests' judge: the real OpenAI SDK against the local test server, and what a request showed it.
import type { RecordedRequest } from '@judgetree/test-support'
import { OpenAIJudge } from '../../src/judge/openai-judge.js'
import { readData } from '../../src/prompts/shared.js'

/** A judge that talks to the local test server through the real SDK, with no retries. */
export function serverJudge(baseURL: string): OpenAIJudge {
  return new OpenAIJudge({ model: 'gpt-4.1', baseURL, apiKey: 'test-key', maxRetries: 0 })
}

/** The JSON document the request's prompt showed the judge (a re-ask repeats the original prompt first). */
export function dataOf(request: RecordedRequest): unknown {
  const prompt = request.body.messages.find((message) => message.role === 'user' && readData(message.content))
  return readData(prompt?.content ?? '')
}
