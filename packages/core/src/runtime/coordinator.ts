import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { z } from 'zod'
import { parseOptions } from '../internal/options.js'
import { AdaptiveLimit } from './adaptive-limit.js'
import {
  concurrencySchema,
  envConcurrency,
  envRequestsPerMinute,
  requestsPerMinuteSchema,
  timerMsSchema,
} from './limits.js'

/** Options of {@link startCoordinator}. */
export interface CoordinatorOptions {
  /** Judge calls in flight at once across every process that uses this coordinator. @default JUDGETREE_CONCURRENCY ?? 8 */
  concurrency?: number | undefined
  /** Judge calls started per minute across every process, spaced evenly. @default JUDGETREE_RPM, else unlimited */
  requestsPerMinute?: number | undefined
  /** A slot held longer than this is taken back, so a hung worker cannot block the run forever. @default 600_000 */
  leaseTimeoutMs?: number | undefined
}

const coordinatorOptionsSchema = z.strictObject({
  concurrency: concurrencySchema.optional(),
  requestsPerMinute: requestsPerMinuteSchema.optional(),
  leaseTimeoutMs: timerMsSchema.optional(),
})

/** Counters of a running coordinator, for tests and diagnostics (`GET <url>/status` returns the same). */
export interface CoordinatorStats {
  /** The configured limit: the most slots ever granted at once. */
  readonly concurrency: number
  /** The limit now, lowered after 429s and raised again as calls succeed (never above `concurrency`). */
  readonly currentConcurrency: number
  /** The lowest the limit went. */
  readonly lowestConcurrency: number
  /** 429s workers reported. */
  readonly rateLimited: number
  /** Milliseconds until slots are granted again after a 429; 0 when not paused. */
  readonly pausedForMs: number
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
  parseOptions(coordinatorOptionsSchema, options, 'startCoordinator')
  const concurrency = options.concurrency ?? envConcurrency()
  const requestsPerMinute = 'requestsPerMinute' in options ? options.requestsPerMinute : envRequestsPerMinute()
  const leaseTimeoutMs = options.leaseTimeoutMs ?? 600_000
  const spacingMs = requestsPerMinute === undefined ? 0 : 60_000 / requestsPerMinute

  const waiting: ServerResponse[] = []
  const leases = new Set<ServerResponse>()
  const limit = new AdaptiveLimit(concurrency)
  /** Each lease's id → the limit's epoch when it was granted, and whether it reported a 429. */
  const leaseInfo = new Map<number, { epoch: number; rateLimited: boolean }>()
  let nextLeaseId = 1
  let pausedUntil = 0
  const sockets = new Set<Socket>()
  let granted = 0
  let peakInFlight = 0
  let expired = 0
  let nextGrantAt = 0
  let pumpTimer: NodeJS.Timeout | undefined
  /** What some process of the run has claimed to do once for the whole run (e.g. warn that a model shuts down). */
  const claimed = new Set<string>()

  const pump = (): void => {
    clearTimeout(pumpTimer)
    pumpTimer = undefined
    while (leases.size < limit.current && waiting.length > 0) {
      const wait = Math.max(nextGrantAt, pausedUntil) - performance.now()
      if (wait > 0) {
        pumpTimer = setTimeout(pump, wait)
        return
      }
      grant(waiting.shift() as ServerResponse)
    }
  }

  const grant = (res: ServerResponse): void => {
    leases.add(res)
    granted += 1
    peakInFlight = Math.max(peakInFlight, leases.size)
    const now = performance.now()
    nextGrantAt = Math.max(nextGrantAt, now) + Math.max(spacingMs, limit.spacingMs)
    limit.started(now)
    const id = nextLeaseId++
    const info = { epoch: limit.epoch, rateLimited: false }
    leaseInfo.set(id, info)
    const timer = setTimeout(() => {
      expired += 1
      res.end('expired\n')
    }, leaseTimeoutMs)
    timer.unref()
    res.once('close', () => {
      clearTimeout(timer)
      leases.delete(res)
      leaseInfo.delete(id)
      if (!info.rateLimited) limit.succeeded()
      pump()
    })
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.write(`granted ${id}\n`)
  }

  const rateLimited = (lease: unknown, pauseMs: unknown): void => {
    const info = typeof lease === 'number' ? leaseInfo.get(lease) : undefined
    if (info !== undefined) info.rateLimited = true
    // A report without a known lease (an older client, or one whose lease expired) still counts and pauses.
    limit.rateLimitedAt(info?.epoch ?? limit.epoch)
    const pause =
      typeof pauseMs === 'number' && Number.isFinite(pauseMs) ? Math.min(Math.max(pauseMs, 0), MAX_PAUSE_MS) : 0
    pausedUntil = Math.max(pausedUntil, performance.now() + pause)
    pump()
  }

  const stats = (): CoordinatorStats => ({
    concurrency,
    currentConcurrency: limit.current,
    lowestConcurrency: limit.lowest,
    rateLimited: limit.rateLimited,
    pausedForMs: Math.max(0, Math.round(pausedUntil - performance.now())),
    requestsPerMinute,
    inFlight: leases.size,
    waiting: waiting.length,
    granted,
    peakInFlight,
    expired,
  })

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url?.split('?')[0]
    if (path !== '/rate-limited' && path !== '/once') req.resume()
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
    if (req.method === 'POST' && path === '/rate-limited') {
      readJson(req).then((body) => {
        rateLimited(body?.lease, body?.pauseMs)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ concurrency: limit.current }))
      })
      return
    }
    if (req.method === 'POST' && path === '/once') {
      readJson(req).then((body) => {
        const key = typeof body?.key === 'string' ? body.key : undefined
        // A claim that cannot be read is granted: at worst, something is done once per process.
        const first = key === undefined || !claimed.has(key)
        if (key !== undefined) claimed.add(key)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ first }))
      })
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
  // Kept with the stats so that a reporter can say what happened after the coordinator has closed.
  runStats().current = stats
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
      clearTimeout(pumpTimer)
      pumpTimer = undefined
      waiting.length = 0
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      return closed
    },
  }
}

/** The longest pause a Retry-After may impose on the run; longer asks are capped, as the OpenAI SDK caps them. */
export const MAX_PAUSE_MS = 60_000

/** Where the stats of the coordinator this process started last live: one per process, whichever copy of this module. */
interface StatsHolder {
  current: (() => CoordinatorStats) | undefined
}

function runStats(): StatsHolder {
  const global = globalThis as { [STATS_KEY]?: StatsHolder }
  global[STATS_KEY] ??= { current: undefined }
  return global[STATS_KEY]
}

const STATS_KEY = Symbol.for('judgetree.coordinatorStats')

/** What the coordinator this process started last saw, even after it closed; undefined when none was started. */
export function lastCoordinatorStats(): CoordinatorStats | undefined {
  return runStats().current?.()
}

function readJson(req: IncomingMessage): Promise<{ lease?: unknown; pauseMs?: unknown; key?: unknown } | undefined> {
  return new Promise((resolve) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      if (text.length < 1_000) text += chunk
    })
    req.on('end', () => {
      try {
        const value: unknown = JSON.parse(text)
        resolve(typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined)
      } catch {
        resolve(undefined)
      }
    })
    req.on('error', () => resolve(undefined))
  })
}
