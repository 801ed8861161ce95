import { describe, expect, test } from 'vitest'
import { scrubTokens, scrubValue } from '../../src/internal/scrub.js'
import { scrubSecrets } from '../../src/runtime.js'

// A property test with a seeded generator (mulberry32), so any failure names the seed and case that reproduce it.
function generator(seed: number) {
  let state = seed
  const next = () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (below: number) => Math.floor(next() * below)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T
  return { next, int, pick }
}

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  '-_.~+/=',
  ' "\\\'<>&%{}[]:,',
  '\r\n\t\0\u2028\u0085',
  'éßñ€😀中',
]

type Random = ReturnType<typeof generator>

function randomKey(random: Random): string {
  const prefix = random.pick(['', 'sk-', 'sk-proj-', 'key_'])
  const length = 8 + random.int(40)
  let key = prefix
  while (key.length < length) {
    // Mostly ordinary characters, sometimes the awkward ones: every family appears over the run.
    const alphabet = random.next() < 0.7 ? (ALPHABETS[0] as string) : random.pick(ALPHABETS)
    key += Array.from(alphabet)[random.int(Array.from(alphabet).length)]
  }
  return key
}

/** One character as a server or serialiser may write it. */
function encodeChar(char: string, random: Random): string {
  const units = Array.from({ length: char.length }, (_, at) => char.charCodeAt(at))
  const unicode = (upper: boolean) =>
    units
      .map((unit) => {
        const hex = unit.toString(16).padStart(4, '0')
        return `\\u${upper ? hex.toUpperCase() : hex}`
      })
      .join('')
  const url = encodeURIComponent(char)
  const forms = [
    char,
    JSON.stringify(char).slice(1, -1),
    unicode(false),
    unicode(true),
    url,
    url.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
  ]
  return random.pick(forms)
}

const ENCODINGS: Record<string, (key: string, random: Random) => string> = {
  raw: (key) => key,
  'JSON-escaped': (key) => JSON.stringify(key).slice(1, -1),
  'JSON-escaped twice': (key) => JSON.stringify(JSON.stringify(key)).slice(1, -1),
  'u-escaped': (key) =>
    Array.from({ length: key.length }, (_, at) => `\\u${key.charCodeAt(at).toString(16).padStart(4, '0')}`).join(''),
  'URL-encoded': (key) => encodeURIComponent(key),
  'mixed, character by character': (key, random) => Array.from(key, (char) => encodeChar(char, random)).join(''),
}

