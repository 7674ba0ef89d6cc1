import type { OpenAPIObject } from 'trpc-to-openapi';

/** The new-plant webhook as an OpenAPI 3.1 `webhooks` entry: what a subscriber receives and what to answer. */
export function addNewPlantWebhook(document: OpenAPIObject): void {
  document.webhooks = {
    ...document.webhooks,
    '/plant/webhook': {
      post: {
        operationId: 'newPlantWebhook',
        summary: 'A new plant was added',
        description: [
          'Information about a new plant added to the store: POSTed to each URL of WEBHOOK_URLS once for every plant created',
          '(an idempotent replay of a create sends nothing), signed as [Standard Webhooks](https://www.standardwebhooks.com/) v1',
          'with WEBHOOK_SECRET, so the `standardwebhooks` package verifies it.',
          '\n\nAny 2xx answer counts as delivered. Anything else (another status, a redirect, no connection, no answer within',
          'WEBHOOK_TIMEOUT_MS) is retried with exponential backoff from WEBHOOK_RETRY_BASE_MS, with jitter, at most an hour apart,',
          'honouring `Retry-After`, up to WEBHOOK_MAX_ATTEMPTS attempts. Delivery is at least once: deduplicate on `webhook-id`.',
        ].join(' '),
        tags: ['webhooks'],
        // The service signs what it sends; the receiver asks for no bearer token.
        security: [],
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            description:
              'This event for this URL: the same on every retry, different for every other event or URL. Use it to drop duplicates.',
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
        responses: {
          '200': { description: 'Return a 200 status (any 2xx) to indicate that the data was received successfully' },
          '410': { description: 'Gone: this event is not sent to this URL again (it is marked failed)' },
          default: { description: 'Any other answer, or none in time: the event is sent again later' },
        },
      },
    },
  };
}
