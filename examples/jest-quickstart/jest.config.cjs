const { withJudgetree } = require('@judgetree/matchers/jest')

// withJudgetree adds the setup file that registers toPassMetric, a 60 s test timeout (a real judge takes seconds
// per call) and the judgetree reporter: failed evaluations' trace trees and a summary line at the end of the run.
module.exports = withJudgetree({
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  // The sources import './judge.js' (as Node.js ESM wants); Jest resolves that to judge.ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // Says once per run which judge the example uses.
  globalSetup: '<rootDir>/src/banner.ts',
})
