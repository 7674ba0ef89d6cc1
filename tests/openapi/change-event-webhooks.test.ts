// The change events in the OpenAPI document: one `webhooks` entry per type beside the new-plant webhook, at
// /openapi.json and at /docs, each signed like it, its body the event's component, and every example a body
// the event's zod schema accepts.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PlantChangeEventSchema,
  PlantCreatedEventSchema,
  PlantDeletedEventSchema,
  PlantUpdatedEventSchema,
} from '../../schemas/change-event.js';
import { INT64_MAX, INT64_MIN } from '../../schemas/int64.js';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import {
  fetchDocument,
  resolveRefs,
  shapeOf,
  type OpenApiDocument,
  type Operation,
  type SchemaObject,
  type Shape,
} from '../helpers/openapi-reading.js';
import { NEW_PLANT, NEW_PLANT_WEBHOOK } from '../helpers/plant-store-interface.js';

type Webhook = Operation & { summary?: string };
type WithWebhooks = OpenApiDocument & { webhooks?: Record<string, { post?: Webhook } | undefined> };

const DELETED_PLANT: Shape = { type: 'object', properties: { id: { type: 'integer', format: 'int64' } }, required: ['id'] };
const eventShape = (data: Shape): Shape => ({
  type: 'object',
  properties: { type: { type: 'string' }, timestamp: { type: 'string', format: 'date-time' }, data },
  required: ['data', 'timestamp', 'type'],
});

/** Each type, its operationId, its component and schema, and the shape of its body: a stored plant, or its id alone. */
const EVENTS = [
  {
    type: 'plant.created',
    operationId: 'plantCreatedEvent',
    component: 'PlantCreatedEvent',
    schema: PlantCreatedEventSchema,
    data: NEW_PLANT,
  },
  {
    type: 'plant.updated',
    operationId: 'plantUpdatedEvent',
    component: 'PlantUpdatedEvent',
    schema: PlantUpdatedEventSchema,
    data: NEW_PLANT,
  },
  {
    type: 'plant.deleted',
    operationId: 'plantDeletedEvent',
    component: 'PlantDeletedEvent',
    schema: PlantDeletedEventSchema,
    data: DELETED_PLANT,
  },
] as const;

let app: FastifyInstance;
let served: WithWebhooks;
let resolved: WithWebhooks;

beforeAll(async () => {
  app = await buildApp(testConfig());
  served = await fetchDocument(app);
  resolved = await resolveRefs(served);
});
afterAll(async () => {
  await app.close();
});

function webhook(document: WithWebhooks, name: string): Webhook {
  const operation = document.webhooks?.[name]?.post;
  if (!operation) throw new Error(`the document has no POST ${name} webhook`);
  return operation;
}

const examplesOf = (operation: Webhook) => Object.entries(operation.requestBody?.content['application/json']?.examples ?? {});

