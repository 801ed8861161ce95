// toPassMetric's minPassProbability through the real Vitest CLI (the suite is shared with Jest), and what only
// Vitest has: the JUnit property a failed evaluation's annotation becomes.
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { gateSuite } from './support/gate-suite.js'
import { junitCase, readJUnit } from './support/reports.js'
import { runVitest } from './support/runner.js'

gateSuite(
  'vitest',
  (env, scratch, name) =>
    runVitest(
      'vitest-gate',
      ['run', '--reporter=default', '--reporter=junit', `--outputFile.junit=${join(scratch, `${name}.xml`)}`],
      env,
    ),
  (_recorded, scratch) => {
    test("JUnit keeps P(pass) and the gate in the failed test's judgetree property", () => {
      const failed = junitCase(readJUnit(join(scratch, 'recorded.xml')), 'an unsure pass fails the gate')
      const property = failed.properties.find((entry) => entry.name === 'judgetree')
      expect(property?.value).toBe(
        'FAIL Resolved: score 1 (threshold 0.5, minPassProbability 0.9) · P(pass) 0.72 · judge gpt-4.1 · decisions gpt-6-luna\n' +
          'gate: P(pass) 0.72 is below minPassProbability 0.9',
      )
      // Without a P(pass), the gate's line says which decision came as a point, and why.
      const point = junitCase(readJUnit(join(scratch, 'recorded.xml')), 'a point answer has no probability to gate on')
      expect(point.properties.find((entry) => entry.name === 'judgetree')?.value).toContain(
        'gate: minPassProbability 0.9 needs a pass probability, and this measurement has none: [n1] “Was the reply ' +
          'complete?” was answered without probabilities (logprobs were not requested).',
      )
    })
  },
)
