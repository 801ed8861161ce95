import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import {
  type DecisionBody,
  type DecisionResponder,
  decisionBodyProblem,
  decisionOf,
  type RecordedDecisionRequest,
  unscriptedDecisions,
} from './decision-server.js'

/** The Chat Completions request fields the judge sends and tests inspect. */
export interface ChatCompletionBody {
  readonly model: string
  readonly messages: readonly { readonly role: string; readonly content: string }[]
  readonly response_format?:
    | { readonly type: 'json_schema'; readonly json_schema: { name: string; schema: unknown; strict?: boolean } }
    | { readonly type: 'json_object' }
    | { readonly type: 'text' }
  readonly logprobs?: boolean
  readonly top_logprobs?: number
  readonly temperature?: number
  /** How many samples (choices) the client asked for; absent means 1. */
  readonly n?: number
  readonly reasoning_effort?: string
  readonly max_completion_tokens?: number
  readonly max_tokens?: number
}

/** One request the server received, in arrival order. */
export interface RecordedRequest {
  /** Path and query, e.g. `/v1/chat/completions` or `/openai/deployments/judge/chat/completions?api-version=…`. */
  readonly url: string
  readonly body: ChatCompletionBody
  readonly headers: Record<string, string | string[] | undefined>
  /** 0 for the first request the server received, 1 for the next, … */
  readonly index: number
}

/** How the server answers one request; an empty reply is a 200 with null content. */
export interface ScriptedReply {
  content?: string
  /** Serialised with JSON.stringify into `content`. */
  json?: unknown
  /** HTTP status; 400 and up answers `{ error }` instead of a completion. */
  status?: number
  error?: { message: string; type?: string; code?: string; param?: string }
  headers?: Record<string, string>
  /** Waits this long before answering; cancelled when the client disconnects. */
  delayMs?: number
  finishReason?: 'stop' | 'length' | 'content_filter'
  refusal?: string
  logprobs?: { token: string; logprob: number; top: Record<string, number> }[]
  /**
   * Token counts; `completionTokens` and `reasoningTokens` are per choice. `cachedTokens` (of the prompt) and
   * `reasoningTokens` (of the completion) are sent as `prompt_tokens_details.cached_tokens` and
   * `completion_tokens_details.reasoning_tokens`, as reasoning models report them; left out, the details are too.
   */
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number; reasoningTokens?: number }
  emptyChoices?: boolean
  /**
   * One choice per entry, for a request with `n`: each entry's `json` (or `content`) and `logprobs` replace the
   * reply's own. Without it a reply has one choice.
   */
  samples?: readonly Pick<ScriptedReply, 'json' | 'content' | 'logprobs' | 'finishReason' | 'refusal'>[]
  /** Destroys the socket without answering. */
  resetConnection?: boolean
  /** Sent verbatim as the body (with `status`, default 200). */
  rawBody?: string
  /**
   * Sends the status, the headers (with the full Content-Length) and the first half of the body, then destroys the
   * socket: a connection reset mid-response, after the SDK has seen a 200.
   */
  resetAfterHeaders?: boolean
  /** Sends only the first half of the body as a complete HTTP response: a truncated, unparsable JSON body. */
  truncateBody?: boolean
  /** Sends the headers and the first half of the body, then nothing more: a stream that stalls mid-body. */
  stallAfterHeaders?: boolean
}

/**
 * What `GET /v1/models/{id}` answers: each listed model with its `shutdown_date` (`YYYY-MM-DD`, or null for none
 * announced), any other id a 404; or `{ status }` to answer every lookup with that HTTP error (a 500, say).
 */
export type ModelList = Readonly<Record<string, string | null>> | { readonly status: number }

/** What a reply may do besides answering: wait, fail, or cut the connection or the body. */
type Fault = Pick<
  ScriptedReply,
  | 'status'
  | 'error'
  | 'headers'
  | 'delayMs'
  | 'resetConnection'
  | 'rawBody'
  | 'resetAfterHeaders'
  | 'truncateBody'
  | 'stallAfterHeaders'
>

/** Decides the reply to one request. */
export type Responder = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>

/** A sampling parameter a reasoning model refuses. */
export type RefusedParameter = 'temperature' | 'logprobs' | 'n'

