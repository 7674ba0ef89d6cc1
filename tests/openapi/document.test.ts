// The generated OpenAPI document is valid OpenAPI, and POST /plants in it says what the
// interface says (its contract, tests/contract): same names, types, formats, requiredness,
// statuses and security. The document is compared after resolving $ref and merging allOf,
// so inline schemas against $ref, or allOf against a flat object, do not matter.
import { compileErrors, validate } from '@readme/openapi-parser';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import {
  fetchDocument,
  jsonSchemaOf,
  operationOf,
  resolveRefs,
  shapeOf,
  type OpenApiDocument,
  type Operation,
} from '../helpers/openapi-reading.js';
import {
  BEARER_SCHEME,
  CREATE_PLANT,
  ERROR,
  LIST_PLANTS,
  LISTED_PLANT,
  NEW_PLANT,
  PLANT,
  WHOLE_STORE_OPERATIONS,
} from '../helpers/plant-store-interface.js';
/** Statuses the service documents beyond the interface's 200 and 400, all with the Error body. */
// 408, 417, 429 and 431 come from the HTTP layer, before any operation runs (429 only with AUTH_FAILURE_LIMIT set).
const FURTHER_ERROR_STATUSES = ['401', '403', '408', '409', '413', '415', '417', '429', '431', '500', '503'];

let app: FastifyInstance;
let ours: OpenApiDocument;
let ourOperation: Operation;

beforeAll(async () => {
  app = await buildApp(testConfig());
  ours = await resolveRefs(await fetchDocument(app));
  ourOperation = operationOf(ours, '/plants', 'post');
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
    expect(CREATE_PLANT.requestBody).toStrictEqual(NEW_PLANT);
    expect(ourOperation.requestBody?.required).toBe(true);
    expect(Object.keys(ourOperation.requestBody?.content ?? {})).toEqual(['application/json']);
    expect(shapeOf(jsonSchemaOf(ourOperation.requestBody?.content))).toEqual(NEW_PLANT);
  });

  it('answers 200 with a Plant', () => {
    expect(CREATE_PLANT.responses['200']).toStrictEqual(PLANT);
    expect(Object.keys(ourOperation.responses['200']?.content ?? {})).toEqual(['application/json']);
    expect(shapeOf(jsonSchemaOf(ourOperation.responses['200']?.content))).toEqual(PLANT);
  });

  it('answers 400 with an Error', () => {
    expect(CREATE_PLANT.responses['400']).toStrictEqual(ERROR);
    expect(shapeOf(jsonSchemaOf(ourOperation.responses['400']?.content))).toEqual(ERROR);
  });

  it("documents every one of the interface's statuses, and only the known further ones", () => {
    const interfaceStatuses = Object.keys(CREATE_PLANT.responses);
    expect(interfaceStatuses.sort()).toEqual(['200', '400']);
    expect(Object.keys(ourOperation.responses).sort()).toEqual([...interfaceStatuses, ...FURTHER_ERROR_STATUSES].sort());
  });

  it.each(FURTHER_ERROR_STATUSES)('answers %s with the Error schema', (status) => {
    const response = ourOperation.responses[status];
    expect(Object.keys(response?.content ?? {})).toEqual(['application/json']);
    expect(shapeOf(jsonSchemaOf(response?.content))).toEqual(ERROR);
  });

  it('requires HTTP bearer authentication', () => {
    const schemes = (ourOperation.security ?? ours.security ?? []).map((requirement) =>
      Object.keys(requirement).map((name) => ours.components?.securitySchemes?.[name]),
    );
    // The interface's scheme, with what ours adds: the JWT format and a description.
    expect(schemes).toMatchObject([[BEARER_SCHEME]]);
  });
});

describe('error answers per operation', () => {
  it.each([
    ['/plants', 'post', '400', 'Invalid input or malformed JSON, or the request has a query parameter (none is taken)'],
    [
      '/plants/{id}',
      'get',
      '400',
      'The id is not an int64, the request has a query parameter (none is taken), or If-Match is neither `*` nor entity tags',
    ],
    [
      '/plants/{id}',
      'patch',
      '400',
      'Invalid change, an id in the body, unknown fields or malformed JSON; the id in the path is not an int64, the request has a query parameter (none is taken), or If-Match or If-None-Match is neither `*` nor entity tags',
    ],
    [
      '/plants/{id}',
      'delete',
      '400',
      'The id is not an int64, the request has a query parameter (none is taken) or a body, or If-Match or If-None-Match is neither `*` nor entity tags',
    ],
    [
      '/plants/{id}',
      'get',
      '412',
      'The plant has changed since it was read: its entity tag matches none of If-Match (compared strongly: a weak `W/` tag never matches), so it is not answered',
    ],
    [
      '/plants/{id}',
      'patch',
      '412',
      'The plant has changed since it was read: its entity tag matches none of If-Match (compared strongly: a weak `W/` tag never matches), or is one If-None-Match names (`*` names any); nothing was changed',
    ],
    [
      '/plants/{id}',
      'delete',
      '412',
      'The plant has changed since it was read: its entity tag matches none of If-Match (compared strongly: a weak `W/` tag never matches), or is one If-None-Match names (`*` names any); nothing was deleted',
    ],
  ])("%s %s describes its %s in its own words, not another operation's", (path, method, status, description) => {
    expect(operationOf(ours, path, method).responses[status]?.description).toBe(description);
  });
});