describe('scrubSecrets, for generated keys in every encoding', () => {
  test('1,500 keys × 6 encodings: no encoding of the key survives, and the text around it does', () => {
    const random = generator(20261123)
    for (let run = 0; run < 1500; run++) {
      const key = randomKey(random)
      for (const [name, encode] of Object.entries(ENCODINGS)) {
        const encoded = encode(key, random)
        const text = `before ${encoded} after`
        const scrubbed = scrubSecrets(text, key)
        const label = `run ${run}, ${name}, key ${JSON.stringify(key)}, text ${JSON.stringify(text)}`
        // "JSON-escaped twice" leaves doubled backslashes, which decode to the single-escaped form: check both.
        for (const form of [key, encoded, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)]) {
          expect(scrubbed.includes(form), label).toBe(false)
        }
        if (name !== 'JSON-escaped twice') {
          expect(scrubbed, label).toBe('before sk-*** after')
          // What a reader would decode the text to carries no key either.
          expect(decodeAll(scrubbed).includes(key), label).toBe(false)
        }
      }
    }
  })

  test('a key split across logprob tokens at any point is taken out of every token', () => {
    const random = generator(7)
    for (let run = 0; run < 500; run++) {
      const key = randomKey(random)
      const content = JSON.stringify({ reason: `echo ${key} done`, verdict: true })
      const tokens: { token: string; logprob: number; topLogprobs: { token: string; logprob: number }[] }[] = []
      for (let at = 0; at < content.length; ) {
        const size = 1 + random.int(6)
        tokens.push({ token: content.slice(at, at + size), logprob: -0.1, topLogprobs: [{ token: key, logprob: -3 }] })
        at += size
      }
      const scrubbed = scrubTokens(tokens, key)
      const joined = scrubbed.map((entry) => entry.token).join('')
      const label = `run ${run}, key ${JSON.stringify(key)}`
      expect(joined.includes(key), label).toBe(false)
      expect(joined, label).toBe(JSON.stringify({ reason: 'echo sk-*** done', verdict: true }))
      expect(
        scrubbed.every((entry) => entry.topLogprobs.every((top) => top.token === 'sk-***')),
        label,
      ).toBe(true)
      expect(scrubbed.map((entry) => entry.logprob)).toEqual(tokens.map((entry) => entry.logprob))
    }
  })

  test('a parsed answer has every string (and key) scrubbed, at any depth', () => {
    const key = 'my-key-0123456789'
    const value = { reason: `x ${key}`, [key]: [{ deep: key }], n: 1, ok: true, none: null }
    expect(scrubValue(value, key)).toEqual({
      reason: 'x sk-***',
      'sk-***': [{ deep: 'sk-***' }],
      n: 1,
      ok: true,
      none: null,
    })
    let deep: unknown = key
    for (let level = 0; level < 100_000; level++) deep = [deep]
    expect(() => scrubValue(deep, key)).not.toThrow()
  })

  test('a key escaped deeper than the bound is still taken out, leaving only its extra backslashes', () => {
    const key = 'sk-proj-abcdefgh12345678'
    const deep = `${'\\'.repeat(40)}u0073k-proj-abcdefgh12345678`
    expect(scrubSecrets(`x ${deep} y`, key)).toBe(`x ${'\\'.repeat(24)}sk-*** y`)
  })

  test('scrubbing is linear in the text: long backslash runs cost no more per character than short ones', () => {
    // The same 200,000 characters as 10 runs of 20,000 backslashes or 1,000 runs of 200: a scrubber that scans the
    // rest of a run from each of its positions (quadratic) takes about 100 times longer on the long runs.
    const key = 'sk-proj-abcdefgh12345678'
    const runs = (length: number, count: number) => `${'\\'.repeat(length)}x`.repeat(count)
    const fastest = (text: string) => {
      let best = Number.POSITIVE_INFINITY
      for (let round = 0; round < 3; round++) {
        const start = performance.now()
        scrubSecrets(text, key)
        scrubTokens([{ token: text, topLogprobs: [] }], key)
        best = Math.min(best, performance.now() - start)
      }
      return best
    }
    const short = runs(200, 1_000)
    const long = runs(20_000, 10)
    fastest(short)
    const ratio = fastest(long) / fastest(short)
    expect(ratio, `long runs took ${ratio.toFixed(1)} times as long as short runs of the same total size`).toBeLessThan(
      5,
    )
    expect(scrubSecrets(`${'\\'.repeat(20_000)}u0073k-proj-abcdefgh12345678`, key)).toMatch(/^\\+sk-\*\*\*$/)
  })

  test('logprob tokens are scrubbed in time linear in their text, however many keys they hold', () => {
    const key = 'local-token-0123456789'
    // Few tokens, so that the work is finding and cutting out the keys, not allocating token objects.
    const tokensOf = (copies: number) => {
      const text = `${key} `.repeat(copies)
      const half = Math.floor(text.length / 2) + 3
      return [text.slice(0, half), text.slice(half)].map((token) => ({ token, topLogprobs: [] }))
    }
    const fastest = (copies: number, repeat: number) => {
      const tokens = tokensOf(copies)
      let best = Number.POSITIVE_INFINITY
      for (let round = 0; round < 5; round++) {
        const start = performance.now()
        for (let time = 0; time < repeat; time++) scrubTokens(tokens, key)
        best = Math.min(best, performance.now() - start)
      }
      return best
    }
    fastest(500, 10)
    // Ten times the keys once against a tenth of them ten times: the same work for a linear scrubber, ten times as
    // much for one that looks the keys up again at every character.
    const ratio = fastest(5_000, 1) / fastest(500, 10)
    expect(ratio, `5,000 keys took ${ratio.toFixed(1)} times as long as 500 keys ten times`).toBeLessThan(4)
    expect(
      tokensOf(3)
        .map((entry) => entry.token)
        .join(''),
    ).toBe(`${key} ${key} ${key} `)
    expect(
      scrubTokens(tokensOf(3), key)
        .map((entry) => entry.token)
        .join(''),
    ).toBe('sk-*** sk-*** sk-*** ')
  })

  test('several secrets are all taken out, in text, parsed answers and tokens', () => {
    const secrets = ['azure0123456789abcdef0123456789ab', 'gsk_groq0123456789', 'groq0123']
    const text = `a ${secrets[0]} b ${encodeURIComponent(secrets[1] as string)} c ${unicodeOf(secrets[2] as string)}`
    expect(scrubSecrets(text, secrets)).toBe('a sk-*** b sk-*** c sk-***')
    expect(scrubValue({ [secrets[1] as string]: [text] }, secrets)).toEqual({
      'sk-***': ['a sk-*** b sk-*** c sk-***'],
    })
    const tokens = Array.from(text, (token) => ({ token, topLogprobs: [{ token: secrets[0] as string, logprob: -1 }] }))
    const scrubbed = scrubTokens(tokens, secrets)
    expect(scrubbed.map((entry) => entry.token).join('')).toBe('a sk-*** b sk-*** c sk-***')
    expect(scrubbed.every((entry) => entry.topLogprobs[0]?.token === 'sk-***')).toBe(true)
  })

  test('short placeholder keys are left alone, so ordinary words survive', () => {
    expect(scrubSecrets('not needed here', 'not')).toBe('not needed here')
  })
})

function unicodeOf(text: string): string {
  return Array.from(text, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
}

/** Undoes URL encoding and JSON string escapes, as a reader of the text might. */
function decodeAll(text: string): string {
  let decoded = text
  try {
    decoded = decodeURIComponent(decoded)
  } catch {
    // Not URL-encoded text.
  }
  try {
    decoded = JSON.parse(`"${decoded.replace(/"/g, '\\"')}"`) as string
  } catch {
    // Not a JSON string body.
  }
  return decoded
}
