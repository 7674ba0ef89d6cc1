import { Agent, request } from 'node:http';

/** What one POST came to: a status and body, or the network error code when there was no answer. */
export type PostOutcome = { status: number; body: string } | { status: undefined; error: string };

export interface PostOptions {
  agent?: Agent;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** POSTs `body` (sent as given) to `url` over plain node:http, so every byte and header is ours. */
export function postRaw(
  url: string,
  body: string | Buffer,
  { agent, headers = {}, timeoutMs = 30_000 }: PostOptions = {},
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-length': String(Buffer.byteLength(body)), ...headers },
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (error: NodeJS.ErrnoException) => {
        resolve({ status: undefined, error: error.code ?? error.message });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ status: undefined, error: error.code ?? error.message });
    });
    req.end(body);
  });
}

/** POSTs a JSON value with a bearer token. */
export function postJson(url: string, value: unknown, token: string, options: Omit<PostOptions, 'headers'> = {}): Promise<PostOutcome> {
  return postRaw(url, JSON.stringify(value), {
    ...options,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
}
