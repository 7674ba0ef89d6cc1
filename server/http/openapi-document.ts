import { isDeepStrictEqual } from 'node:util';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import { ErrorSchema } from '../../schemas/error.js';
import { NewPlantSchema } from '../../schemas/plant.js';
import { CREATE_PLANT_EXAMPLES } from '../../schemas/examples.js';
import { addNewPlantWebhook } from '../webhooks/openapi-webhook.js';
import { addExamples, type ExampleTarget } from './openapi-examples.js';

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/**
 * The OpenAPI document, generated from the router by trpc-to-openapi. Its error responses are
 * rewritten to the interface's one `Error` schema, which is what the REST API really answers
 * (trpc-to-openapi documents its own error envelope, which this service does not send).
 * `POST /plants` gets an example for every status, from schemas/examples.ts.
 *
 * The server URL is relative (`/`): the configured host and port are often not where a client
 * reaches the service (0.0.0.0, port 0, a proxy in front), and a relative URL resolves against
 * wherever the document was fetched from, which is also what Swagger UI at /docs needs.
 */
export function buildOpenApiDocument(router: AppRouter): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Plant Store',
    version: '1.0.0',
    description: 'Stores plants. Every endpoint requires `Authorization: Bearer <token>`.',
    baseUrl: '/',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    defs: { Error: ErrorSchema, NewPlant: NewPlantSchema },
  });
  for (const operation of operationsOf(document)) {
    referToNamedRequestSchema(operation, document.components?.schemas ?? {});
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!status.startsWith('2')) {
        operation.responses[status] = { description: (response as { description: string }).description, content: { 'application/json': { schema: ERROR_REF } } };
      }
    }
  }
  const schemas = document.components?.schemas;
  if (schemas) {
    // trpc-to-openapi's own error envelopes, no longer referenced.
    document.components = { ...document.components, schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => !name.startsWith('error.'))) };
  }
  document.security = [{ bearerAuth: [] }];
  const createPlant = document.paths?.['/plants']?.post;
  if (!createPlant) throw new Error('the router has no POST /plants to document');
  addExamples(createPlant as ExampleTarget, CREATE_PLANT_EXAMPLES);
  addNewPlantWebhook(document);
  return document;
}

type Operation = {
  responses: Record<string, unknown>;
  requestBody?: { content?: Record<string, { schema?: unknown } | undefined> };
};

/**
 * trpc-to-openapi writes each request body schema inline. Where it is exactly a named component
 * (`NewPlant`), point to that instead, so the document names its shapes as the interface does.
 */
function referToNamedRequestSchema(operation: Operation, components: Record<string, unknown>): void {
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    const name = Object.keys(components).find((key) => isDeepStrictEqual(components[key], media?.schema));
    if (media && name !== undefined) media.schema = { $ref: `#/components/schemas/${name}` };
  }
}

function operationsOf(document: OpenAPIObject): Operation[] {
  return Object.values(document.paths ?? {}).flatMap((pathItem) =>
    ['get', 'put', 'post', 'patch', 'delete'].flatMap((method) => {
      const operation = (pathItem as Record<string, Operation | undefined>)[method];
      return operation ? [operation] : [];
    }),
  );
}
