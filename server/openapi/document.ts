import { isDeepStrictEqual } from 'node:util';
import { procedureEntries } from '@plant-store/fast-path';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import type { Scope } from '../../routers/auth.js';
import type { ConditionalRequests, OperationAnswers, ProcedureMeta } from '../../routers/procedure-meta.js';
import { ErrorSchema } from '../../schemas/error.js';
import { HTTP_LAYER_EXAMPLES, ID_PARAMETER_EXAMPLES, type OperationExample } from '../../schemas/examples.js';
import { INT64_MAX, INT64_MIN } from '../../schemas/int64.js';
import { writableJson } from '../http/int64-edge.js';
import { NewPlantSchema } from '../../schemas/plant.js';
import { PlantCreatedEventSchema, PlantDeletedEventSchema, PlantUpdatedEventSchema } from '../../schemas/change-event.js';
import { addExamples, addHttpLayerExamples } from './examples.js';
import { addEntityTagHeader, addNotModified, addResponseHeaders } from './response-headers.js';
import { addWebhooks } from '../webhooks/openapi-webhook.js';
import { operationsOf, type OpenApiOperation } from './operations.js';

/** A fresh object per response: each gets examples of its own. */
const errorContent = () => ({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });

/** Answers the HTTP layer gives before any operation runs; every operation can get them. */
const HTTP_LAYER_RESPONSES: Record<keyof typeof HTTP_LAYER_EXAMPLES, string> = {
  408: 'The request did not arrive within REQUEST_TIMEOUT_MS',
  417: 'The request has an Expect header other than 100-continue',
  429: 'Too many failed authentications from this address (only when AUTH_FAILURE_LIMIT is set)',
  431: 'The request headers are too large',
};

/**
 * Completes trpc-to-openapi's document with what the service really answers. The server URL is relative: the
 * configured host and port are often not where a client reaches the service.
 */
export function buildOpenApiDocument(router: AppRouter): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Plant Store',
    version: '1.0.0',
    description:
      'Stores plants. Every endpoint requires `Authorization: Bearer <token>`: a static API token, or a JWT access token ' +
      "from the service's identity provider granting the operation's scope (`plants:read` or `plants:write`).",
    baseUrl: '/',
    contact: { name: 'Plant Store maintainers' },
    license: { name: 'MIT', identifier: 'MIT' },
    securitySchemes: { bearerAuth: BEARER_AUTH },
    defs: {
      Error: ErrorSchema,
      NewPlant: NewPlantSchema,
      // The change events' bodies, referred to by the webhooks.
      PlantCreatedEvent: PlantCreatedEventSchema,
      PlantUpdatedEvent: PlantUpdatedEventSchema,
      PlantDeletedEvent: PlantDeletedEventSchema,
    },
  });
  const schemas = document.components?.schemas ?? {};
  const declared = declarationsOf(router);
  for (const operation of operationsOf(document)) {
    const meta = declared.get(operation.operationId ?? '');
    requireScope(operation, meta?.scope);
    referToNamedRequestSchema(operation, schemas);
    describeParametersThemselves(operation);
    addIdParameterExamples(operation);
    answerNothingWith204(operation);
    // Each operation's own words: trpc-to-openapi keeps the first description it met for each error code, whichever operation it was.
    const described: Partial<Record<string, { description: string }>> = meta?.answers?.errors ?? {};
    for (const [status, response] of Object.entries(operation.responses)) {
      if (response && !status.startsWith('2'))
        operation.responses[status] = { description: described[status]?.description ?? response.description, content: errorContent() };
    }
    for (const [status, description] of Object.entries(HTTP_LAYER_RESPONSES))
      operation.responses[status] = { description, content: errorContent() };
    addResponseHeaders(operation);
    if (meta?.conditional) declareConditionalRequests(operation, meta.conditional, meta.openapi?.method === 'GET');
    if (meta?.answers) addExamples(operation, examplesOf(meta.answers, meta.conditional), meta.answers.success.moreRequests);
    addHttpLayerExamples(operation, HTTP_LAYER_EXAMPLES);
  }
  document.components = {
    ...document.components,
    // trpc-to-openapi's own error envelopes, no longer referenced.
    schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => !name.startsWith('error.'))),
  };
  document.security = [{ bearerAuth: [] }];
  document.tags = declaredTags(operationsOf(document));
  addWebhooks(document);
  addInt64Bounds(document);
  // The bounds and example ids are bigints: made writable, they are written out as exact JSON numbers.
  return writableJson(document) as OpenAPIObject;
}

/** The bearer scheme: static tokens and JWT access tokens alike; `/docs` asks for one under Authorize. */
const BEARER_AUTH = {
  type: 'http',
  // No bearerFormat: a static token is opaque, not a JWT.
  scheme: 'bearer',
  description:
    'A static token (API_TOKENS, API_TOKEN_HASHES: every scope) or a JWT access token from the identity provider ' +
    '(AUTH_JWKS_URL), whose `scope` or `scp` claim grants the scopes each operation names.',
} as const;

function declarationsOf(router: AppRouter): Map<string, ProcedureMeta> {
  return new Map(
    procedureEntries<ProcedureMeta>(router).flatMap(({ meta }) => {
      const operationId = meta?.openapi?.operationId;
      return meta === undefined || operationId === undefined ? [] : [[operationId, meta] as const];
    }),
  );
}

