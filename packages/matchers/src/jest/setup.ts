// @judgetree/matchers/jest/setup: registers toPassMetric and the forgotten-await check, which also cancels what
// a test left running. withJudgetree() adds it to `setupFilesAfterEnv`; without it, add
// '@judgetree/matchers/jest/setup' there yourself.
import { afterEach, beforeEach, expect } from '@jest/globals'
import { checkAgreement } from '../internal/agreement.js'
import { evaluateToPassMetric, type MatcherColours } from '../internal/evaluate.js'
import { JEST_PROJECT_GLOBAL } from '../internal/jest-globals.js'
import { appendSidecarLine, sidecarDirectory } from '../internal/jest-sidecar.js'
import { callSiteOf, PendingAssertions } from '../internal/pending.js'
import { withSource } from '../internal/record.js'

/** What Jest's matcher `this` offers that the matcher uses; the test name getters depend on the Jest version. */
interface MatcherThis {
  readonly isNot?: boolean | undefined
  readonly utils: MatcherColours
  readonly testPath?: string | undefined
  readonly currentTestName?: string | undefined
  /** Jest 29.3+: follows the async context; in Jest 29 it is set only inside concurrent tests. */
  readonly currentConcurrentTestName?: (() => string | undefined) | undefined
  /** Jest 30: the running test itself. */
  readonly currentTestIdentity?: (() => { readonly concurrent?: boolean } | undefined) | undefined
}

// A setup file runs once per test file, so this holds the assertions of the one test running now.
const pending = new PendingAssertions()
// withJudgetree puts the project's displayName in its `globals`, which Jest installs on the test file's global.
const projectGlobal: unknown = (globalThis as Record<string, unknown>)[JEST_PROJECT_GLOBAL]
const project = typeof projectGlobal === 'string' ? projectGlobal : ''
/** `toPassMetric` calls made so far by each test of this file, so reports can list its evaluations in call order. */
const callsByTest = new Map<string, number>()
/** Tests of this file that have started so far, by name, so that tests sharing a name are told apart. */
const startedByName = new Map<string, number>()
/** Jest 30: which same-named test each running test is, so a retry stays the test it retries. */
const ranByIdentity = new WeakMap<object, number>()
/** Which of the same-named tests that ran the current (non-concurrent) test is, from 1. */
let currentRan = 1

async function toPassMetric(this: MatcherThis, received: unknown, metric: unknown, options?: unknown) {
  // Read before the first await: under test.concurrent, `currentTestName` soon names another test;
  // `currentConcurrentTestName` follows the async context.
  const concurrentName = this.currentConcurrentTestName?.()
  const testName = concurrentName ?? this.currentTestName ?? ''
  const testPath = this.testPath ?? ''
  const identity = this.currentTestIdentity?.()
  const concurrent = identity === undefined ? concurrentName !== undefined : identity.concurrent === true
  // Concurrent tests start before their beforeEach hooks settle: only Jest 30's identity tells their names apart.
  const ran = (identity === undefined ? undefined : ranByIdentity.get(identity)) ?? (concurrent ? 1 : currentRan)
  const callsKey = `${ran}\u0000${testName}`
  const assertion = (callsByTest.get(callsKey) ?? 0) + 1
  callsByTest.set(callsKey, assertion)
  // Concurrent tests share this file's afterEach timing, so one test's assertion would be blamed on another.
  // Jest gives tests no abort signal: the afterEach below is what cancels judge calls after a timeout.
  const callSite = callSiteOf(toPassMetric)
  const running = concurrent ? undefined : pending.start(callSite)
  try {
    const outcome = await evaluateToPassMetric(received, metric, options, {
      isNot: this.isNot === true,
      utils: this.utils,
      signal: running?.signal,
      assertion,
      // The judgetree reporter names the sidecar directory: it prints how to fix an environment problem once.
      adviceAfterRun: sidecarDirectory() !== undefined,
    })
    if (outcome.record !== undefined) {
      const record = withSource(outcome.record, callSite, process.cwd())
      appendSidecarLine({ project, testPath, testName, ran, record })
    }
    // Cancelled after its test ended: the test fails with the guard's error; a rejection here would be unhandled
    // and crash Jest after its summary.
    if (running?.cancelled()) return { pass: this.isNot !== true, message: outcome.message }
    return { pass: outcome.pass, message: outcome.message }
  } finally {
    running?.settle()
  }
}

function toAgreeWith(this: MatcherThis, received: unknown, expected: unknown) {
  return checkAgreement(received, expected, this.isNot === true)
}

expect.extend({ toPassMetric, toAgreeWith })

// Counts the tests that start, by name; the reporter counts Jest's results the same way to join them.
beforeEach(() => {
  const state = expect.getState() as { currentTestName?: string; currentTestIdentity?: () => object | undefined }
  const identity = state.currentTestIdentity?.()
  const known = identity === undefined ? undefined : ranByIdentity.get(identity)
  if (known !== undefined) {
    currentRan = known
    return
  }
  const name = state.currentTestName ?? ''
  currentRan = (startedByName.get(name) ?? 0) + 1
  startedByName.set(name, currentRan)
  if (identity !== undefined) ranByIdentity.set(identity, currentRan)
})

// Nothing keeps running after the test: assertions it did not await, or that its timeout cut short, are cancelled.
afterEach(async () => {
  const unfinished = await pending.cancelUnfinished()
  if (unfinished) throw unfinished
})
