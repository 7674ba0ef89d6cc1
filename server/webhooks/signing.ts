import { createHmac } from 'node:crypto';
import type { WebhookSecret } from './webhook-config.js';

/** The Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks v1: `v1,` and the base64 HMAC-SHA256, keyed with a secret's bytes, of
 * `id.timestamp.body` over the exact body sent; one such signature per secret, separated by
 * spaces, as the specification allows, so a receiver that holds any one of the secrets accepts the
 * event (how secrets are rotated). The timestamp is the attempt's, in Unix seconds.
 */
export function signWebhook(secret: WebhookSecret, id: string, body: string, now: Date = new Date()): SignedHeaders {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secret.keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
