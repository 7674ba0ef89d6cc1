import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, startTestApp, type TestApp } from '../../tests/helpers/app.js';
import { storeByPlantName } from '../../tests/helpers/scripted-store.js';

/**
 * The common tRPC request is answered by server/fast-path/trpc-direct-call.ts, not by tRPC's own
 * Fastify handler; a query string sends the same request to tRPC's handler. Both must answer
 * alike: the same status, the same headers a client reads, the same body.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ overrides: { store: storeByPlantName } });
});
afterAll(async () => {
  await testApp.close();
});

const token = authHeaders();
const cases: [string, string, Record<string, string>][] = [
  ['a new plant', '{"id":1,"name":"Monstera","tag":"tropical"}', token],
  ['a plant without tag', '{"id":2,"name":"Fern"}', token],
  ['a body with a byte-order mark', '\uFEFF{"id":3,"name":"Fern"}', token],
  ['no token', '{"id":4,"name":"Fern"}', { 'content-type': 'application/json' }],
  ['a wrong token', '{"id":5,"name":"Fern"}', authHeaders('not-a-token')],
  ['a string id', '{"id":"6","name":"Fern"}', token],
  ['an unknown field', '{"id":7,"name":"Fern","colour":"green"}', token],
  ['invalid JSON', '{"id":8,', token],
  ['an empty body', '', token],
  ['an array body', '[1,2]', token],
  ['a content type with parameters', '{"id":9,"name":"Fern"}', { ...token, 'content-type': 'Application/JSON; charset=utf-8' }],
  ['a taken id', '{"id":10,"name":"taken"}', token],
  ['a database outage', '{"id":11,"name":"database down"}', token],
  ['a failing store', '{"id":12,"name":"bug"}', token],
  ['an output that breaks the schema', '{"id":13,"name":"bad output"}', token],
];

async function answer(url: string, payload: string, headers: Record<string, string>) {
  const response = await testApp.app.inject({ method: 'POST', url, payload, headers });
  const { 'content-type': contentType, vary, 'www-authenticate': challenge } = response.headers;
  return { status: response.statusCode, contentType, vary, challenge, body: response.json<unknown>() };
}

describe('the direct tRPC call answers as tRPC does', () => {
  it.each(cases)('%s', async (_case, payload, headers) => {
    const direct = await answer('/trpc/createPlant', payload, headers);
    const viaTrpc = await answer('/trpc/createPlant?via=trpc', payload, headers);
    expect(direct).toEqual(viaTrpc);
    expect(direct.contentType).toBe('application/json');
  });
});
