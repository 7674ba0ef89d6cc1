import querystring from 'fast-querystring';

/**
 * Fastify's query parser (fast-querystring), keeping empty values. trpc-to-openapi drops query
 * parameters whose value is empty (`?limit=`, `?after`), so the input schema would never see them
 * and the request would be answered as if they were absent: a default for a value the client
 * wrote. Each is handed on as a one-item list instead, which trpc-to-openapi unwraps to the empty
 * text the client sent: the schema then refuses it, naming the parameter.
 */
export function parseQueryKeepingEmptyValues(text: string): Record<string, unknown> {
  const values = querystring.parse(text) as Record<string, unknown>;
  for (const name of Object.keys(values)) if (values[name] === '') values[name] = [''];
  return values;
}
