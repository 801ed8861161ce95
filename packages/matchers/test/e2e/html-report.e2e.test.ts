// Opens Vitest's HTML report in a real headless Chromium and checks what a person sees there for judgetree
// evaluations: every test's score line, the trace tree with its line breaks, and the picture of the walked DAG:
// readable at a 1440-px-wide window, red on a failure, green on a pass, and opened full size from its link.
// Needs Debian's `chromium` (CI installs it); skipped with a message when there is none.
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { evaluate } from '@judgetree/core'
import { type OpenAIServer, startOpenAIServer } from '@judgetree/test-support'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { flatConversation, playfulChatbot, playfulConversation } from '../fixtures/shared/metrics.js'
import { playfulJudge } from './support/playful-judge.js'
import { fixture, type RunResult, runVitest, scratchDir } from './support/runner.js'
import { serveDirectory } from './support/static-server.js'

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => path !== undefined && existsSync(path),
)
const ARTIFACTS = resolve(fixture('vitest-html'), '../../../../../.ci/out')

if (CHROMIUM === undefined) {
  console.warn('html-report.e2e: no chromium binary (apt-get install -y chromium, or set CHROMIUM_PATH): skipped')
}

describe.skipIf(CHROMIUM === undefined)('the HTML report in a browser', () => {
  const scratch = scratchDir()
  let server: OpenAIServer
  let run: RunResult

  beforeAll(async () => {
    server = await startOpenAIServer(playfulJudge('It jokes about the clouds.'))
    run = await runVitest(
      'vitest-html',
      [
        'run',
        '--reporter=html',
        `--outputFile.html=${join(scratch, 'html', 'index.html')}`,
        // Where Vitest copies attached files (the pictures) before the report takes them: not the fixture's folder.
        `--attachmentsDir=${join(scratch, 'attachments')}`,
      ],
      {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test-html-0123456789',
      },
    )
  }, 120_000)

  afterAll(async () => {
    await server?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  test('the run fails on the flat conversation only, and writes the report', () => {
    expect(run.code, run.output).toBe(1)
    expect(existsSync(join(scratch, 'html', 'index.html'))).toBe(true)
  })

  test('each test shows its score line, its tree with line breaks and the DAG picture, loaded', async () => {
    const { chromium } = await import('playwright-core')
    const site = await serveDirectory(join(scratch, 'html'))
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 1100 } })
      await page.goto(site.url)
      mkdirSync(ARTIFACTS, { recursive: true })
      for (const { name, score, verdict, decisive, colour, screenshot } of [
        {
          name: 'passes a playful conversation',
          score: 'PASS Playful Chatbot: score 0.9 (threshold 0.7)',
          verdict: '├─ ● true → 9  ◀ score 0.9',
          decisive: 'true → 9',
          colour: { fill: '#dcfce7', stroke: '#15803d' },
          screenshot: 'html-report-passing.png',
        },
        {
          name: 'fails a flat conversation',
          score: 'FAIL Playful Chatbot: score 0.3 (threshold 0.7)',
          verdict: '└─ ● false → 3  ◀ score 0.3',
          decisive: 'false → 3',
          colour: { fill: '#fee2e2', stroke: '#b91c1c' },
          screenshot: 'html-report-failing.png',
        },
      ]) {
        await page.getByText(name, { exact: true }).click()
        const report = page.getByTestId('report')
        // The annotation: the one-line score, and the picture of the walked DAG above the tree.
        const note = report.getByRole('note').filter({ hasText: score })
        await expect.poll(() => note.count()).toBe(1)
        const image = note.locator('img')
        await image.waitFor()
        await expect
          .poll(() =>
            image.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth),
          )
          .toBeGreaterThan(200)
        // The picture is the DAG alone, drawn at a size a person reads, and its decisive verdict has the outcome's
        // colour: measured on the picture's own SVG laid over the image at the image's rendered size.
        const drawn = await pictureAsShown(image, decisive)
        expect(drawn.treeText, 'the text tree is not drawn in the picture').toBe(false)
        expect(drawn.smallestTextPx).toBeGreaterThanOrEqual(10)
        expect(drawn.decisive).toEqual(colour)
        // The picture's link opens it full size in a tab of its own: a file beside the report, not a `data:` URL,
        // which a browser refuses to open from a link.
        const link = note.locator('a').filter({ has: page.locator('img') })
        expect(await link.getAttribute('href')).toMatch(/^\.\/data\/[^/]+\.svg$/)
        const [full] = await Promise.all([page.waitForEvent('popup'), link.click()])
        await full.waitForLoadState()
        expect(await full.evaluate(() => (globalThis as unknown as Page).document.documentElement.tagName)).toBe('svg')
        expect(
          await full.evaluate(() => (globalThis as unknown as Page).document.documentElement.textContent),
        ).toContain(decisive)
        await full.setViewportSize({ width: 1440, height: 1100 })
        await full.screenshot({ path: join(ARTIFACTS, screenshot.replace('.png', '-full-size.png')) })
        await full.close()
        // The tree as text, as a person reads it: one node per line, indentation kept (the test meta; a failed
        // test's error shows it too).
        const tree = report.locator('pre').filter({ hasText: new RegExp(`^${score.replace(/[().]/g, '\\$&')}`) })
        // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point: what a person sees.
        const text = await tree.innerText()
        expect(text.split('\n')[0]).toContain(score)
        expect(text).toContain(`\n   ${verdict}`)
        expect(text).toMatch(/\n│ {4}Tone: The assistant/)
        await page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true })
      }
    } finally {
      await browser.close()
      await site.close()
    }
  }, 60_000)

  test('evaluate()’s HTML summary opens offline and shows the failure’s tree and DAG picture', async () => {
    const outputFile = join(scratch, 'evaluation', 'report.json')
    await evaluate([playfulConversation, flatConversation], [playfulChatbot()], { outputFile, summary: false })
    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
      const fetched: string[] = []
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) fetched.push(request.url())
      })
      await page.goto(`file://${join(scratch, 'evaluation', 'report.html')}`)
      await expect.poll(() => page.getByText('pass rate').count()).toBe(1)
      expect(await page.locator('.totals').textContent()).toContain('50%pass rate')
      const picture = page.locator('figure svg')
      expect(await picture.count()).toBe(1)
      const box = await picture.boundingBox()
      expect(box?.width).toBeGreaterThan(100)
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point: what a person sees.
      const tree = await page.locator('section pre').innerText()
      expect(tree).toContain('\n   └─ ● false → 3  ◀ score 0.3')
      expect(fetched).toEqual([])
      await page.screenshot({ path: join(ARTIFACTS, 'evaluate-summary.png'), fullPage: true })
    } finally {
      await browser.close()
    }
  }, 60_000)
})

