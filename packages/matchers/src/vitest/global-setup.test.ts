import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { COORDINATOR_URL_ENV } from '../internal/run-coordinator.js'

// The built file is what the plugin adds to `globalSetup`.
const { default: setup } = (await import(
  '@judgetree/matchers/vitest/global-setup'
)) as typeof import('./global-setup.js')

/** A TestProject as the global setup uses it: the options the plugin provided, and what it provides. */
function fakeProject(options: object = { annotatePassing: false }) {
  const provided: Record<string, unknown> = {}
  return {
    provided,
    provide(key: string, value: unknown) {
      provided[key] = value
    },
    getProvidedContext: () => ({ judgetree: options }),
  }
}

async function statusOf(url: string): Promise<{ concurrency: number; requestsPerMinute?: number }> {
  return (await fetch(`${url}/status`)).json() as Promise<{ concurrency: number; requestsPerMinute?: number }>
}

describe('the Vitest global setup', () => {
  let saved: string | undefined
  beforeEach(() => {
    saved = process.env[COORDINATOR_URL_ENV]
    delete process.env[COORDINATOR_URL_ENV]
  })
  afterEach(() => {
    if (saved === undefined) delete process.env[COORDINATOR_URL_ENV]
    else process.env[COORDINATOR_URL_ENV] = saved
  })

  test('the first project starts a coordinator with the plugin’s limits; the others share it', async () => {
    const first = fakeProject({ annotatePassing: false, concurrency: 3, requestsPerMinute: 120 })
    const second = fakeProject()
    const teardownFirst = await setup(first)
    const url = process.env[COORDINATOR_URL_ENV] as string
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const teardownSecond = await setup(second)
    expect(first.provided).toEqual({ judgetreeCoordinatorUrl: url })
    expect(second.provided).toEqual({ judgetreeCoordinatorUrl: url })
    expect(await statusOf(url)).toMatchObject({ concurrency: 3, requestsPerMinute: 120 })

    await teardownSecond()
    expect(await statusOf(url)).toMatchObject({ concurrency: 3 })
    await teardownFirst()
    expect(process.env[COORDINATOR_URL_ENV]).toBeUndefined()
    await expect(fetch(`${url}/status`)).rejects.toThrow()
  })

  test('a coordinator already named by JUDGETREE_COORDINATOR_URL is used and left alone', async () => {
    process.env[COORDINATOR_URL_ENV] = 'http://127.0.0.1:9'
    const project = fakeProject({ annotatePassing: false, concurrency: 3 })
    const teardown = await setup(project)
    expect(project.provided).toEqual({ judgetreeCoordinatorUrl: 'http://127.0.0.1:9' })
    await teardown()
    expect(process.env[COORDINATOR_URL_ENV]).toBe('http://127.0.0.1:9')
  })
})
