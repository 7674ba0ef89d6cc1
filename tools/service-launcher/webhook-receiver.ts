import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, as it came, and whether the `standardwebhooks` package accepted it. */
export interface ReceivedWebhook {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  id: string;
  body: string;
  /** The body, parsed by `Webhook.verify`; undefined when the signature did not verify. */
  verified: unknown;
  verifyError?: string;
  receivedAt: number;
  /** When the connection this request came on closed, or its answer was written: undefined while it is open. */
  settledAt?: number;
}

/** How to answer: a status (with headers, perhaps after a while), or `hang` (never answer). */
export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; afterMs?: number } | 'hang';

export interface WebhookReceiver {
  readonly port: number;
  url(path?: string): string;
  readonly received: ReceivedWebhook[];
  /** Decides each answer; `attempt` counts the requests with this webhook-id and path so far, from 1. Default: 200. */
  respond: (request: ReceivedWebhook, attempt: number) => ReceiverAnswer;
  /** Resolves once `predicate` holds for what was received; rejects after `timeoutMs`. */
  waitFor(predicate: (received: readonly ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A webhook subscriber on loopback (127.0.0.1 only) that verifies every request with the
 * `standardwebhooks` package, as a real receiver would, and records it.
 */
export async function startWebhookReceiver({ secret, port = 0 }: { secret: string; port?: number }): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const attempts = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = record(request, Buffer.concat(chunks).toString('utf8'));
      response.once('close', () => {
        received.settledAt = Date.now();
      });
      receiver.received.push(received);
      const key = `${received.path} ${received.id}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      answer(response, receiver.respond(received, attempt));
    });
  });

  const record = (request: IncomingMessage, body: string): ReceivedWebhook => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const received: ReceivedWebhook = {
      path: request.url ?? '',
      method: request.method ?? '',
      headers: request.headers,
      id: headers['webhook-id'] ?? '',
      body,
      verified: undefined,
      receivedAt: Date.now(),
    };
    try {
      received.verified = verifier.verify(body, headers);
    } catch (error) {
      received.verifyError = error instanceof Error ? error.message : String(error);
    }
    return received;
  };

  const listening = await listenOnLoopback(server, port);
  const receiver: WebhookReceiver = {
    port: listening.port,
    url: (path = '/hook') => `${listening.origin}${path}`,
    received: [],
    respond: () => 200,
    waitFor: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline)
          throw new Error(`the receiver did not get what was expected within ${timeoutMs} ms (${receiver.received.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: listening.close,
  };
  return receiver;
}

function answer(response: ServerResponse, what: ReceiverAnswer): void {
  if (what === 'hang') return;
  const { status, headers = {}, afterMs = 0 } = typeof what === 'number' ? { status: what } : what;
  setTimeout(() => response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`${status}\n`), afterMs);
}

/** A Standard Webhooks secret for a test or a run: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `whsec_${Buffer.from(bytes).toString('base64')}`;
}