/**
 * The server behaving like a reasoning model (gpt-5.x, gpt-6): before the responder is asked, a request with a
 * refused parameter is answered 400 in OpenAI's error shape (`param` names it, `code` is `unsupported_value` for a
 * temperature but 1 and `unsupported_parameter` otherwise), and every completion reports reasoning tokens and, for a
 * prompt the server saw before, cached prompt tokens.
 */
export interface ReasoningModelMode {
  /** @default ['temperature', 'logprobs'] (a `temperature` of 1 is always taken) */
  readonly refuses?: readonly RefusedParameter[]
  /** Reasoning tokens per choice, counted within its completion tokens. @default 3 */
  readonly reasoningTokens?: number
  /** Cached prompt tokens for a prompt seen before. @default half the prompt tokens, rounded down */
  readonly cachedPromptTokens?: number
}

/** How the server behaves besides what the responder scripts. */
export interface OpenAIServerOptions {
  /** Behaves like a reasoning model; `true` for the defaults. @default off */
  readonly reasoningModel?: ReasoningModelMode | boolean | undefined
  /** What `GET /v1/models/{id}` answers, by model id. @default {} (every model lookup is a 404) */
  readonly models?: ModelList | undefined
  /**
   * How `POST /v1/decisions` (OpenAI's Decisions API) is answered, e.g. `decideEach(() => mostProbable(true))`.
   * @default a 500 saying no decision responder was scripted
   */
  readonly decisions?: DecisionResponder | undefined
}

/** A running scriptable OpenAI-compatible server. */
export interface OpenAIServer {
  /** `http://127.0.0.1:PORT/v1`, ready to pass as `baseURL`. */
  readonly baseURL: string
  /** The chat completion requests, in arrival order (model lookups are in `modelLookups`). */
  readonly requests: RecordedRequest[]
  /** The `POST /v1/decisions` requests, in arrival order (apart from the chat completions in `requests`). */
  readonly decisionRequests: RecordedDecisionRequest[]
  /** The model ids asked for with `GET /v1/models/{id}`, in arrival order. */
  readonly modelLookups: string[]
  respondWith(responder: Responder): void
  /** Replaces how decision requests are answered. */
  decideWith(responder: DecisionResponder): void
  /** Replaces what model lookups answer. */
  listModels(models: ModelList): void
  /** Stops listening and drops open connections, including delayed replies. */
  close(): Promise<void>
}

const unscripted: Responder = () => ({
  status: 500,
  error: { message: 'The test server has no responder scripted for this request; call respondWith().' },
})

/** The usage of a reply that scripts none: per choice, 5 completion tokens. */
const DEFAULT_USAGE: NonNullable<ScriptedReply['usage']> = { promptTokens: 10, completionTokens: 5 }

/** OpenAI's path, and Azure OpenAI's, whose deployment takes the place of the model. */
const CHAT_COMPLETIONS_PATH = /^\/(?:v1|openai\/deployments\/[^/]+)\/chat\/completions$/

/** OpenAI's Decisions API. */
const DECISIONS_PATH = '/v1/decisions'

/** OpenAI's path to one model's description. */
const MODEL_PATH = /^\/v1\/models\/([^/?]+)$/

