import { setTimeout as sleep } from 'node:timers/promises'
import { jsonReply, lastUserMessage, type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'

/** The local OpenAI server of the shared-limit tests, and the most requests it ever had in flight at once. */
export interface LatencyServer {
  readonly server: OpenAIServer
  readonly maxInFlight: () => number
}

/** Answers "Playful Chatbot" as playful (it passes), each request after `latencyMs`. */
export async function startLatencyServer(latencyMs: number): Promise<LatencyServer> {
  let inFlight = 0
  let maxInFlight = 0
  const server = await startOpenAIServer(async (request) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      await sleep(latencyMs)
    } finally {
      inFlight -= 1
    }
    return lastUserMessage(request).includes("Describe the assistant's tone")
      ? jsonReply({ output: 'The assistant jokes while answering.' })
      : jsonReply({ reason: 'The assistant makes a joke about the weather.', verdict: true })
  })
  return { server, maxInFlight: () => maxInFlight }
}
