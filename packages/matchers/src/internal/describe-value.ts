// One way to show a given value in a message, core's: "`1.5` (number)".
export { describeGiven as describeValue } from '@judgetree/core/runtime'