/** The few DOM shapes the measurement reads (the project's types have no DOM library). */
interface Tagged {
  readonly tagName: string
}
interface Box {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}
interface Element {
  readonly textContent: string | null
  getBoundingClientRect(): Box
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  querySelector(selector: string): Element | null
  querySelectorAll(selector: string): Iterable<Element>
  remove(): void
}
interface Page {
  readonly document: { readonly body: { append(node: Element): void }; readonly documentElement: Element & Tagged }
  readonly DOMParser: new () => { parseFromString(text: string, type: string): { documentElement: Element } }
}

/**
 * What the annotation's picture looks like as the report shows it: its SVG (fetched from the image's source) is put
 * inline at the image's rendered size and place, then measured: the height of its smallest drawn text in CSS
 * pixels, the fill and stroke of the node whose text is `decisive`, and whether the text tree (`◀ score`) is drawn.
 */
async function pictureAsShown(
  image: import('playwright-core').Locator,
  decisive: string,
): Promise<{
  smallestTextPx: number
  decisive: { fill?: string | undefined; stroke?: string | undefined }
  treeText: boolean
}> {
  return image.evaluate(async (element, wanted) => {
    const img = element as unknown as { src: string; getBoundingClientRect(): Box }
    const source = await (await fetch(img.src)).text()
    const page = globalThis as unknown as Page
    const svg = new page.DOMParser().parseFromString(source, 'image/svg+xml').documentElement
    const box = img.getBoundingClientRect()
    svg.setAttribute('width', String(box.width))
    svg.setAttribute('height', String(box.height))
    svg.setAttribute('style', `position:fixed;left:${box.left}px;top:${box.top}px;opacity:0;pointer-events:none`)
    page.document.body.append(svg)
    try {
      const texts = [...svg.querySelectorAll('text')]
      const heights = texts.map((text) => text.getBoundingClientRect().height).filter((height) => height > 0)
      const node = [...svg.querySelectorAll('g.node')].find((group) =>
        [...group.querySelectorAll('text')].some((text) => text.textContent?.includes(wanted)),
      )
      const shape = node?.querySelector('polygon, path, ellipse')
      return {
        smallestTextPx: Math.min(...heights),
        decisive: {
          fill: shape?.getAttribute('fill') ?? undefined,
          stroke: shape?.getAttribute('stroke') ?? undefined,
        },
        treeText: texts.some((text) => text.textContent?.includes('◀ score')),
      }
    } finally {
      svg.remove()
    }
  }, decisive)
}
