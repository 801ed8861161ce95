import { setTimeout as sleep } from 'node:timers/promises'
import { jsonReply, useOpenAIServer } from '@judgetree/test-support'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleScript, runScript } from '../../test/support/fork-script.js'

// Issue 17, defect 3: a wait judgetree owns (a queue turn, a pause after a 429) must end with the calls waiting on
// it, so a script or worker exits as soon as its measurements have ended.
const server = useOpenAIServer(() => ({
  status: 429,
  error: { message: 'Rate limit reached' },
  headers: { 'retry-after': '30' },
}))
let script: string
beforeAll(async () => {
  script = await bundleScript('exit-worker.ts')
})

async function exitDelay(scenario: string): Promise<{ delayMs: number; outcomes: string[] }> {
  const run = runScript(script, [scenario, server.baseURL])
  const settled = await run.waitFor('settled')
  // A child still alive 3 s after its calls ended is stuck on a timer: stop it, and report it as never exiting.
  const exited = await Promise.race([run.done.then(() => true), sleep(3_000).then(() => false)])
  if (!exited) run.child.kill()
  return {
    delayMs: exited ? Date.now() - (settled.at as number) : Number.POSITIVE_INFINITY,
    outcomes: settled.outcomes as string[],
  }
}

describe('a process exits promptly once its judge calls have ended', () => {
  it('after aborting calls queued under requestsPerMinute', async () => {
    server.respondWith(() => jsonReply({ ok: true }))
    const { delayMs, outcomes } = await exitDelay('rpm-abort')
    expect(outcomes.filter((outcome) => outcome === 'MEASUREMENT_ABORTED')).toHaveLength(19)
    expect(delayMs).toBeLessThan(2_000)
  })

  it('after a 429 with Retry-After: 30 that ended the call', async () => {
    const { delayMs, outcomes } = await exitDelay('retry-after-given-up')
    expect(outcomes).toEqual(['JUDGE_CALL_FAILED'])
    expect(delayMs).toBeLessThan(2_000)
  })

  it('after aborting calls that wait out a Retry-After: 30 before their retry', async () => {
    const { delayMs, outcomes } = await exitDelay('retry-after-abort')
    expect(outcomes).toEqual(['MEASUREMENT_ABORTED', 'MEASUREMENT_ABORTED', 'MEASUREMENT_ABORTED'])
    expect(delayMs).toBeLessThan(2_000)
    expect(server.requests.length).toBeLessThanOrEqual(2)
  }, 10_000)
})
