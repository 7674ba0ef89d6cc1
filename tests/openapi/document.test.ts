// The generated OpenAPI document is valid OpenAPI, and POST /plants in it says what the
// interface (../shared/spec/plant-store.openapi.json) says: same names, types, formats,
// requiredness, statuses and security. Both sides are compared after resolving $ref and
// merging allOf, so inline schemas against $ref, or allOf against a flat object, do not matter.
import { compileErrors, validate } from '@readme/openapi-parser';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import {
  fetchDocument,
  FULL_SPEC_URL,
  jsonSchemaOf,
  operationOf,
  readSpec,
  resolveRefs,
  shapeOf,
  type OpenApiDocument,
  type Operation,
} from '../helpers/openapi-reading.js';

const NEW_PLANT = {
  type: 'object',
  properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, tag: { type: 'string' } },
  required: ['id', 'name'],
};
const PLANT = { type: 'object', properties: { name: { type: 'string' }, tag: { type: 'string' } }, required: ['name'] };
const ERROR = {
  type: 'object',
  properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
  required: ['error', 'message'],
};
/** Statuses the service documents beyond the interface's 200 and 400, all with the Error body. */
// 408, 429 and 431 come from the HTTP layer, before any operation runs (429 only with AUTH_FAILURE_LIMIT set).
const FURTHER_ERROR_STATUSES = ['401', '403', '408', '409', '413', '415', '429', '431', '500', '503'];

let app: FastifyInstance;
let ours: OpenApiDocument;
let spec: OpenApiDocument;
let ourOperation: Operation;
let specOperation: Operation;

beforeAll(async () => {
  app = await buildApp(testConfig());
  ours = await resolveRefs(await fetchDocument(app));
  spec = await resolveRefs(await readSpec());
  ourOperation = operationOf(ours, '/plants', 'post');
  specOperation = operationOf(spec, '/plants', 'post');
});
afterAll(async () => {
  await app.close();
});

