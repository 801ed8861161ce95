// Checks of what judgetree prints and writes, for the tests that feed it hostile text.

/**
 * Text that would act in a terminal or a CI log if a judge or a dataset could write it: every GitHub workflow
 * command form (`::…` at a line's start, after spaces), the legacy `##[…]` anywhere, and escapes (CSI, OSC 8/52/0,
 * BEL, NUL, a bare CR, Unicode line breaks). Each line is one test payload.
 */
export const HOSTILE_TEXT = [
  'x',
  '::error file=src/forged.ts,line=1::FORGED ERROR',
  '::warning::FORGED WARNING',
  '::stop-commands::tok123',
  '::add-mask::mask-me',
  '::set-output name=forged::value',
  '  ::group::FORGED GROUP',
  'mid ##[error]FORGED LEGACY',
  'carriage\r::error::FORGED AFTER CR',
  'crlf\r\n::error::FORGED AFTER CRLF',
  'line separator\u2028::error::FORGED AFTER LS',
  'next line\u0085::error::FORGED AFTER NEL',
  '\u001b[2K\r\u001b[1A\u001b[32m✓ all evaluations passed\u001b[0m',
  '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
  '\u001b]52;c;Zm9yZ2Vk\u0007',
  '\u001b]0;forged title\u0007',
  'bell\u0007 nul\u0000 end',
].join('\n')

/**
 * Every line of `text` that would act in a CI log or a terminal: a line starting with `::` after whitespace, a line
 * holding `##[`, or any control character but `\n` and `\t` (ESC, CR, BEL, NUL, C1, U+2028/2029). Empty when safe.
 */
export function ciLogProblems(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^\s*::/.test(line) || line.includes('##[') || /[^\P{Cc}\n\t]|[\u2028\u2029]/u.test(line))
    .map((line) => JSON.stringify(line))
}

/**
 * The reasons `text` is not a well-formed XML 1.0 document, or is not held to XML's character set; empty when it is.
 * Strict where browsers forgive: characters XML forbids, unknown or malformed entity references, unbalanced or
 * crossed tags, unquoted or repeated attributes, `<` in attribute values and text.
 */
export function xmlProblems(text: string): string[] {
  const problems: string[] = []
  const forbidden =
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding the characters XML forbids is the point
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(
      text,
    )
  if (forbidden) problems.push(`character U+${forbidden[0].charCodeAt(0).toString(16)} at ${forbidden.index}`)
  const body = text.replace(/^<\?xml[^?]*\?>/, '').replace(/<!DOCTYPE[^>[]*(\[[^\]]*\])?>/, '')
  const open: string[] = []
  const markup =
    /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g
  let at = 0
  for (let match = markup.exec(body); match !== null; match = markup.exec(body)) {
    problems.push(...textProblems(body.slice(at, match.index), at))
    at = match.index + match[0].length
    const [whole, closing, name, attributes = '', selfClosing] = match
    if (whole.startsWith('<!')) continue
    problems.push(...attributeProblems(attributes, name ?? ''))
    if (closing) {
      const expected = open.pop()
      if (expected !== name) problems.push(`</${name}> closes <${expected ?? 'nothing'}>`)
    } else if (!selfClosing) open.push(name ?? '')
  }
  problems.push(...textProblems(body.slice(at), at))
  if (open.length > 0) problems.push(`unclosed: ${open.join(', ')}`)
  return problems
}

function textProblems(text: string, offset: number): string[] {
  const problems: string[] = []
  if (text.includes('<')) problems.push(`markup that is no tag near ${offset}: ${JSON.stringify(text.slice(0, 80))}`)
  for (const entity of text.matchAll(/&[^;\s]*;?/g)) {
    if (!/^&(?:amp|lt|gt|quot|apos|#\d+|#x[\da-fA-F]+);$/.test(entity[0])) {
      problems.push(`entity ${JSON.stringify(entity[0])} near ${offset}`)
    }
  }
  return problems
}

function attributeProblems(attributes: string, element: string): string[] {
  const problems: string[] = []
  const names = new Set<string>()
  for (const [, name = '', double, single] of attributes.matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const value = double ?? single ?? ''
    if (names.has(name)) problems.push(`<${element}> repeats ${name}`)
    names.add(name)
    problems.push(...textProblems(value, 0).map((problem) => `<${element} ${name}>: ${problem}`))
  }
  return problems
}