describe('the change events in the OpenAPI document', () => {
  it('are one webhook per type after the new-plant webhook, at /openapi.json and at /docs', async () => {
    const names = [NEW_PLANT_WEBHOOK.name, ...EVENTS.map(({ type }) => type)];
    expect(Object.keys(served.webhooks ?? {})).toStrictEqual(names);
    const shown = (await fetchDocument(app, '/docs/json')) as WithWebhooks;
    expect(Object.keys(shown.webhooks ?? {})).toStrictEqual(names);
  });

  it.each(EVENTS)(
    '$type: its operationId, the signature headers and answers of the new-plant webhook (a 410 gives up, not kept), and no bearer token',
    ({ type, operationId }) => {
      const newPlant = webhook(served, NEW_PLANT_WEBHOOK.name);
      const event = webhook(served, type);
      expect(event.operationId).toBe(operationId);
      expect(event.parameters?.map(({ name }) => name)).toStrictEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      expect(event.parameters).toStrictEqual(newPlant.parameters);
      const { '410': gone, ...others } = event.responses;
      const { '410': newPlantGone, ...newPlantOthers } = newPlant.responses;
      expect(others).toStrictEqual(newPlantOthers);
      expect(newPlantGone?.description).toContain('npm run webhooks:failed');
      expect(gone?.description).toContain("the plant's next event follows");
      expect(event.security).toStrictEqual([]);
    },
  );

  it.each(EVENTS)('$type: says where it goes, and the order, retries and dedup a receiver relies on', ({ type }) => {
    const { description = '' } = webhook(served, type);
    expect(description).toContain('WEBHOOK_CHANGE_URLS');
    expect(description).toMatch(/in the order the changes were made, retries included/);
    expect(description).toContain('WEBHOOK_MAX_ATTEMPTS');
    expect(description).toMatch(/at least once: deduplicate on `webhook-id`/);
  });

  it.each(EVENTS)('$type: its body is the $component component, JSON, with type, timestamp and data', ({ type, component, data }) => {
    const body = webhook(served, type).requestBody;
    expect(body?.required).toBe(true);
    expect(Object.keys(body?.content ?? {})).toStrictEqual(['application/json']);
    expect(body?.content['application/json']?.schema).toStrictEqual({ $ref: `#/components/schemas/${component}` });

    const schema = webhook(resolved, type).requestBody?.content['application/json']?.schema as SchemaObject & {
      properties: Record<string, SchemaObject & { const?: string; minimum?: unknown; maximum?: unknown }>;
    };
    expect(shapeOf(schema)).toStrictEqual(eventShape(data));
    expect(schema.properties.type?.const).toBe(type);
    // Ids exact over the whole int64 range, as the plants' own.
    const id = (schema.properties.data as { properties: Record<string, { minimum?: unknown; maximum?: unknown }> }).properties.id;
    expect({ minimum: id?.minimum, maximum: id?.maximum }).toStrictEqual({ minimum: INT64_MIN, maximum: INT64_MAX });
  });

  it.each(EVENTS)('$type: every example is a body of that type the zod schemas accept', ({ type, schema }) => {
    const examples = examplesOf(webhook(served, type));
    expect(examples.length).toBeGreaterThan(0);
    for (const [name, example] of examples) {
      expect(example.summary, name).toBeTruthy();
      expect(schema.parse(example.value), name).toStrictEqual(example.value);
      expect(PlantChangeEventSchema.parse(example.value).type, name).toBe(type);
    }
  });

  it('shows an update with a tag, one that removed it, and an id beyond 2^53 written exactly', () => {
    const values = examplesOf(webhook(served, 'plant.updated')).map(
      ([, example]) => example.value as { data: { id: unknown; tag?: string } },
    );
    expect(values.some(({ data }) => data.tag !== undefined)).toBe(true);
    expect(values.some(({ data }) => !('tag' in data))).toBe(true);
    expect(values.map(({ data }) => data.id)).toContain(9007199254740993n);
  });
});

describe('the change event schemas', () => {
  const created = { type: 'plant.created', timestamp: '2026-01-01T12:00:00.000Z', data: { id: 1, name: 'Fern' } };

  it('take an RFC 3339 timestamp with an offset, and refuse one that is not', () => {
    expect(PlantChangeEventSchema.safeParse({ ...created, timestamp: '2026-01-01T13:00:00+01:00' }).success).toBe(true);
    expect(PlantChangeEventSchema.safeParse({ ...created, timestamp: '1 January 2026' }).error?.issues[0]?.message).toBe(
      'timestamp must be an RFC 3339 date-time',
    );
  });

  it('refuse a type there is not, a deleted plant with more than its id, and an id rounded beyond 2^53', () => {
    expect(PlantChangeEventSchema.safeParse({ ...created, type: 'plant.renamed' }).success).toBe(false);
    expect(PlantChangeEventSchema.safeParse({ ...created, type: 'plant.deleted' }).success).toBe(false);
    expect(PlantChangeEventSchema.safeParse({ ...created, type: 'plant.deleted', data: { id: 1 } }).success).toBe(true);
    expect(PlantChangeEventSchema.safeParse({ ...created, data: { id: 2 ** 53 + 2, name: 'Fern' } }).success).toBe(false);
    expect(PlantChangeEventSchema.safeParse({ ...created, data: { id: 2n ** 53n + 1n, name: 'Fern' } }).success).toBe(true);
  });
});