function examplesOf({ success, errors }: OperationAnswers, conditional: ConditionalRequests | undefined): Record<string, OperationExample> {
  const failures = Object.entries(errors).map(([status, answer]) => [status, answer.example] as const);
  const notModified = typeof conditional?.ifNoneMatch === 'object' ? [['304', conditional.ifNoneMatch.example] as const] : [];
  return Object.fromEntries([[String(success.status), success.example], ...notModified, ...failures]);
}

/** RFC 9110's conditional requests, as the procedure declares them. */
function declareConditionalRequests(operation: OpenApiOperation, conditional: ConditionalRequests, read: boolean): void {
  // Over REST the condition is the If-Match header: the input field /trpc and in-process callers use is not a parameter.
  const parameters = (operation.parameters ?? []).filter((parameter) => !(conditional.ifMatch && parameter.name === 'ifMatch'));
  if (conditional.ifMatch) {
    for (const media of Object.values(operation.requestBody?.content ?? {})) dropProperty(media?.schema, 'ifMatch');
    parameters.push({
      name: 'If-Match',
      in: 'header',
      description: read
        ? 'Answer only while the plant has this ETag (or one of several, comma-separated), or `*` for any. Otherwise 412'
        : 'Change only while the plant is as read: the ETag it answered (or several, comma-separated), or `*` for ' +
          'any. Otherwise 412, and nothing changes',
      // No example: /docs would fill it in, and every "Try it out" would be conditional on it.
      schema: { type: 'string' },
    });
  }
  if (typeof conditional.ifNoneMatch === 'object') {
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      description: 'Answer 304 Not Modified, with no body, while the plant still has this ETag (or one of several, comma-separated)',
      schema: { type: 'string' },
    });
    addNotModified(operation, conditional.ifNoneMatch.description);
  } else if (conditional.ifNoneMatch) {
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      description:
        'Refuse (412, nothing changes) while the plant has this ETag (or one of several, comma-separated); `*` ' +
        'refuses whenever the plant exists',
      schema: { type: 'string' },
    });
  }
  operation.parameters = parameters;
  if (conditional.entityTag) addEntityTagHeader(operation);
}

function dropProperty(schema: unknown, name: string): void {
  if (typeof schema !== 'object' || schema === null) return;
  const object = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (object.properties) object.properties = Object.fromEntries(Object.entries(object.properties).filter(([key]) => key !== name));
  if (object.required) object.required = object.required.filter((key) => key !== name);
}

/** A protected operation (trpc-to-openapi gave it a security requirement) names its scope, in the requirement and in words. */
function requireScope(operation: OpenApiOperation, scope: Scope | undefined): void {
  if (operation.security === undefined) return;
  if (scope === undefined) throw new Error(`${operation.operationId ?? 'an operation'} needs a token but its procedure declares no scope`);
  operation.security = [{ bearerAuth: [] }];
  operation['x-required-scopes'] = [scope];
  operation.description =
    `${operation.description ?? ''} Needs a token granting the scope \`${scope}\` (every static token does).`.trimStart();
}

/** Where a request body is exactly a named component, point to it, so the document names its shapes as the interface does. */
function referToNamedRequestSchema(operation: OpenApiOperation, components: Record<string, unknown>): void {
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    const name = Object.keys(components).find((key) => isDeepStrictEqual(components[key], media?.schema));
    if (media && name !== undefined) media.schema = { $ref: `#/components/schemas/${name}` };
  }
}

/** A parameter's description belongs to the parameter (as the interface writes it), not only to its schema. */
function describeParametersThemselves(operation: OpenApiOperation): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.description === undefined && parameter.schema?.description !== undefined)
      parameter.description = parameter.schema.description;
  }
}

/** Every int64 path parameter offers a small id and one beyond 2^53, so tools that fill parameters in use real ids. */
function addIdParameterExamples(operation: OpenApiOperation): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path' && parameter.schema?.format === 'int64') parameter.examples = { ...ID_PARAMETER_EXAMPLES };
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = { plants: 'The plants in the store: create, list, read, change and delete them' };

function declaredTags(operations: OpenApiOperation[]): { name: string; description?: string }[] {
  const names = [...new Set(operations.flatMap((operation) => operation.tags ?? []))];
  return names.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] === undefined ? {} : { description: TAG_DESCRIPTIONS[name] }) }));
}

/** trpc-to-openapi documents every success as 200; a procedure that answers nothing answers 204 with no body. */
function answerNothingWith204(operation: OpenApiOperation): void {
  const success = operation.responses['200'];
  if (!success || !isDeepStrictEqual(success.content?.['application/json']?.schema, {})) return;
  delete operation.responses['200'];
  operation.responses['204'] = { description: success.description };
}

/** zod's JSON Schema output cannot hold a bigint, so int64 bounds are added here, exactly. */
function addInt64Bounds(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'integer' && schema.format === 'int64') {
    schema.minimum = INT64_MIN;
    schema.maximum = INT64_MAX;
  }
  for (const value of Object.values(schema)) addInt64Bounds(value);
}
