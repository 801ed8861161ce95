// An OpenAI-compatible Chat Completions (and Decisions) server on 127.0.0.1 with a configurable latency, for benchmarks.
// Run alone: `node bench/server.mjs --latency 200` prints {"baseURL": "http://127.0.0.1:PORT/v1"} and serves until killed.
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { answerFor, textFor } from './answers.mjs'

/**
 * Starts the server; it honours `n`. GET /stats returns counters (requests, tokens billed); POST /config {"latencyMs"}
 * changes the latency and resets them. `answer(schema, prompt, sample)` may answer a chat request's sample itself (a
 * noisy judge); it answers from the schema (`answerFor`) where it returns undefined.
 */
export async function startBenchServer({ latencyMs = 0, port = 0, answer = undefined } = {}) {
  let latency = latencyMs
  const zero = () => ({
    requests: 0,
    decisionRequests: 0,
    inFlight: 0,
    peakInFlight: 0,
    promptTokens: 0,
    completionTokens: 0,
  })
  const counters = zero()
  const server = createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const path = req.url?.split('?')[0]
    if (req.method === 'GET' && path === '/stats') return send(res, 200, { ...counters, latencyMs: latency })
    if (req.method === 'POST' && path === '/config') {
      latency = JSON.parse(Buffer.concat(chunks).toString('utf8')).latencyMs ?? latency
      Object.assign(counters, zero())
      return send(res, 200, { latencyMs: latency })
    }
    const decisions = path === '/v1/decisions'
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && !decisions)) {
      return send(res, 404, { error: { message: path } })
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    counters.requests += 1
    if (decisions) counters.decisionRequests += 1
    counters.inFlight += 1
    counters.peakInFlight = Math.max(counters.peakInFlight, counters.inFlight)
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency))
    counters.inFlight -= 1
    if (decisions) {
      const decided = decide(body)
      counters.promptTokens += decided.usage.input_tokens
      return send(res, 200, decided)
    }
    const prompt = body.messages.at(-1)?.content ?? ''
    const schema = body.response_format?.json_schema?.schema
    const promptChars = body.messages.reduce((sum, message) => sum + message.content.length, 0)
    // `n` asks for several samples of one prompt: the prompt is billed once, each sample's completion apart.
    const samples = Number.isInteger(body.n) && body.n > 1 ? body.n : 1
    const contents = Array.from({ length: samples }, (_, sample) =>
      JSON.stringify(answer?.(schema, prompt, sample) ?? answerFor(schema, textFor(prompt))),
    )
    const usage = {
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: contents.reduce((sum, content) => sum + Math.ceil(content.length / 4), 0),
    }
    counters.promptTokens += usage.prompt_tokens
    counters.completionTokens += usage.completion_tokens
    send(res, 200, {
      id: `chatcmpl-bench-${counters.requests}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: contents.map((content, index) => ({
        index,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      })),
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}`
  return {
    url,
    baseURL: `${url}/v1`,
    stats: () => ({ ...counters }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(resolve)
      }),
  }
}

/**
 * A `POST /v1/decisions` answer (the Decisions API's wire format): the answers the chat endpoint gives (yes, the last
 * option, the top level) as the most probable, at 0.9. Input tokens are billed like chat prompts (characters ÷ 4,
 * the input and every question), output tokens are none.
 */
function decide(body) {
  const input = typeof body.input === 'string' ? body.input : JSON.stringify(body.input)
  const questionChars = body.questions.reduce((sum, question) => sum + JSON.stringify(question).length, 0)
  const answers = body.questions.map((question) => {
    const name = question.name ?? null
    if (question.type === 'predicate') return { type: 'predicate', name, probability: 0.9 }
    const keys = question.type === 'choice' ? question.choices.map((choice) => choice.value) : question.levels
    const probabilities = keys.map((_, at) => (at === keys.length - 1 ? 0.9 : 0.1 / (keys.length - 1)))
    if (question.type === 'choice') {
      return {
        type: 'choice',
        name,
        choice: keys.at(-1),
        confidence: 0.9,
        probabilities: keys.map((value, at) => ({ value, probability: probabilities[at] })),
      }
    }
    const score = probabilities.reduce((sum, probability, at) => sum + at * probability, 0)
    return {
      type: 'score',
      name,
      score: Math.round(score * 100) / 100,
      confidence: 0.9,
      probabilities: keys.map((level, at) => ({ label: level.label, value: at, probability: probabilities[at] })),
    }
  })
  const inputTokens = Math.ceil((input.length + questionChars) / 4)
  return {
    model: body.model,
    answers,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens,
    },
  }
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--latency')
  const latencyMs = at === -1 ? 0 : Number(process.argv[at + 1])
  const server = await startBenchServer({ latencyMs })
  process.stdout.write(`${JSON.stringify({ baseURL: server.baseURL, url: server.url })}\n`)
}
