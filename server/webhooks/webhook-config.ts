import { inspect } from 'node:util';
import { z } from 'zod';

/** The webhook settings, validated once at start-up and passed down. */
export interface WebhookConfig {
  /** Where each new plant's event goes. Empty: no new-plant events are recorded. */
  urls: string[];
  /** Where every change (created, updated, deleted) goes. Empty: no change events are recorded, deletes keep nothing. */
  changeUrls: string[];
  /** The signing keys. Unset: this instance delivers nothing (and records nothing: URLs need it). */
  secret: WebhookSecret | undefined;
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  /** Change events a plant may have waiting; a change beyond them is refused until some are delivered. */
  changeQueueLimit: number;
}

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks: keys of 24 to 64 random bytes. */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A plant's waiting change events live in its document, which MongoDB holds to 16 MiB. */
export const MAX_CHANGE_QUEUE_LIMIT = 10_000;

/** Several secrets while receivers move from one to the next. Only decoded keys are kept, and they never print. */
export class WebhookSecret {
  readonly #keys: readonly Buffer[];

  private constructor(keys: readonly Buffer[]) {
    this.#keys = keys;
  }

  /** The secrets, or the 1-based position of the first that is not `whsec_` + padded base64 of 24–64 bytes. */
  static parse(text: string): WebhookSecret | { invalid: number } {
    const keys = text.trim().split(/\s+/).map(parseOne);
    const invalid = keys.findIndex((key) => key === undefined);
    return invalid === -1 ? new WebhookSecret(keys as Buffer[]) : { invalid: invalid + 1 };
  }

  get keys(): readonly Buffer[] {
    return this.#keys;
  }

  toJSON(): string {
    return '[webhook secret]';
  }

  [inspect.custom](): string {
    return '[webhook secret]';
  }
}

function parseOne(text: string): Buffer | undefined {
  if (!text.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = text.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Node's decoder skips characters it does not know; a round trip shows there were none.
  if (key.toString('base64') !== encoded) return undefined;
  return key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES ? key : undefined;
}

const SECRET_MESSAGE =
  `must be ${SECRET_PREFIX} followed by the base64 (with = padding) of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random ` +
  'bytes, as `openssl rand -base64 32` makes; several are separated by spaces';

export const webhookSecret = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined) return undefined;
    const parsed = WebhookSecret.parse(value);
    if (parsed instanceof WebhookSecret) return parsed;
    const which = value.trim().split(/\s+/).length > 1 ? `secret ${parsed.invalid} ` : '';
    context.addIssue({ code: 'custom', message: `${which}${SECRET_MESSAGE}` });
    return undefined;
  });

/**
 * A URL's `user:password@` is refused rather than sent as Basic auth: the URL is stored with every event, and the
 * webhook-signature header already proves the sender.
 */
export function checkWebhookUrls(urls: string[], context: z.RefinementCtx<string[]>): void {
  // By position, not by value: a URL can carry a receiver's token.
  urls.forEach((url, index) => {
    if (!isHttpUrl(url)) context.addIssue({ code: 'custom', message: `URL ${index + 1} is not an http:// or https:// URL` });
    else if (hasCredentials(url)) {
      context.addIssue({
        code: 'custom',
        message:
          `URL ${index + 1} carries credentials (user:password@), which are not sent: receivers authenticate ` +
          `the service by the webhook-signature header`,
      });
    }
  });
  if (new Set(urls).size !== urls.length) context.addIssue({ code: 'custom', message: 'a URL is listed twice' });
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

function hasCredentials(text: string): boolean {
  const { username, password } = new URL(text);
  return username !== '' || password !== '';
}

export function webhookConfigProblem(config: Pick<WebhookConfig, 'urls' | 'changeUrls' | 'secret'>): string | undefined {
  if (config.secret !== undefined) return undefined;
  if (config.urls.length > 0) return 'WEBHOOK_SECRET must be set when WEBHOOK_URLS is set';
  if (config.changeUrls.length > 0) return 'WEBHOOK_SECRET must be set when WEBHOOK_CHANGE_URLS is set';
  return undefined;
}
