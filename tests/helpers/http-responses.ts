/** One HTTP/1.1 response read off a socket: status, headers (names lower-cased) and body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The complete responses at the start of `raw` (bytes as latin1 text), in order, framed as
 * HTTP/1.1 frames them: by Content-Length, none for 204 and 304 and for the answers to HEAD
 * (`headRequests`: which of the responses, by position, answer a HEAD).
 */
export function splitResponses(raw: string, headRequests: ReadonlySet<number> = new Set()): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd === -1) break;
    const [statusLine = '', ...headerLines] = rest.slice(0, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodiless = status === 204 || status === 304 || headRequests.has(responses.length);
    const length = bodiless ? 0 : Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (rest.length < bodyStart + length) break;
    responses.push({ status, headers, body: Buffer.from(rest.slice(bodyStart, bodyStart + length), 'latin1').toString('utf8') });
    rest = rest.slice(bodyStart + length);
  }
  return responses;
}
