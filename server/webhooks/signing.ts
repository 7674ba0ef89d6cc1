import { createHmac } from 'node:crypto';
import type { WebhookSecret } from './webhook-config.js';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks v1: one signature per secret, space-separated, so a receiver holding any one of them accepts the
 * event while secrets rotate.
 */
export function signWebhook(secret: WebhookSecret, id: string, body: string, now: Date = new Date()): SignedHeaders {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secret.keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
