// The new-plant webhook in the OpenAPI document: the whole store's `webhooks./plant/webhook`
// (its contract, tests/contract), with the signature headers, served at
// /openapi.json and /docs; and its example is what the service really sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { buildApp } from '../../server/app.js';
import { postPlant, testConfig } from '../helpers/app.js';
import { useWebhookReceiver, webhookEnv } from '../helpers/webhooks.js';
import { fetchDocument, jsonSchemaOf, resolveRefs, shapeOf, type OpenApiDocument, type Operation } from '../helpers/openapi-reading.js';
import { NEW_PLANT, NEW_PLANT_WEBHOOK } from '../helpers/plant-store-interface.js';

type WithWebhooks = OpenApiDocument & { webhooks?: Record<string, Record<string, WebhookOperation | undefined> | undefined> };
type WebhookOperation = Operation & {
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  requestBody?: Operation['requestBody'] & { content: Record<string, { example?: unknown }> };
};

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

let app: Awaited<ReturnType<typeof buildApp>>;
let ours: WebhookOperation;

beforeAll(async () => {
  app = await buildApp(testConfig());
  const document: WithWebhooks = await resolveRefs(await fetchDocument(app));
  const operation = document.webhooks?.[NEW_PLANT_WEBHOOK.name]?.[NEW_PLANT_WEBHOOK.method];
  if (!operation) throw new Error(`the document has no ${NEW_PLANT_WEBHOOK.method.toUpperCase()} ${NEW_PLANT_WEBHOOK.name} webhook`);
  ours = operation;
});
afterAll(async () => {
  await app.close();
});

describe('the webhook in the OpenAPI document', () => {
  it("has the interface's body (a NewPlant, as JSON) and its 200", () => {
    expect(Object.keys(ours.requestBody?.content ?? {})).toStrictEqual(['application/json']);
    expect(NEW_PLANT_WEBHOOK.body).toStrictEqual(NEW_PLANT);
    expect(shapeOf(jsonSchemaOf(ours.requestBody?.content))).toStrictEqual(NEW_PLANT_WEBHOOK.body);
    expect(NEW_PLANT_WEBHOOK.responses).toStrictEqual(['200']);
    for (const status of NEW_PLANT_WEBHOOK.responses) expect(ours.responses[status]?.description).toBeTruthy();
  });

  it('documents the three Standard Webhooks headers, all required', () => {
    expect(
      ours.parameters?.map(({ name, in: where, required, schema }) => ({ name, in: where, required, type: schema?.type })),
    ).toStrictEqual(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ name, in: 'header', required: true, type: 'string' })),
    );
  });

  it('asks the receiver for no bearer token', () => {
    expect(ours.security).toStrictEqual([]);
  });

  it('keeps its operationId', () => {
    expect(ours.operationId).toBe('newPlantWebhook');
  });

  it('is shown at /docs (its document, /docs/json), before the change events', async () => {
    const shown = (await fetchDocument(app, '/docs/json')) as WithWebhooks;
    expect(Object.keys(shown.webhooks ?? {})).toStrictEqual(['/plant/webhook', 'plant.created', 'plant.updated', 'plant.deleted']);
  });

  it('has an example body that is exactly what the service sends for that plant', async () => {
    const example = ours.requestBody?.content['application/json']?.example as { id: number; name: string; tag?: string };
    const sending = await hooks.startApp({ env: webhookEnv([hooks.receiver.url()], SECRET) });
    await postPlant(sending.app, example);
    await hooks.receiver.waitFor((received) => received.length === 1);
    expect(hooks.receiver.received[0]?.body).toBe(JSON.stringify(example));
  });
});