/** Starts a Chat Completions server (with model lookups and the Decisions API) on 127.0.0.1 at a free port. */
export async function startOpenAIServer(
  responder: Responder = unscripted,
  options: OpenAIServerOptions = {},
): Promise<OpenAIServer> {
  let current = responder
  let decisions = options.decisions ?? unscriptedDecisions
  const decisionRequests: RecordedDecisionRequest[] = []
  const reasoning = options.reasoningModel === true ? {} : options.reasoningModel || undefined
  const promptsSeen = new Set<string>()
  let models: ModelList = options.models ?? {}
  const requests: RecordedRequest[] = []
  const modelLookups: string[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, { error: { message: `Test server failure: ${String(error)}`, type: 'server_error' } })
      }
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req)
    const lookedUp = req.method === 'GET' ? MODEL_PATH.exec(req.url?.split('?')[0] ?? '') : null
    if (lookedUp !== null) {
      answerModel(decodeURIComponent(lookedUp[1] as string), res)
      return
    }
    if (req.method === 'POST' && req.url?.split('?')[0] === DECISIONS_PATH) {
      await handleDecision(req, res, text)
      return
    }
    if (req.method !== 'POST' || !CHAT_COMPLETIONS_PATH.test(req.url?.split('?')[0] ?? '')) {
      sendJson(res, 404, { error: { message: `Unknown path ${req.method} ${req.url}`, type: 'invalid_request_error' } })
      return
    }
    const recorded: RecordedRequest = {
      url: req.url ?? '',
      body: JSON.parse(text) as ChatCompletionBody,
      headers: req.headers,
      index: requests.length,
    }
    requests.push(recorded)
    const refusal = reasoning === undefined ? undefined : refusalOf(recorded.body, reasoning)
    if (refusal !== undefined) {
      sendJson(res, 400, { error: refusal })
      return
    }
    const scripted = await current(recorded)
    const reply = reasoning === undefined ? scripted : reasoningUsage(scripted, recorded.body, reasoning, promptsSeen)
    await deliver(req, res, reply, () => completion(recorded, reply))
  }

  /** Answers a `POST /v1/decisions`: OpenAI's 400 for a body it would refuse, else the decision responder's reply. */
  async function handleDecision(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const recorded: RecordedDecisionRequest = {
      url: req.url ?? '',
      body: JSON.parse(text) as DecisionBody,
      headers: req.headers,
      index: decisionRequests.length,
    }
    decisionRequests.push(recorded)
    const problem = decisionBodyProblem(recorded.body)
    if (problem !== undefined) {
      sendJson(res, 400, { error: { ...problem, type: 'invalid_request_error', code: 'invalid_value' } })
      return
    }
    const reply = await decisions(recorded)
    await deliver(req, res, reply, () => decisionOf(recorded, reply))
  }

  /** Sends `reply`: its delay and faults, else `answer()` (built only when it is sent). */
  async function deliver(
    req: IncomingMessage,
    res: ServerResponse,
    reply: Fault,
    answer: () => unknown,
  ): Promise<void> {
    if (reply.delayMs !== undefined && !(await wait(reply.delayMs, res))) return
    if (reply.resetConnection) {
      req.socket.destroy()
      return
    }
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value)
    if (reply.resetAfterHeaders || reply.truncateBody || reply.stallAfterHeaders) {
      const body = Buffer.from(reply.rawBody ?? JSON.stringify(answer()))
      const half = body.subarray(0, Math.floor(body.length / 2))
      if (reply.truncateBody) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(half)
        return
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': body.length })
      res.flushHeaders()
      // A stall leaves the response open; close() (or the client giving up) ends it.
      res.write(half, () => (reply.stallAfterHeaders ? undefined : setImmediate(() => req.socket.destroy())))
      return
    }
    if (reply.rawBody !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(reply.rawBody)
      return
    }
    if (reply.status !== undefined && reply.status >= 400) {
      const error = reply.error ?? { message: `Scripted error ${reply.status}` }
      sendJson(res, reply.status, { error: { type: 'invalid_request_error', code: null, param: null, ...error } })
      return
    }
    sendJson(res, reply.status ?? 200, answer())
  }

  /** A model's description as OpenAI gives it, with its `shutdown_date`; a 404 for a model not listed. */
  function answerModel(id: string, res: ServerResponse): void {
    modelLookups.push(id)
    if (typeof models.status === 'number') {
      sendJson(res, models.status, { error: { message: `Scripted error ${models.status}`, type: 'server_error' } })
      return
    }
    const dates = models as Readonly<Record<string, string | null>>
    if (!Object.hasOwn(dates, id)) {
      const message = `The model '${id}' does not exist or you do not have access to it.`
      sendJson(res, 404, { error: { message, type: 'invalid_request_error', code: 'model_not_found' } })
      return
    }
    sendJson(res, 200, { id, object: 'model', created: 1_700_000_000, owned_by: 'system', shutdown_date: dates[id] })
  }

  /** Resolves false when the client went away first, so no timer outlives its request. */
  function wait(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      if (res.destroyed) return resolve(false)
      const timer = setTimeout(() => {
        timers.delete(timer)
        res.off('close', onClose)
        resolve(true)
      }, ms)
      timers.add(timer)
      const onClose = (): void => {
        clearTimeout(timer)
        timers.delete(timer)
        resolve(false)
      }
      res.once('close', onClose)
    })
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    decisionRequests,
    modelLookups,
    respondWith(next) {
      current = next
    },
    decideWith(next) {
      decisions = next
    },
    listModels(next) {
      models = next
    },
    close() {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
  }
}