describe('the OpenAPI documents served', () => {
  it.each(['/openapi.json', '/docs/json'])('%s passes the OpenAPI validator', async (url) => {
    const result = await validate(structuredClone(await fetchDocument(app, url)) as Parameters<typeof validate>[0]);
    expect(result.valid, compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  it('the validator rejects a document that breaks OpenAPI (it is not a rubber stamp)', async () => {
    const broken = structuredClone(await fetchDocument(app));
    // OpenAPI knows no such security scheme type.
    broken.components = { ...broken.components, securitySchemes: { bearerAuth: { type: 'token', scheme: 'bearer' } } };
    const result = await validate(broken as Parameters<typeof validate>[0]);
    expect(result.valid).toBe(false);
  });
});

describe('POST /plants matches the interface', () => {
  it('has a required JSON request body that is a NewPlant', () => {
    for (const operation of [ourOperation, specOperation]) {
      expect(operation.requestBody?.required).toBe(true);
      expect(Object.keys(operation.requestBody?.content ?? {})).toEqual(['application/json']);
      expect(shapeOf(jsonSchemaOf(operation.requestBody?.content))).toEqual(NEW_PLANT);
    }
  });

  it('answers 200 with a Plant', () => {
    for (const operation of [ourOperation, specOperation]) {
      expect(Object.keys(operation.responses['200']?.content ?? {})).toEqual(['application/json']);
      expect(shapeOf(jsonSchemaOf(operation.responses['200']?.content))).toEqual(PLANT);
    }
  });

  it('answers 400 with an Error', () => {
    for (const operation of [ourOperation, specOperation]) {
      expect(shapeOf(jsonSchemaOf(operation.responses['400']?.content))).toEqual(ERROR);
    }
  });

  it("documents every one of the interface's statuses, and only the known further ones", () => {
    const specStatuses = Object.keys(specOperation.responses);
    expect(specStatuses.sort()).toEqual(['200', '400']);
    expect(Object.keys(ourOperation.responses).sort()).toEqual([...specStatuses, ...FURTHER_ERROR_STATUSES].sort());
  });

  it.each(FURTHER_ERROR_STATUSES)('answers %s with the Error schema', (status) => {
    const response = ourOperation.responses[status];
    expect(Object.keys(response?.content ?? {})).toEqual(['application/json']);
    expect(shapeOf(jsonSchemaOf(response?.content))).toEqual(shapeOf(jsonSchemaOf(specOperation.responses['400']?.content)));
  });

  it('requires HTTP bearer authentication', () => {
    const schemesOf = (document: OpenApiDocument, operation: Operation) =>
      (operation.security ?? document.security ?? []).map((requirement) =>
        Object.keys(requirement).map((name) => document.components?.securitySchemes?.[name]),
      );
    expect(schemesOf(spec, specOperation)).toEqual([[{ type: 'http', scheme: 'bearer' }]]);
    // The same scheme, with what it adds: the JWT format and a description.
    expect(schemesOf(ours, ourOperation)).toMatchObject(schemesOf(spec, specOperation));
  });
});

describe('scopes per operation', () => {
  it.each([
    ['/plants', 'post', 'plants:write'],
    ['/plants', 'get', 'plants:read'],
    ['/plants/{id}', 'get', 'plants:read'],
    ['/plants/{id}', 'delete', 'plants:write'],
  ])('%s %s needs %s, and documents its 401 and 403', (path, method, scope) => {
    const operation = operationOf(ours, path, method);
    // A bearer scheme's requirement lists no scopes (OpenAPI gives scopes to OAuth2 and OpenID Connect): the scope is named beside it.
    expect(operation.security).toEqual([{ bearerAuth: [] }]);
    expect((operation as { 'x-required-scopes'?: string[] })['x-required-scopes']).toEqual([scope]);
    expect(operation.description).toContain(`Needs a token granting the scope \`${scope}\``);
    for (const status of ['401', '403']) expect(Object.keys(operation.responses[status]?.headers ?? {})).toContain('WWW-Authenticate');
  });

  it('declares a bearer scheme of JWT format, which /docs lets a person paste a token into', () => {
    expect(ours.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(ours.openapi).toMatch(/^3\.1\./);
  });
});

describe('the paths of the whole Plant Store (../shared/spec/plant-store-full.openapi.json)', () => {
  let full: OpenApiDocument;
  let ours: OpenApiDocument;
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp(testConfig());
    [full, ours] = await Promise.all([readSpec(FULL_SPEC_URL).then(resolveRefs), fetchDocument(app).then(resolveRefs)]);
  });
  afterAll(async () => {
    await app.close();
  });

  const specOperations = () =>
    Object.entries(full.paths).flatMap(([path, item]) => Object.entries(item ?? {}).map(([method, operation]) => ({ path, method, operation: operation as Operation })));

  it('has every operation of it, at the same path and method', () => {
    expect(specOperations().map(({ path, method }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(['DELETE /plants/{id}', 'GET /plants', 'POST /plants']);
    for (const { path, method } of specOperations()) expect(ours.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
  });

  it('takes the same parameters, with the same places, requiredness, types and formats', () => {
    const compared: string[] = [];
    for (const { path, method, operation } of specOperations()) {
      const ourParameters = new Map((operationOf(ours, path, method).parameters ?? []).map((parameter) => [parameter.name, parameter]));
      for (const parameter of operation.parameters ?? []) {
        compared.push(`${parameter.name} of ${method.toUpperCase()} ${path}`);
        const ourParameter = ourParameters.get(parameter.name);
        expect(ourParameter, `${parameter.name} of ${method.toUpperCase()} ${path}`).toMatchObject({ in: parameter.in });
        expect(ourParameter?.required ?? false).toBe(parameter.required ?? false);
        expect(ourParameter?.schema).toMatchObject({ type: parameter.schema?.type, format: parameter.schema?.format });
      }
    }
    expect(compared.sort()).toEqual(['id of DELETE /plants/{id}', 'limit of GET /plants']);
  });

  it('answers success with the same statuses', () => {
    expect(specOperations()).toHaveLength(3);
    for (const { path, method, operation } of specOperations()) {
      const success = (responses: Operation['responses']) => Object.keys(responses).filter((status) => status.startsWith('2'));
      expect(success(operationOf(ours, path, method).responses), `${method.toUpperCase()} ${path}`).toEqual(success(operation.responses));
    }
  });

  it('lists each plant as the interface\'s Plant, with its id', () => {
    const items = (operation: Operation) => (jsonSchemaOf(operation.responses['200']?.content) as { items?: Parameters<typeof shapeOf>[0] } | undefined)?.items;
    const ourPlant = shapeOf(items(operationOf(ours, '/plants', 'get'))) as { properties: Record<string, unknown>; required: string[] };
    const specPlant = shapeOf(items(operationOf(full, '/plants', 'get'))) as { properties: Record<string, unknown>; required: string[] };
    expect(ourPlant.properties).toEqual({ ...specPlant.properties, id: { type: 'integer', format: 'int64' } });
    expect(ourPlant.required.sort()).toEqual([...specPlant.required, 'id'].sort());
  });
});

describe('int64 ids', () => {
  /** Every int64 in the document as served: schemas by their place, parameters by their operation and name, with what describes them. */
  function int64Descriptions(document: OpenApiDocument): Map<string, unknown> {
    const found = new Map<string, unknown>();
    const visit = (node: unknown, place: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      const schema = record.schema as Record<string, unknown> | undefined;
      if (typeof record.in === 'string' && schema?.format === 'int64') found.set(`${place} (${record.in} parameter ${String(record.name)})`, record.description);
      else if (record.format === 'int64') found.set(place, record.description);
      for (const [key, value] of Object.entries(record)) visit(value, `${place}/${key}`);
    };
    visit(document, '#');
    return found;
  }

  it('every one, in the schemas and the parameters, says that values beyond 2^53 need a JSON parser that keeps big integers, and how in JavaScript', async () => {
    const descriptions = int64Descriptions(await fetchDocument(app));
    const places = [...descriptions.keys()];
    for (const expected of [
      /^#\/components\/schemas\/NewPlant\/properties\/id$/,
      /^#\/components\/schemas\/StoredPlant\/properties\/id$/,
      /^#\/paths\/\/plants\/get\/parameters\/\d+ \(query parameter after\)$/,
      /^#\/paths\/\/plants\/\{id\}\/get\/parameters\/\d+ \(path parameter id\)$/,
      /^#\/paths\/\/plants\/\{id\}\/delete\/parameters\/\d+ \(path parameter id\)$/,
    ]) {
      expect(places.some((place) => expected.test(place)), `${String(expected)} among ${places.join(', ')}`).toBe(true);
    }
    for (const [place, description] of descriptions) {
      expect(description, place).toMatch(/beyond ±\(2\^53−1\) .*need a JSON parser that keeps big integers/);
      expect(description, place).toMatch(/lossless-json, or JSON\.parse with a reviver that reads context\.source/);
    }
  });
});