describe('answers to a body, on every operation whose method may bring one', () => {
  const operations = () =>
    Object.entries(ours.paths).flatMap(([path, item]) =>
      (['post', 'patch', 'put', 'delete'] as const).flatMap((method) => (item?.[method] ? [[path, method] as const] : [])),
    );

  it('documents 413, and 415 with Accept-Encoding, which refuses an encoded JSON body', () => {
    expect(operations().map(([path, method]) => `${method} ${path}`)).toEqual([
      'post /plants',
      'patch /plants/{id}',
      'delete /plants/{id}',
    ]);
    for (const [path, method] of operations()) {
      const { responses } = operationOf(ours, path, method);
      expect(responses['413'], `${method} ${path}`).toBeDefined();
      expect(Object.keys(responses['415']?.headers ?? {}), `${method} ${path}`).toContain('Accept-Encoding');
    }
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

  it('declares a bearer scheme of no one format (static tokens are opaque), which /docs lets a person paste a token into', () => {
    const scheme = ours.components?.securitySchemes?.bearerAuth;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(scheme).not.toHaveProperty('bearerFormat');
    expect(ours.openapi).toMatch(/^3\.1\./);
  });
});

describe('the paths of the whole Plant Store', () => {
  const name = ({ method, path }: { method: string; path: string }) => `${method.toUpperCase()} ${path}`;

  it('has every operation of it, at the same path and method', () => {
    expect(WHOLE_STORE_OPERATIONS.map(name).sort()).toEqual(['DELETE /plants/{id}', 'GET /plants', 'POST /plants']);
    for (const operation of WHOLE_STORE_OPERATIONS) expect(ours.paths[operation.path]?.[operation.method], name(operation)).toBeDefined();
  });

  it('takes the same parameters, with the same places, requiredness, types and formats', () => {
    const compared: string[] = [];
    for (const operation of WHOLE_STORE_OPERATIONS) {
      const ourParameters = new Map(
        (operationOf(ours, operation.path, operation.method).parameters ?? []).map((parameter) => [parameter.name, parameter]),
      );
      for (const parameter of operation.parameters) {
        compared.push(`${parameter.name} of ${name(operation)}`);
        const ourParameter = ourParameters.get(parameter.name);
        expect(ourParameter, `${parameter.name} of ${name(operation)}`).toMatchObject({ in: parameter.in });
        expect(ourParameter?.required ?? false).toBe(parameter.required);
        expect(ourParameter?.schema).toMatchObject({ type: parameter.type, format: parameter.format });
      }
    }
    expect(compared.sort()).toEqual(['id of DELETE /plants/{id}', 'limit of GET /plants']);
  });

  it('answers success with the same statuses', () => {
    const success = (statuses: string[]) => statuses.filter((status) => status.startsWith('2'));
    for (const operation of WHOLE_STORE_OPERATIONS) {
      expect(success(Object.keys(operationOf(ours, operation.path, operation.method).responses)), name(operation)).toEqual(
        success(Object.keys(operation.responses)),
      );
    }
  });

  it("lists each plant as the interface's Plant, with its id", () => {
    const listed = jsonSchemaOf(operationOf(ours, '/plants', 'get').responses['200']?.content);
    expect({ type: listed?.type }).toStrictEqual(LIST_PLANTS.responses['200']);
    const ourPlant = shapeOf(listed?.items) as { properties: Record<string, unknown>; required: string[] };
    expect(ourPlant.properties).toEqual({ ...LISTED_PLANT.properties, id: { type: 'integer', format: 'int64' } });
    expect(ourPlant.required.sort()).toEqual([...(LISTED_PLANT.required ?? []), 'id'].sort());
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
      if (typeof record.in === 'string' && schema?.format === 'int64')
        found.set(`${place} (${record.in} parameter ${String(record.name)})`, record.description);
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
      /^#\/components\/schemas\/DeletedPlant\/properties\/id$/,
      /^#\/paths\/\/plants\/get\/parameters\/\d+ \(query parameter after\)$/,
      /^#\/paths\/\/plants\/\{id\}\/get\/parameters\/\d+ \(path parameter id\)$/,
      /^#\/paths\/\/plants\/\{id\}\/delete\/parameters\/\d+ \(path parameter id\)$/,
    ]) {
      expect(
        places.some((place) => expected.test(place)),
        `${String(expected)} among ${places.join(', ')}`,
      ).toBe(true);
    }
    for (const [place, description] of descriptions) {
      expect(description, place).toMatch(/beyond ±\(2\^53−1\) .*need a JSON parser that keeps big integers/);
      expect(description, place).toMatch(/lossless-json, or JSON\.parse with a reviver that reads context\.source/);
    }
  });
});
