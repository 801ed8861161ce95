// toPassMetric's minPassProbability through the real Jest CLI (the suite is shared with Vitest).
import { gateSuite } from './support/gate-suite.js'
import { runJest } from './support/runner.js'

gateSuite('jest', (env) => runJest('jest-gate', [], env))
