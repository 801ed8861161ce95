import { afterAll, beforeAll, beforeEach } from 'vitest'
import { type OpenAIServer, type OpenAIServerOptions, type Responder, startOpenAIServer } from './openai-server.js'

/**
 * One local server for a test file: started before its tests, closed after them, and before each test emptied of
 * recorded requests and given `responder` (and `options.decisions`) again (a test may still call `respondWith` for itself). Use it at the
 * top level of a test file; the server's fields are there once the file's tests run.
 */
export function useOpenAIServer(responder?: Responder, options?: OpenAIServerOptions): OpenAIServer {
  let server: OpenAIServer | undefined
  const started = (): OpenAIServer => {
    if (server === undefined) throw new Error('useOpenAIServer(): the server starts in beforeAll; read it in a test.')
    return server
  }
  beforeAll(async () => {
    server = await startOpenAIServer(responder, options)
  })
  afterAll(() => server?.close())
  beforeEach(() => {
    started().requests.length = 0
    started().decisionRequests.length = 0
    started().modelLookups.length = 0
    if (responder !== undefined) started().respondWith(responder)
    if (options?.decisions !== undefined) started().decideWith(options.decisions)
  })
  return {
    get baseURL() {
      return started().baseURL
    },
    get requests() {
      return started().requests
    },
    get decisionRequests() {
      return started().decisionRequests
    },
    get modelLookups() {
      return started().modelLookups
    },
    respondWith: (next) => started().respondWith(next),
    decideWith: (next) => started().decideWith(next),
    listModels: (models) => started().listModels(models),
    close: () => started().close(),
  }
}
