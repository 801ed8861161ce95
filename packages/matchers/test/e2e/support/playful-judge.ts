import { jsonReply, type Responder } from '@judgetree/test-support'

/**
 * The judge of the fixtures' playful-chatbot DAG (fixtures/shared/metrics.ts): the tone task describes a reply with
 * "haha" as joking, and the judgement finds a joking tone playful, giving `playfulReason`.
 */
export function playfulJudge(playfulReason = 'It jokes.'): Responder {
  return (request) => {
    const prompt = request.body.messages.map((message) => String(message.content)).join('\n')
    if (prompt.includes("Describe the assistant's tone")) {
      return jsonReply({ output: prompt.includes('haha') ? 'The assistant jokes.' : 'The assistant answers flatly.' })
    }
    const playful = prompt.includes('jokes')
    return jsonReply({ reason: playful ? playfulReason : 'A bare number is not playful.', verdict: playful })
  }
}
