import fp from 'fastify-plugin';
import { PLANTS_COLLECTION } from '../plants/mongo-plant-store.js';
import type { WebhookConfig } from '../webhooks/webhook-config.js';
import { registerWebhooks, type EventRecorder } from '../webhooks/register-webhooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** How the store records a new plant's event (the outbox); undefined when no webhook is configured. */
    webhookEvents: EventRecorder | undefined;
  }
}

export interface WebhooksOptions {
  webhooks: WebhookConfig;
  mongodb: { timeoutMs: number; writeConcern: { w: 'majority' | number; journal: boolean } };
}

/** The delivery worker on the app's MongoDB: started once the app is ready, drained when it closes (before the client). */
export const webhooksPlugin = fp<WebhooksOptions>(
  async (app, config) => {
    const { metrics, tracing } = app.telemetry;
    const { w, journal } = config.mongodb.writeConcern;
    const events = registerWebhooks(app, {
      db: app.mongo.db,
      guard: app.mongo,
      collection: PLANTS_COLLECTION,
      writeConcern: { w, journal },
      config,
      observers: { ...metrics?.webhookObservers(), ...tracing?.webhookObservers() },
    });
    app.decorate('webhookEvents', events);
  },
  { name: 'webhooks', dependencies: ['mongodb', 'telemetry'] },
);
