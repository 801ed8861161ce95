// An OpenAI-compatible server on 127.0.0.1 that behaves like a provider under load, for the rate-limit and soak
// benchmarks: it admits at most `perSecond` requests in any sliding second and answers the rest 429 with the wait
// until it would admit one (`retry-after` in whole seconds, `retry-after-ms` exactly, as Azure OpenAI sends and the
// OpenAI SDK reads first), and it can inject random faults. Every request is logged with its time and outcome.
import { createServer } from 'node:http'
import { answerFor, textFor } from './answers.mjs'

/**
 * `firstRateLimited` answers the first N requests 429 with a wait of `firstWaitMs` (a provider's hiccup at the start
 * of a run); `latencyMs` is the answer's delay, plus up to `jitterMs` more at random.
 *
 * @param {{ perSecond?: number, latencyMs?: number, jitterMs?: number, firstRateLimited?: number,
 *   firstWaitMs?: number, faults?: { rateLimit?: number, serverError?: number, reset?: number, malformed?: number },
 *   random?: () => number }} options
 */
export async function startLimitedServer({
  perSecond = Infinity,
  latencyMs = 0,
  jitterMs = 0,
  firstRateLimited = 0,
  firstWaitMs = 20,
  faults = {},
  random = Math.random,
} = {}) {
  const admitted = [] // times of the admissions in the last second
  const log = [] // { at, outcome }
  const sockets = new Set()
  const server = createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/chat/completions')) return send(res, 404, {})
    const at = performance.now()
    if (log.length < firstRateLimited) {
      log.push({ at, outcome: 'burst-429' })
      return send(res, 429, rateLimitError(), waitHeaders(firstWaitMs))
    }
    while (admitted.length > 0 && (admitted[0] ?? 0) <= at - 1000) admitted.shift()
    if (admitted.length >= perSecond) {
      const waitMs = Math.max(1, Math.ceil((admitted[0] ?? at) + 1000 - at))
      log.push({ at, outcome: '429' })
      return send(res, 429, rateLimitError(), waitHeaders(waitMs))
    }
    admitted.push(at)
    const draw = random()
    // Cumulative bands of one draw: [0, 429) [429, 5xx) [5xx, reset) [reset, malformed).
    const bands = [faults.rateLimit, faults.serverError, faults.reset, faults.malformed].map((share) => share ?? 0)
    const [to429, to5xx, toReset, toMalformed] = bands.map((_, at) => bands.slice(0, at + 1).reduce((a, b) => a + b, 0))
    if (draw < to429) {
      log.push({ at, outcome: 'fault-429' })
      return send(res, 429, rateLimitError(), waitHeaders(20 + Math.floor(random() * 180)))
    }
    if (draw < to5xx) {
      log.push({ at, outcome: 'fault-5xx' })
      return send(res, [500, 502, 503][Math.floor(random() * 3)], { error: { message: 'The server had an error' } })
    }
    if (draw < toReset) {
      log.push({ at, outcome: 'fault-reset' })
      req.socket.destroy()
      return
    }
    const malformed = draw < toMalformed
    const delayMs = latencyMs + (jitterMs > 0 ? random() * jitterMs : 0)
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const prompt = body.messages.at(-1)?.content ?? ''
    let content = JSON.stringify(answerFor(body.response_format?.json_schema?.schema, textFor(prompt)))
    // Half the malformed answers are the model's (its JSON cut short: judgetree asks again), half the server's
    // (the HTTP body cut short mid-JSON).
    const malformedBody = malformed && random() < 0.5
    if (malformed && !malformedBody) content = content.slice(0, Math.floor(content.length / 2))
    log.push({ at, outcome: malformed ? (malformedBody ? 'fault-body' : 'fault-answer') : 'ok', n: body.n ?? 1 })
    // `n` samples of one prompt (trials share one request per step), as the Chat Completions API answers them.
    const samples = Math.max(1, Number(body.n ?? 1))
    const completion = JSON.stringify({
      id: `chatcmpl-bench-${log.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: Array.from({ length: samples }, (_, index) => ({
        index,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      })),
      usage: {
        prompt_tokens: Math.ceil(prompt.length / 4),
        completion_tokens: 20 * samples,
        total_tokens: 20 * samples,
      },
    })
    if (malformedBody) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(completion.slice(0, completion.length / 2))
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(completion)
  })
  server.keepAliveTimeout = 60_000
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    log,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(resolve)
      }),
  }
}

function rateLimitError() {
  return { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }
}

function waitHeaders(waitMs) {
  return { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) }
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}
