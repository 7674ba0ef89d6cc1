import { loggedUrl } from '../logs/logged-url.js';
import { signWebhook } from './signing.js';
import type { WebhookSecret } from './webhook-config.js';
import { parseRetryAfter } from './retry-schedule.js';

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  /** 410 Gone: the receiver asks not to be sent this again; no further attempts. */
  | { kind: 'gone'; status: 410; error: string }
  /** Anything else: another status (3xx included: redirects are not followed), no connection, no answer in time (no status). */
  | { kind: 'failed'; status?: number; error: string; retryAfterMs: number }
  /** Given up at shutdown before an answer came: the attempt does not count. */
  | { kind: 'abandoned' };

export interface Attempt {
  url: string;
  id: string;
  body: string;
  secret: WebhookSecret;
  timeoutMs: number;
  shutdown: AbortSignal;
  headers?: Record<string, string> | undefined;
}

/** POSTs one event to one URL, signed for this attempt, and says how it went. Never throws. */
export async function sendWebhook({ url, id, body, secret, timeoutMs, shutdown, headers }: Attempt): Promise<AttemptOutcome> {
  const started = Date.now();
  // A plain controller and timer, held here until the attempt ends: AbortSignal.timeout() combined
  // with AbortSignal.any() can be collected before it fires on Node 20, and the attempt never ends.
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onShutdown = () => {
    deadline.abort(shutdown.reason);
  };
  if (shutdown.aborted) onShutdown();
  else shutdown.addEventListener('abort', onShutdown, { once: true });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'plant-store-webhooks', ...headers, ...signWebhook(secret, id, body) },
      body,
      redirect: 'manual',
      signal: deadline.signal,
    });
    // The answer's body is not read: only its status counts, and a receiver may send a large one.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { kind: 'delivered', status: response.status };
    if (response.status === 410) return { kind: 'gone', status: 410, error: 'HTTP 410 Gone' };
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : '';
    return {
      kind: 'failed',
      status: response.status,
      error: `HTTP ${response.status}${redirect}`,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), Date.now()),
    };
  } catch (error) {
    if (shutdown.aborted) return { kind: 'abandoned' };
    return { kind: 'failed', error: describeFailure(error, url, timeoutMs, Date.now() - started), retryAfterMs: 0 };
  } finally {
    clearTimeout(timer);
    shutdown.removeEventListener('abort', onShutdown);
  }
}

/** What went wrong, for the log and the delivery record: the URL, where a message quotes it, only as loggedUrl shows it. */
function describeFailure(error: unknown, url: string, timeoutMs: number, elapsedMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  // fetch wraps network errors: "fetch failed", with the system error as its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  const message = (cause instanceof Error ? cause.message : String(cause)).replaceAll(url, loggedUrl(url));
  return typeof code === 'string' ? `${code}: ${message} after ${elapsedMs} ms` : `${message} after ${elapsedMs} ms`;
}
