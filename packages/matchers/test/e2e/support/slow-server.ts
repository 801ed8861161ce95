import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One request to the slow server: when it arrived, and when the client went away before the reply, if it did. */
export interface SlowRequest {
  readonly receivedAt: number
  /** Set when the connection closed before the reply was sent: the client cancelled the request. */
  disconnectedAt: number | undefined
  replied: boolean
}

/** An OpenAI-compatible server that answers every Chat Completions request only after `delayMs`. */
export interface SlowServer {
  readonly baseURL: string
  readonly requests: readonly SlowRequest[]
  close(): Promise<void>
}

/** Starts the server on 127.0.0.1; it records client disconnects (`res` closed before the reply was sent). */
export async function startSlowServer(delayMs: number): Promise<SlowServer> {
  const requests: SlowRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((req, res) => {
    const request: SlowRequest = { receivedAt: Date.now(), disconnectedAt: undefined, replied: false }
    requests.push(request)
    req.resume()
    res.on('close', () => {
      if (!request.replied) request.disconnectedAt = Date.now()
    })
    const timer = setTimeout(() => {
      timers.delete(timer)
      if (!res.destroyed) reply(res, request)
    }, delayMs)
    timers.add(timer)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close() {
      for (const timer of timers) clearTimeout(timer)
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

function reply(res: ServerResponse, request: SlowRequest): void {
  request.replied = true
  const content = JSON.stringify({ output: 'The assistant answers flatly.' })
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: 'chatcmpl-slow',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'gpt-4.1',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }),
  )
}
