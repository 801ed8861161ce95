// @judgetree/core/testing: judges for testing a DAG's wiring without any model.
export {
  type ScriptedJudge,
  type ScriptedJudgeOptions,
  type ScriptedMatch,
  type ScriptedRule,
  scriptedJudge,
} from './judge/scripted-judge.js'
