import type { OpenAPIObject } from 'trpc-to-openapi';
import type { PlantChangeEvent, PlantChangeType } from '../../schemas/change-event.js';
import { MONSTERA, SNOWFLAKE } from '../../schemas/examples.js';

type PathItem = Exclude<NonNullable<OpenAPIObject['webhooks']>[string], { $ref: string }>;
type WebhookOperation = NonNullable<PathItem['post']>;

/**
 * The webhooks as OpenAPI 3.1 `webhooks` entries: what a subscriber receives and what to answer. The new-plant
 * webhook, and one entry per change event type, so that each shows its own body and example in /docs and
 * generators give each type a name.
 */
export function addWebhooks(document: OpenAPIObject): void {
  document.webhooks = {
    ...document.webhooks,
    '/plant/webhook': { post: newPlantWebhook() },
    ...Object.fromEntries(CHANGE_EVENTS.map((event) => [event.type, { post: changeEventWebhook(event) }])),
  };
}

const DELIVERY =
  'Any 2xx answer counts as delivered. Anything else (another status, a redirect, no connection, no answer within ' +
  'WEBHOOK_TIMEOUT_MS) is retried with exponential backoff from WEBHOOK_RETRY_BASE_MS, with jitter, at most an hour apart, ' +
  'honouring `Retry-After`, up to WEBHOOK_MAX_ATTEMPTS attempts. Delivery is at least once: deduplicate on `webhook-id`.';

function newPlantWebhook(): WebhookOperation {
  return {
    operationId: 'newPlantWebhook',
    summary: 'A new plant was added',
    description: [
      'Information about a new plant added to the store: POSTed to each URL of WEBHOOK_URLS once for every plant created',
      '(an idempotent replay of a create sends nothing), signed as [Standard Webhooks](https://www.standardwebhooks.com/) v1',
      'with WEBHOOK_SECRET, so the `standardwebhooks` package verifies it.',
      `\n\n${DELIVERY}`,
    ].join(' '),
    ...signedHeaders(),
    requestBody: {
      required: true,
      description: 'Plant added to the store, as it was stored',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/NewPlant' },
          example: { id: 42, name: 'Monstera', tag: 'tropical' },
        },
      },
    },
    responses: answers('it is marked failed, and `npm run webhooks:failed` lists it'),
  };
}

interface EventExample {
  summary: string;
  description?: string;
  value: PlantChangeEvent;
}

interface ChangeEventEntry {
  type: PlantChangeType;
  operationId: string;
  summary: string;
  when: string;
  schema: string;
  body: string;
  examples: Record<string, EventExample>;
}

/** A fixed instant: examples do not change from one build of the document to the next. */
const AT = '2026-01-01T12:00:00.000Z';

const CHANGE_EVENTS: readonly ChangeEventEntry[] = [
  {
    type: 'plant.created',
    operationId: 'plantCreatedEvent',
    summary: 'A plant was created',
    when: 'Sent for every create that stored a plant; an idempotent replay of a create sends nothing.',
    schema: 'PlantCreatedEvent',
    body: 'The event, with the plant as it was stored',
    examples: { created: { summary: 'A plant with a tag was created', value: { type: 'plant.created', timestamp: AT, data: MONSTERA } } },
  },
  {
    type: 'plant.updated',
    operationId: 'plantUpdatedEvent',
    summary: 'A plant was changed',
    when:
      'Sent for every update that changed the name or the tag; an update that changes nothing sends nothing. ' +
      '`data` is the whole plant after the change: a plant whose tag was removed comes without `tag`.',
    schema: 'PlantUpdatedEvent',
    body: 'The event, with the whole plant as stored after the change',
    examples: {
      tagChanged: {
        summary: 'The tag was changed: the whole plant, as stored now',
        value: { type: 'plant.updated', timestamp: AT, data: { ...MONSTERA, tag: 'climbing' } },
      },
      tagRemoved: {
        summary: 'The tag was removed: the plant comes without one',
        value: { type: 'plant.updated', timestamp: AT, data: { id: MONSTERA.id, name: MONSTERA.name } },
      },
      bigId: {
        summary: 'An id beyond 2^53, written exactly',
        description:
          'Sent exactly as stored. In /docs this example shows the id rounded to 9007199254740992 (the page reads numbers as ' +
          'JavaScript does): a receiver must parse with a JSON parser that keeps big integers.',
        value: { type: 'plant.updated', timestamp: AT, data: { ...SNOWFLAKE, tag: 'succulent' } },
      },
    },
  },
  {
    type: 'plant.deleted',
    operationId: 'plantDeletedEvent',
    summary: 'A plant was deleted',
    when:
      'Sent for every delete that removed a plant; deleting an absent plant sends nothing. The id may be given to a new ' +
      'plant meanwhile: its `plant.created` comes after this event.',
    schema: 'PlantDeletedEvent',
    body: 'The event, with the id of the plant deleted',
    examples: { deleted: { summary: 'A plant was deleted', value: { type: 'plant.deleted', timestamp: AT, data: { id: MONSTERA.id } } } },
  },
];

