import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { envConcurrency, envRequestsPerMinute, validateLimits } from './limits.js'

/** Options of {@link startCoordinator}. */
export interface CoordinatorOptions {
  /** Judge calls in flight at once across every process that uses this coordinator. @default JUDGETREE_CONCURRENCY ?? 8 */
  concurrency?: number | undefined
  /** Judge calls started per minute across every process, spaced evenly. @default JUDGETREE_RPM, else unlimited */
  requestsPerMinute?: number | undefined
  /** A slot held longer than this is taken back, so a hung worker cannot block the run forever. @default 600_000 */
  leaseTimeoutMs?: number | undefined
}

/** Counters of a running coordinator, for tests and diagnostics (`GET <url>/status` returns the same). */
export interface CoordinatorStats {
  readonly concurrency: number
  readonly requestsPerMinute: number | undefined
  readonly inFlight: number
  readonly waiting: number
  /** Slots granted since start. */
  readonly granted: number
  /** The most slots ever held at once. */
  readonly peakInFlight: number
  /** Leases taken back after leaseTimeoutMs. */
  readonly expired: number
}

/** A running coordinator: set `JUDGETREE_COORDINATOR_URL` to `url` in the processes that should share its limit. */
export interface Coordinator {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  stats(): CoordinatorStats
  /** Stops listening and ends every lease and wait. */
  close(): Promise<void>
}

/**
 * Starts a judge-call semaphore on 127.0.0.1 that many worker processes share, so a test run has one limit however
 * many workers it spawns. A slot is an open HTTP response: it is held while the response stays open, so a worker
 * that crashes gives its slots back the moment its sockets close.
 *
 * @example
 * // a test runner's global setup
 * const coordinator = await startCoordinator({ concurrency: 16 })
 * process.env.JUDGETREE_COORDINATOR_URL = coordinator.url
 * return () => coordinator.close()
 */
export async function startCoordinator(options: CoordinatorOptions = {}): Promise<Coordinator> {
  const concurrency = options.concurrency ?? envConcurrency()
  const requestsPerMinute = 'requestsPerMinute' in options ? options.requestsPerMinute : envRequestsPerMinute()
  const leaseTimeoutMs = options.leaseTimeoutMs ?? 600_000
  validateLimits('startCoordinator', { concurrency, requestsPerMinute, leaseTimeoutMs })
  const spacingMs = requestsPerMinute === undefined ? 0 : 60_000 / requestsPerMinute

  const waiting: ServerResponse[] = []
  const leases = new Set<ServerResponse>()
  const sockets = new Set<Socket>()
  let granted = 0
  let peakInFlight = 0
  let expired = 0
  let nextGrantAt = 0
  let pumpTimer: NodeJS.Timeout | undefined

  const pump = (): void => {
    while (leases.size < concurrency && waiting.length > 0) {
      const wait = nextGrantAt - performance.now()
      if (wait > 0) {
        pumpTimer ??= setTimeout(() => {
          pumpTimer = undefined
          pump()
        }, wait)
        return
      }
      grant(waiting.shift() as ServerResponse)
    }
  }

  const grant = (res: ServerResponse): void => {
    leases.add(res)
    granted += 1
    peakInFlight = Math.max(peakInFlight, leases.size)
    nextGrantAt = Math.max(nextGrantAt, performance.now()) + spacingMs
    const timer = setTimeout(() => {
      expired += 1
      res.end('expired\n')
    }, leaseTimeoutMs)
    res.once('close', () => {
      clearTimeout(timer)
      leases.delete(res)
      pump()
    })
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.write('granted\n')
  }

  const stats = (): CoordinatorStats => ({
    concurrency,
    requestsPerMinute,
    inFlight: leases.size,
    waiting: waiting.length,
    granted,
    peakInFlight,
    expired,
  })

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    const path = req.url?.split('?')[0]
    if (req.method === 'POST' && path === '/acquire') {
      waiting.push(res)
      // A worker that gives up (abort, crash) while waiting leaves the line.
      res.once('close', () => {
        const at = waiting.indexOf(res)
        if (at !== -1) waiting.splice(at, 1)
      })
      pump()
      return
    }
    if (req.method === 'GET' && path === '/status') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats()))
      return
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('judgetree coordinator: POST /acquire or GET /status\n')
  })
  // Waits and leases are long-lived responses by design.
  server.requestTimeout = 0
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close() {
      if (pumpTimer) clearTimeout(pumpTimer)
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      return closed
    },
  }
}
