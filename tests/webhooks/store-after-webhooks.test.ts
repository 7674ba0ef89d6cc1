// The MongoDB store records each change's webhook events in the write that makes it: registered before the webhooks
// plugin it would record none, so Fastify refuses that order instead of starting without events.
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { mongodbPlugin } from '../../server/plugins/mongodb.js';
import { mongoPlantStorePlugin } from '../../server/plugins/plant-store.js';
import { telemetryPlugin } from '../../server/plugins/telemetry.js';
import { testConfig } from '../helpers/app.js';

it('refuses to register the MongoDB store before the webhooks plugin', async () => {
  const config = testConfig();
  const app = Fastify({ logger: false });
  try {
    await app.register(telemetryPlugin, { metrics: config.metrics, tracing: config.tracing });
    await app.register(mongodbPlugin, config.mongodb);
    await expect(app.register(mongoPlantStorePlugin, config.mongodb)).rejects.toThrow(
      "The dependency 'webhooks' of plugin 'plant-store' is not registered",
    );
  } finally {
    await app.close().catch(() => undefined);
  }
});
