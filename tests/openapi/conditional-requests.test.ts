// What /openapi.json says of changing a plant and of conditional requests: PATCH /plants/{id} with its media
// types, If-Match, answers and scope; If-None-Match, 304 and ETag on GET /plants/{id}; the tag filter of the list.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import { fetchDocument, operationOf, type OpenApiDocument } from '../helpers/openapi-reading.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string; maxLength?: number };
}
interface Response {
  headers?: Record<string, { $ref?: string }>;
  content?: Record<string, { examples?: Record<string, unknown> }>;
}
interface RawOperation {
  operationId?: string;
  'x-required-scopes'?: string[];
  parameters?: Parameter[];
  requestBody?: {
    required?: boolean;
    content: Record<string, { schema?: { properties?: Record<string, unknown>; $ref?: string }; examples?: Record<string, unknown> }>;
  };
  responses: Record<string, Response>;
}

let document: OpenApiDocument;
const operation = (path: string, method: string) => operationOf(document, path, method) as unknown as RawOperation;
beforeAll(async () => {
  const app = await buildApp(testConfig());
  document = await fetchDocument(app);
  await app.close();
});

describe('PATCH /plants/{id}', () => {
  it('is updatePlant, taking a merge patch or JSON of name and tag, never the id or ifMatch, with scope plants:write', () => {
    const patch = operation('/plants/{id}', 'patch');
    expect(patch.operationId).toBe('updatePlant');
    expect(patch['x-required-scopes']).toEqual(['plants:write']);
    expect(Object.keys(patch.requestBody?.content ?? {})).toEqual(['application/merge-patch+json', 'application/json']);
    for (const media of Object.values(patch.requestBody?.content ?? {}))
      expect(Object.keys(media.schema?.properties ?? {})).toEqual(['name', 'tag']);
    expect(Object.keys(patch.requestBody?.content['application/merge-patch+json']?.examples ?? {})).toContain('renamed');
  });

  it('takes If-Match as a header and documents 200, 400, 401, 403, 404, 412 and 415, each with an example', () => {
    const patch = operation('/plants/{id}', 'patch');
    expect(patch.parameters?.find((parameter) => parameter.name === 'If-Match')).toMatchObject({
      in: 'header',
      schema: { type: 'string' },
    });
    for (const status of ['200', '400', '401', '403', '404', '412', '415']) {
      expect(Object.keys(patch.responses[status]?.content?.['application/json']?.examples ?? {}), status).toHaveLength(1);
    }
    expect(patch.responses['200']?.headers?.ETag).toMatchObject({ required: true, schema: { type: 'string' } });
  });

  it('DELETE takes If-Match and documents 412', () => {
    const remove = operation('/plants/{id}', 'delete');
    expect(remove.parameters?.map((parameter) => parameter.name)).toContain('If-Match');
    expect(remove.responses['412']).toBeDefined();
  });
});

describe('GET /plants/{id} and GET /plants', () => {
  it('GET /plants/{id} takes If-None-Match, answers ETag, and documents 304 with the ETag and no body', () => {
    const get = operation('/plants/{id}', 'get');
    expect(get.parameters?.find((parameter) => parameter.name === 'If-None-Match')).toMatchObject({ in: 'header' });
    expect(get.responses['200']?.headers?.ETag).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(get.responses['304']?.headers?.ETag).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(get.responses['304']?.content).toBeUndefined();
  });

  it('says which headers every such answer carries: generated clients type a header left unsaid, or referred to, as always there', () => {
    const list = operation('/plants', 'get');
    // No Link on the last page.
    expect(list.responses['200']?.headers?.Link).toMatchObject({ required: false });
    expect(list.responses['200']?.headers?.['X-Request-Id']).toMatchObject({ required: true });
    // Only an encoded body's 415 has it; one for the media type has not.
    expect(operation('/plants/{id}', 'patch').responses['415']?.headers).toMatchObject({
      'Accept-Encoding': { required: false },
      'Accept-Patch': { required: false },
    });
    expect(operation('/plants', 'post').responses['401']?.headers?.['WWW-Authenticate']).toMatchObject({ required: true });
    expect(JSON.stringify(document, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(
      '#/components/headers/',
    );
  });

  it('GET /plants takes one tag, at most as long as a tag can be', () => {
    const list = operation('/plants', 'get');
    expect(list.parameters?.find((parameter) => parameter.name === 'tag')).toMatchObject({
      in: 'query',
      schema: { type: 'string', maxLength: 100 },
    });
  });
});
