// The shutdown date a server lists for a model: OpenAI's `GET /v1/models/{model}` carries `shutdown_date`.
import type OpenAI from 'openai'

/**
 * The model's `shutdown_date` (`YYYY-MM-DD`) as the server lists it, or null when it lists none. The field is not in
 * the SDK's types (v6), so it is read from the object. A failed lookup (a 404 from a server without the route, a
 * timeout) throws: the judge runtime drops it silently. No retries: the lookup is advice, asked again the next day.
 */
export async function shutdownDateOf(client: OpenAI, model: string, signal: AbortSignal): Promise<string | null> {
  const listed: unknown = await client.models.retrieve(model, { signal, maxRetries: 0 })
  const date = (listed as { shutdown_date?: unknown } | null)?.shutdown_date
  return typeof date === 'string' ? date : null
}
