/**
 * trpc-to-openapi drops query parameters whose value is empty (`?limit=`, `?after`), so the input
 * schema never sees them and the request is answered as if they were absent: a default for a value
 * the client wrote. Each is handed on as a one-item list instead, which trpc-to-openapi unwraps
 * to the empty text the client sent: the schema then refuses it, naming the parameter, as it
 * refuses any other value it does not take. `query` is the query Fastify parsed, which both
 * trpc-to-openapi's handler and the fast path read.
 */
export function keepEmptyQueryValues(query: unknown): void {
  const values = query as Record<string, unknown>;
  for (const name of Object.keys(values)) if (values[name] === '') values[name] = [''];
}