/** OpenAI's 400 for a parameter the reasoning model refuses, or undefined to answer the request. */
function refusalOf(body: ChatCompletionBody, mode: ReasoningModelMode): object | undefined {
  const refuses = mode.refuses ?? ['temperature', 'logprobs']
  const error = (param: string, code: string, message: string) => ({
    message,
    type: 'invalid_request_error',
    param,
    code,
  })
  if (refuses.includes('temperature') && body.temperature !== undefined && body.temperature !== 1) {
    return error(
      'temperature',
      'unsupported_value',
      `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
    )
  }
  if (refuses.includes('logprobs') && (body.logprobs !== undefined || body.top_logprobs !== undefined)) {
    const param = body.logprobs !== undefined ? 'logprobs' : 'top_logprobs'
    return error(param, 'unsupported_parameter', `Unsupported parameter: '${param}' is not supported with this model.`)
  }
  if (refuses.includes('n') && body.n !== undefined && body.n !== 1) {
    return error('n', 'unsupported_value', "Unsupported value: 'n' must be 1 with this model.")
  }
  return undefined
}

/** The reply with a reasoning model's usage details: reasoning tokens, and cached tokens for a prompt seen before. */
function reasoningUsage(
  reply: ScriptedReply,
  body: ChatCompletionBody,
  mode: ReasoningModelMode,
  promptsSeen: Set<string>,
): ScriptedReply {
  const prompt = JSON.stringify(body.messages)
  const repeated = promptsSeen.has(prompt)
  promptsSeen.add(prompt)
  const usage = reply.usage ?? DEFAULT_USAGE
  return {
    ...reply,
    usage: {
      reasoningTokens: Math.min(mode.reasoningTokens ?? 3, usage.completionTokens),
      cachedTokens: repeated ? (mode.cachedPromptTokens ?? Math.floor(usage.promptTokens / 2)) : 0,
      ...usage,
    },
  }
}

/** A reply whose content is `value` as JSON. */
export function jsonReply(value: unknown, extra?: Omit<ScriptedReply, 'json' | 'content'>): ScriptedReply {
  return { ...extra, json: value }
}

/** The text of the request's last user message, for responders that route on the prompt. */
export function lastUserMessage(request: RecordedRequest): string {
  const messages = request.body.messages.filter((message) => message.role === 'user')
  return messages.at(-1)?.content ?? ''
}

function completion(request: RecordedRequest, reply: ScriptedReply): unknown {
  const usage = reply.usage ?? DEFAULT_USAGE
  const choices = reply.emptyChoices
    ? []
    : (reply.samples ?? [reply]).map((sample, index) => choiceOf({ ...reply, ...sample }, index))
  return {
    id: `chatcmpl-test-${request.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    choices,
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens * choices.length,
      total_tokens: usage.promptTokens + usage.completionTokens * choices.length,
      ...(usage.cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
      ...(usage.reasoningTokens === undefined
        ? {}
        : { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens * choices.length } }),
    },
  }
}

function choiceOf(reply: ScriptedReply, index: number): unknown {
  const content = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.content ?? null)
  const logprobs =
    reply.logprobs === undefined
      ? null
      : {
          content: reply.logprobs.map((entry) => ({
            token: entry.token,
            logprob: entry.logprob,
            bytes: [...Buffer.from(entry.token)],
            top_logprobs: Object.entries(entry.top).map(([token, logprob]) => ({
              token,
              logprob,
              bytes: [...Buffer.from(token)],
            })),
          })),
          refusal: null,
        }
  return {
    index,
    message: { role: 'assistant', content, refusal: reply.refusal ?? null },
    finish_reason: reply.finishReason ?? 'stop',
    logprobs,
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