function changeEventWebhook({ operationId, summary, when, schema, body, examples }: ChangeEventEntry): WebhookOperation {
  return {
    operationId,
    summary,
    description: [
      `${when} POSTed to each URL of WEBHOOK_CHANGE_URLS, signed like the new-plant webhook`,
      '([Standard Webhooks](https://www.standardwebhooks.com/) v1 with WEBHOOK_SECRET). The three change events',
      '(`plant.created`, `plant.updated`, `plant.deleted`) go to the same URLs: tell them apart by `type`.',
      '\n\nFor each plant and URL, events arrive in the order the changes were made, retries included: an event is not',
      "sent before the plant's previous event to that URL was delivered or given up. To mirror the store, apply them",
      'to a map keyed by id: created and updated set the plant, deleted removes it.',
      `\n\n${DELIVERY}`,
    ].join(' '),
    ...signedHeaders(),
    requestBody: {
      required: true,
      description: body,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, examples } },
    },
    responses: answers(
      "it is given up, logged and counted, and the plant's next event follows; `npm run webhooks:failed` lists the miss, " +
        'and its `--replay` sends this URL the plant as it is then',
    ),
  };
}

/** What every webhook shares: the signature headers, and no bearer token. */
function signedHeaders(): Pick<WebhookOperation, 'tags' | 'security' | 'parameters'> {
  return {
    tags: ['webhooks'],
    // The service signs what it sends; the receiver asks for no bearer token.
    security: [],
    parameters: [
      {
        name: 'webhook-id',
        in: 'header',
        required: true,
        description: 'This event for this URL: the same on every retry, different for every other event or URL. Use it to drop duplicates.',
        schema: { type: 'string', examples: ['msg_p5jXN8AQM9LWM0D4loKWxJ'] },
      },
      {
        name: 'webhook-timestamp',
        in: 'header',
        required: true,
        description:
          'When this attempt was sent, in Unix seconds. Refuse messages too far from your clock (standardwebhooks allows 5 minutes).',
        schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1767225600'] },
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        description:
          '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` over the exact body bytes, keyed with the ' +
          'base64-decoded part of a secret of WEBHOOK_SECRET after `whsec_`. WEBHOOK_SECRET may hold several secrets (while ' +
          'receivers move to a new one): one signature per secret, space-separated, in the order of WEBHOOK_SECRET; a receiver ' +
          'accepts the event when any one verifies with its secret (the `standardwebhooks` package does so).',
        schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
      },
    ],
  };
}

/** What the service makes of each answer, the same for every webhook. */
function answers(givenUp: string): WebhookOperation['responses'] {
  return {
    '200': { description: 'Return a 200 status (any 2xx) to indicate that the data was received successfully' },
    '410': { description: `Gone: this event is not sent to this URL again (${givenUp})` },
    default: { description: 'Any other answer, or none in time: the event is sent again later' },
  };
}
