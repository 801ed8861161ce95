import { z } from 'zod'
import { expecting, flagSchema, functionSchema } from '../internal/options.js'
import { minPassProbabilitySchema, signalSchema } from '../metric/measure-options.js'
import { concurrencySchema } from '../runtime/limits.js'

// The options evaluate() and calibrate() share, checked the same way: `undefined` is "the default", and anything
// else, `null` included, must be a value of the right kind.

function streamSchema(name: 'stdout' | 'stderr') {
  return expecting(
    z.custom<{ write: (text: string) => unknown }>(
      (value) => typeof (value as { write?: unknown } | null)?.write === 'function',
    ),
    `a stream with a write(text) method, such as process.${name}`,
  )
}

const runOptionsShape = {
  signal: signalSchema.optional(),
  concurrency: concurrencySchema.optional(),
  onProgress: functionSchema('a function called with the progress after each measurement').optional(),
  progress: flagSchema.optional(),
  summary: flagSchema.optional(),
  stdout: streamSchema('stdout').optional(),
  stderr: streamSchema('stderr').optional(),
  minPassProbability: minPassProbabilitySchema.optional(),
}

/** calibrate()'s options (CalibrateOptions). */
export const calibrateOptionsSchema = expecting(z.strictObject(runOptionsShape), 'an object (or left out)')

/** evaluate()'s options (EvaluateOptions): the shared ones and `outputFile`. */
export const evaluateOptionsSchema = expecting(
  z.strictObject({
    ...runOptionsShape,
    outputFile: expecting(z.string().min(1), "a file path such as '.judgetree/evaluation.json'").optional(),
  }),
  'an object (or left out)',
)
