// @judgetree/matchers/vitest/setup: registers toPassMetric and the forgotten-await check, which also cancels
// what a test left running. The plugin adds it to `setupFiles`; without the plugin, add
// '@judgetree/matchers/vitest/setup' there yourself.
import { resultPicture } from '@judgetree/core/runtime'
import * as vitest from 'vitest'
import { afterEach, expect, inject } from 'vitest'
import { checkAgreement } from '../internal/agreement.js'
import { evaluateToPassMetric, type MatcherColours } from '../internal/evaluate.js'
import { CANCEL_GRACE_MS, callSiteOf, PendingAssertions } from '../internal/pending.js'
import { unsettledRecord, withSource } from '../internal/record.js'
import { COORDINATOR_URL_ENV, coordinatorUrlFromEnv } from '../internal/run-coordinator.js'
import { COORDINATOR_URL_KEY, PROVIDED_OPTIONS_KEY, type ProvidedOptions } from '../internal/vitest-options.js'
import { attachRecord, storeRecord, type TestTask } from '../internal/vitest-task.js'

/** What Vitest's matcher `this` offers that the matcher uses; `task` exists since Vitest 4.1. */
interface MatcherThis {
  readonly isNot?: boolean | undefined
  readonly utils: MatcherColours
  readonly task?: unknown
}

const currentTest = await currentTestLookup()
const pendingByTest = new WeakMap<TestTask, PendingAssertions>()
/** `toPassMetric` calls made so far by each test, so reports can list its evaluations in call order. */
const callsByTest = new WeakMap<TestTask, number>()
const options = providedOptions()
useRunCoordinator()

// Stays an `async function`: Vitest places the annotation at the `expect` line from its async stack.
async function toPassMetric(this: MatcherThis, received: unknown, metric: unknown, matcherOptions?: unknown) {
  const test = testOf(this)
  const assertion = test === undefined ? 1 : countCall(test)
  // Vitest 3.2+: aborts when the test times out, on --bail and on Ctrl+C.
  const testSignal = test?.context?.signal
  // Under `test.concurrent` a global `expect` can be bound to a sibling test, which would then be blamed.
  const callSite = callSiteOf(toPassMetric)
  const negated = this.isNot === true
  // Stores a record if the guard gives up on this assertion, before the test is reported: see PendingAssertions.
  // That record is final: the test failed for it, and whether a late result would still reach the report depends
  // on whether Vitest sends the file again after it arrives, so a late result never replaces it.
  let gaveUp = false
  const abandoned = (owner: TestTask) => () => {
    gaveUp = true
    const record = unsettledRecord(metric, matcherOptions, assertion, negated, CANCEL_GRACE_MS)
    storeRecord(owner, withSource(record, callSite, process.cwd()))
  }
  const running =
    test === undefined || test.concurrent
      ? { signal: testSignal, cancelled: undefined, settle: undefined }
      : pendingOf(test).start(callSite, [testSignal], abandoned(test))
  try {
    const outcome = await evaluateToPassMetric(received, metric, matcherOptions, {
      isNot: negated,
      utils: this.utils,
      signal: running.signal,
      assertion,
      adviceAfterRun: options.reporter === true,
    })
    const record = outcome.record === undefined ? undefined : withSource(outcome.record, callSite, process.cwd())
    if (test !== undefined && record !== undefined && !gaveUp) {
      await attachRecord(test, record, options, () => resultPicture(metric, record))
    }
    // Cancelled after its test ended: the test fails with the guard's error; a rejection here would be unhandled.
    if (running.cancelled?.()) return { pass: this.isNot !== true, message: outcome.message }
    return { pass: outcome.pass, message: outcome.message }
  } finally {
    running.settle?.()
  }
}

function toAgreeWith(this: MatcherThis, received: unknown, expected: unknown) {
  return checkAgreement(received, expected, this.isNot === true)
}

expect.extend({ toPassMetric, toAgreeWith })

// Nothing keeps running after the test: assertions it did not await, or that its timeout cut short, are cancelled.
afterEach(async ({ task }) => {
  const unfinished = await pendingByTest.get(task as unknown as TestTask)?.cancelUnfinished()
  if (unfinished) throw unfinished
})

/**
 * The test this assertion belongs to. `this.task` (Vitest 4.1+) is bound to the test whose `expect` ran; the
 * global current test is only right when tests do not run concurrently, so it is not used for concurrent ones.
 */
function testOf(matcher: MatcherThis): TestTask | undefined {
  if (matcher.task !== undefined) return matcher.task as TestTask
  const current = currentTest()
  return current?.concurrent ? undefined : current
}

/** Counted synchronously when the matcher is called, before anything can finish. */
function countCall(test: TestTask): number {
  const calls = (callsByTest.get(test) ?? 0) + 1
  callsByTest.set(test, calls)
  return calls
}

function pendingOf(test: TestTask): PendingAssertions {
  let pending = pendingByTest.get(test)
  if (pending === undefined) {
    pending = new PendingAssertions()
    pendingByTest.set(test, pending)
  }
  return pending
}

/** `TestRunner.getCurrentTest` (Vitest 4.1+); `vitest/suite` before that (deprecated in 4.1, gone in 5). */
async function currentTestLookup(): Promise<() => TestTask | undefined> {
  const runner = (vitest as { TestRunner?: { getCurrentTest?: () => unknown } }).TestRunner
  if (typeof runner?.getCurrentTest === 'function') return () => runner.getCurrentTest?.() as TestTask | undefined
  const suite = (await import('vitest/suite')) as { getCurrentTest: () => unknown }
  return () => suite.getCurrentTest() as TestTask | undefined
}

/**
 * Joins the run's coordinator, which the plugin's global setup started: core's default runtime reads
 * JUDGETREE_COORDINATOR_URL at its first judge call. A URL the worker already has (set by the user) wins.
 */
function useRunCoordinator(): void {
  if (coordinatorUrlFromEnv() !== undefined) return
  const url = provided<unknown>(COORDINATOR_URL_KEY)
  if (typeof url === 'string' && url !== '') process.env[COORDINATOR_URL_ENV] = url
}

function provided<T>(key: string): T | undefined {
  try {
    return (inject as (key: string) => T | undefined)(key)
  } catch {
    return undefined
  }
}

function providedOptions(): ProvidedOptions {
  return provided<ProvidedOptions>(PROVIDED_OPTIONS_KEY) ?? { annotatePassing: false, pictures: false }
}
