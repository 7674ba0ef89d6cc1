import querystring from 'fast-querystring';

/** trpc-to-openapi drops empty values (`?limit=`) and would apply a default; [''] unwraps to '', which the schema refuses by name. */
export function parseQueryKeepingEmptyValues(text: string): Record<string, unknown> {
  const values = querystring.parse(text) as Record<string, unknown>;
  for (const name of Object.keys(values)) if (values[name] === '') values[name] = [''];
  return values;
}
