import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';
import { scriptedStore } from '../helpers/scripted-store.js';

/** Every failure answers exactly { error: <status>, message: <text> } as JSON, and never a stack trace. */
function expectErrorBody(response: LightMyRequestResponse, status: number, message: string | RegExp) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(status);
  if (typeof message === 'string') expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+|stack/i);
}

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { BODY_LIMIT_BYTES: '1024' } });
});
afterAll(async () => {
  await testApp.close();
});

describe('errors raised by Fastify answer the Error shape', () => {
  it('400 for malformed JSON', async () => {
    expectErrorBody(
      await postPlant(testApp.app, '{"id": 1, "name": '),
      400,
      'the request body is not valid JSON: Unexpected end of JSON input',
    );
    expectErrorBody(await postPlant(testApp.app, "{'id': 1}"), 400, /^the request body is not valid JSON: .*position 1/);
  });

  it('400 for an empty body', async () => {
    expectErrorBody(await postPlant(testApp.app, ''), 400, 'the request body is empty: send a JSON object');
    expectErrorBody(await postPlant(testApp.app, ' \n\t '), 400, 'the request body is empty: send a JSON object');
  });

  it('400 for JSON that is not an object', async () => {
    for (const body of ['[1, 2]', '"plant"', '42', 'null']) {
      expectErrorBody(await postPlant(testApp.app, body), 400, 'the request body must be a JSON object');
    }
  });

  it('400 for prototype-poisoning keys', async () => {
    const message = 'the request body uses a forbidden key: __proto__ or constructor.prototype';
    expectErrorBody(await postPlant(testApp.app, '{"id": 1, "name": "x", "__proto__": {"admin": true}}'), 400, message);
    expectErrorBody(await postPlant(testApp.app, '{"id": 1, "name": "x", "constructor": {"prototype": {"admin": true}}}'), 400, message);
  });

  it('413 for a body over the documented limit, saying the limit', async () => {
    const response = await postPlant(testApp.app, { id: 1, name: 'x'.repeat(2000) });
    expectErrorBody(response, 413, 'the request body is larger than the limit of 1024 bytes');
  });

  it('415 for a body that is not JSON', async () => {
    const message = 'the body must be JSON: send it with Content-Type: application/json';
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const response = await postPlant(testApp.app, 'id=1&name=x', { ...authHeaders(), 'content-type': type });
      expectErrorBody(response, 415, message);
    }
    const untyped = await testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      payload: '{"id": 1}',
    });
    expectErrorBody(untyped, 415, message);
  });

  it('400 for a POST with no body at all, to any spelling of the path trpc-to-openapi answers', async () => {
    const post = (url: string) => testApp.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    for (const url of ['/plants', '/plants/', '/PLANTS', '/Plants?x=1'])
      expectErrorBody(await post(url), 400, 'the request body must be a JSON object');
    expectErrorBody(await post('/plants//'), 404, 'no route for POST /plants//');
  });

  it('404 for unknown routes', async () => {
    expectErrorBody(await testApp.app.inject({ method: 'GET', url: '/nope' }), 404, 'no route for GET /nope');
    expectErrorBody(await testApp.app.inject({ method: 'GET', url: '/plants/1/leaves' }), 404, 'no route for GET /plants/1/leaves');
    const bodiless = await testApp.app.inject({ method: 'POST', url: '/nope', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expectErrorBody(bodiless, 404, 'no route for POST /nope');
  });

  it('405 with Allow for a known path asked with a method it does not serve', async () => {
    const nested = await testApp.app.inject({ method: 'POST', url: '/plants/1', headers: authHeaders(), payload: '{}' });
    expectErrorBody(nested, 405, 'POST is not allowed on /plants/1: it answers GET, HEAD, PATCH, DELETE');
    expect(nested.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
    // Allow names PATCH, so Accept-Patch says how (RFC 5789 section 3.1); a path without PATCH has none.
    expect(nested.headers['accept-patch']).toBe('application/merge-patch+json, application/json');
    const docs = await testApp.app.inject({ method: 'POST', url: '/docs', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expectErrorBody(docs, 405, 'POST is not allowed on /docs: it answers GET, HEAD');
    expect(docs.headers['accept-patch']).toBeUndefined();
    // A prefix's root route is served with a trailing slash too, though Fastify tells no hook of it.
    const docsSlash = await testApp.app.inject({ method: 'POST', url: '/docs/', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expectErrorBody(docsSlash, 405, 'POST is not allowed on /docs/: it answers GET, HEAD');
    // Swagger UI's own routes under /docs, and the probes, as their plugins add them.
    const asset = await testApp.app.inject({ method: 'DELETE', url: '/docs/static/index.html' });
    expectErrorBody(asset, 405, 'DELETE is not allowed on /docs/static/index.html: it answers GET, HEAD');
    expectErrorBody(
      await testApp.app.inject({ method: 'PUT', url: '/readyz' }),
      405,
      'PUT is not allowed on /readyz: it answers GET, HEAD',
    );
  });
});

describe('errors the service did not expect', () => {
  it('500 with a generic message and the request id; details only in the log', async () => {
    const logs = captureLogs();
    const failing = await startTestApp({
      env: { LOG_LEVEL: 'info' },
      overrides: {
        logStream: logs.stream,
        store: scriptedStore({ create: () => Promise.reject(new Error('disk on fire at /var/lib/secret-path')) }),
      },
    });
    try {
      const response = await postPlant(failing.app, { id: 1, name: 'x' });
      const requestId = String(response.headers['x-request-id']);
      expectErrorBody(response, 500, `Internal server error (request id ${requestId})`);
      expect(response.body).not.toContain('disk on fire');
      expect(logs.text()).toContain('disk on fire');
      expect(logs.text()).toContain(requestId);
      // Over /trpc alike, in tRPC's envelope.
      const call = await failing.app.inject({
        method: 'POST',
        url: '/trpc/createPlant',
        headers: authHeaders(),
        payload: '{"id":2,"name":"x"}',
      });
      const callId = String(call.headers['x-request-id']);
      expect(call.statusCode).toBe(500);
      expect(call.json()).toMatchObject({ error: { message: `Internal server error (request id ${callId})` } });
      expect(call.body).not.toContain('disk on fire');
      expect(logs.text()).toContain(callId);
    } finally {
      await failing.close();
    }
  });

  it('503 when the database cannot be reached, within the configured time', async () => {
    const offline = await startTestApp({ env: { MONGODB_URI: 'mongodb://127.0.0.1:9/plantstore', MONGODB_TIMEOUT_MS: '300' } });
    try {
      const started = Date.now();
      const response = await postPlant(offline.app, { id: 1, name: 'x' });
      expectErrorBody(response, 503, 'the plant database is unavailable, try again shortly');
      expect(response.headers['retry-after']).toBe('1');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await offline.app.close();
    }
  });
});
