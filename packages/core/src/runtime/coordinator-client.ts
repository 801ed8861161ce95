import { request as httpRequest } from 'node:http'
import { MeasurementAbortedError } from '../errors.js'

/** One slot held at a coordinator; release it exactly when the judge call ends. */
export interface Lease {
  release(): void
  /**
   * Tells the coordinator this call got a 429, so it pauses every worker for `pauseMs` and lowers the run's limit,
   * then releases the slot. Resolves once the coordinator has taken note (or could not be reached).
   */
  rateLimited(pauseMs: number): Promise<RateLimitNoted>
}

/** The coordinator's answer to a 429 report: the run's limit after it (undefined when it could not be read). */
export interface RateLimitNoted {
  readonly concurrency: number | undefined
}

/** The coordinator could not be reached or answered oddly: callers fall back to their local limit. */
export class CoordinatorUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CoordinatorUnavailableError'
  }
}

/**
 * Waits at the coordinator for a slot. The request stays open while the slot is held; closing it releases the
 * slot, which is also what happens when this process dies.
 */
export function acquireSlot(url: string, signal?: AbortSignal): Promise<Lease> {
  if (signal?.aborted) return Promise.reject(new MeasurementAbortedError(signal.reason))
  return new Promise<Lease>((resolve, reject) => {
    let settled = false
    const settle = (outcome: () => void): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      outcome()
    }
    // A fresh connection per slot: a pooled socket would outlive the lease and hold it.
    const req = httpRequest(`${url}/acquire`, { method: 'POST', agent: false })
    const onAbort = (): void => {
      req.destroy()
      settle(() => reject(new MeasurementAbortedError(signal?.reason)))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (error) => {
      settle(() =>
        reject(new CoordinatorUnavailableError(`the coordinator at ${url} is unreachable`, { cause: error })),
      )
    })
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        req.destroy()
        settle(() => reject(new CoordinatorUnavailableError(`the coordinator at ${url} answered ${res.statusCode}`)))
        return
      }
      res.once('data', (chunk: Buffer) => {
        // 'granted <lease id>'; a coordinator from before lease ids answers 'granted' alone.
        const id = /^granted (\d+)/.exec(String(chunk))?.[1]
        const release = (): void => {
          req.destroy()
        }
        const rateLimited = async (pauseMs: number): Promise<RateLimitNoted> => {
          const noted = await report(url, { lease: id === undefined ? null : Number(id), pauseMs: Math.round(pauseMs) })
          release()
          return noted
        }
        settle(() => resolve({ release, rateLimited }))
      })
      res.once('end', () => {
        settle(() => reject(new CoordinatorUnavailableError(`the coordinator at ${url} closed before granting`)))
      })
      res.on('error', () => {})
    })
    req.end()
  })
}

/** POSTs a 429 to the coordinator; a coordinator that cannot be reached only loses the shared pause. */
async function report(url: string, body: { lease: number | null; pauseMs: number }): Promise<RateLimitNoted> {
  const concurrency = ((await postJson(`${url}/rate-limited`, body)) as { concurrency?: unknown } | undefined)
    ?.concurrency
  return { concurrency: typeof concurrency === 'number' ? concurrency : undefined }
}

/**
 * Claims `key` for this process, once per run: true for the first process of the run to claim it, false for every
 * later one. A coordinator that cannot be reached (or answers oddly) gives true, so the claim is at worst made once
 * per process.
 */
export async function claimOnce(url: string, key: string): Promise<boolean> {
  const answer = (await postJson(`${url}/once`, { key })) as { first?: unknown } | undefined
  return answer?.first !== false
}

/** POSTs `body` as JSON on a fresh connection; resolves to the parsed answer, or undefined when there is none. */
function postJson(url: string, body: unknown): Promise<unknown> {
  return new Promise<unknown>((resolve) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } })
    req.on('error', () => resolve(undefined))
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.on('end', () => {
        try {
          resolve(JSON.parse(text))
        } catch {
          resolve(undefined)
        }
      })
      res.on('error', () => resolve(undefined))
    })
    req.end(JSON.stringify(body))
  })
}
