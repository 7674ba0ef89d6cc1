// Every status POST /plants documents carries an example, and each example is true: its request,
// sent to the real app (with MongoDB), answers exactly the documented body.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_PLANT_EXAMPLES, MORE_CREATE_PLANT_REQUESTS, REQUEST_ID_PLACEHOLDER, type CreatePlantStatus, type ExampleRequest } from '../../schemas/examples.js';
import { int64Json } from '../../schemas/int64-json.js';
import { buildApp } from '../../server/app.js';
import { startTestApp, testConfig, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { fetchDocument, operationOf, type Operation } from './openapi-reading.js';
import { scriptedStore } from '../helpers/scripted-store.js';

const AUTHORIZATION = { valid: `Bearer ${TEST_TOKEN}`, invalid: 'Bearer not-a-token-we-issued', none: undefined };

function send(app: FastifyInstance, { token, contentType, body }: ExampleRequest) {
  const authorization = AUTHORIZATION[token];
  return app.inject({
    method: 'POST',
    url: '/plants',
    headers: { 'content-type': contentType, ...(authorization !== undefined && { authorization }) },
    payload: contentType === 'application/json' ? int64Json.stringify(body) : String(body),
  });
}

/** The one example the document shows for a status, as the document shows it. */
function documentedExample(operation: Operation, status: string) {
  const examples = Object.values(operation.responses[status]?.content?.['application/json']?.examples ?? {});
  expect(examples, `examples documented for ${status}`).toHaveLength(1);
  return examples[0]?.value;
}

const failingStore = scriptedStore({ create: () => Promise.reject(new Error('simulated failure inside the store')) });

let testApp: TestApp;
let operation: Operation;

beforeAll(async () => {
  testApp = await startTestApp();
  operation = operationOf(await fetchDocument(testApp.app), '/plants', 'post');
});
afterAll(async () => {
  await testApp.close();
});

describe('the examples in the OpenAPI document', () => {
  it('exist for every documented status, and are the ones in schemas/examples.ts', () => {
    for (const status of Object.keys(operation.responses)) {
      expect(documentedExample(operation, status)).toEqual(CREATE_PLANT_EXAMPLES[Number(status) as CreatePlantStatus].response);
    }
  });

  it('offer the short JSON requests on the request body, to try out', () => {
    const offered = operation.requestBody?.content['application/json']?.examples ?? {};
    expect(offered).toMatchObject({
      created: { value: CREATE_PLANT_EXAMPLES[200].request.body },
      idNotInteger: { value: CREATE_PLANT_EXAMPLES[400].request.body },
      idTaken: { value: CREATE_PLANT_EXAMPLES[409].request.body },
    });
  });
});

describe('each example request answers its documented body exactly', () => {
  it.each([200, 400, 401, 413, 415] as const)('%s', async (status) => {
    const response = await send(testApp.app, CREATE_PLANT_EXAMPLES[status].request);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual(documentedExample(operation, String(status)));
  });

  it('409, once the 200 example has stored its plant', async () => {
    expect((await send(testApp.app, CREATE_PLANT_EXAMPLES[200].request)).statusCode).toBe(200);
    const response = await send(testApp.app, CREATE_PLANT_EXAMPLES[409].request);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual(documentedExample(operation, '409'));
  });

  it.each(Object.entries(MORE_CREATE_PLANT_REQUESTS))('%s, a further request offered to try out, as documented', async (name, example) => {
    expect(operation.requestBody?.content['application/json']?.examples?.[name]?.value).toEqual(example.body);
    const response = await send(testApp.app, { token: 'valid', contentType: 'application/json', body: example.body });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(example.response);
  });

  it('500, when the store fails unexpectedly', async () => {
    const app = await buildApp(testConfig(), { store: failingStore });
    try {
      const response = await send(app, CREATE_PLANT_EXAMPLES[500].request);
      expect(response.statusCode).toBe(500);
      // The message names the request's own id (a fresh UUID), so the document shows a
      // placeholder there: the body must be the documented one with that id in its place.
      const documented = documentedExample(operation, '500') as { message: string };
      const requestId = String(response.headers['x-request-id']);
      expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(response.json()).toEqual({ ...documented, message: documented.message.replace(REQUEST_ID_PLACEHOLDER, requestId) });
    } finally {
      await app.close();
    }
  });

  it('503, when MongoDB cannot be reached', async () => {
    // Port 9 (discard) has no MongoDB; 300 ms keeps the wait for it short.
    const app = await buildApp(testConfig({ MONGODB_URI: 'mongodb://127.0.0.1:9/plantstore', MONGODB_TIMEOUT_MS: '300' }));
    try {
      const response = await send(app, CREATE_PLANT_EXAMPLES[503].request);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual(documentedExample(operation, '503'));
    } finally {
      await app.close();
    }
  });
});
