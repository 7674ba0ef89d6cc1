/** The order `Allow` and CORS list methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function inMethodOrder(methods: Iterable<string>): string[] {
  const rank = (method: string) => {
    const index = METHOD_ORDER.indexOf(method);
    return index === -1 ? METHOD_ORDER.length : index;
  };
  return [...new Set(methods)].sort((a, b) => rank(a) - rank(b));
}
