import type * as FastPath from '@plant-store/fast-path';
import type * as FastifyAdapter from '@trpc/server/adapters/fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authHeaders, postPlant, startTestApp, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';

/**
 * The fast path serves only with the @trpc/server and trpc-to-openapi it was tested with. Here
 * the versions it finds installed are faked through its `installedVersion` option (the installed
 * packages are left alone): with a mismatch the service serves with the stock adapters and says
 * so in one warning.
 */
const installed = vi.hoisted(() => ({ versionOf: undefined as ((name: string) => string | undefined) | undefined }));
vi.mock('@plant-store/fast-path', async (importOriginal) => {
  const fastPath = await importOriginal<typeof FastPath>();
  const createFastHandlers: typeof fastPath.createFastHandlers = (options) =>
    fastPath.createFastHandlers(installed.versionOf ? { ...options, installedVersion: installed.versionOf } : options);
  return { ...fastPath, createFastHandlers };
});
// Calls to tRPC's own request handler, the stock /trpc adapter, are counted.
const stock = vi.hoisted(() => ({ trpcCalls: 0 }));
vi.mock('@trpc/server/adapters/fastify', async (importOriginal) => {
  const adapter = await importOriginal<typeof FastifyAdapter>();
  const fastifyRequestHandler: typeof adapter.fastifyRequestHandler = (options) => {
    stock.trpcCalls += 1;
    return adapter.fastifyRequestHandler(options);
  };
  return { ...adapter, fastifyRequestHandler };
});

let testApp: TestApp | undefined;
afterEach(async () => {
  installed.versionOf = undefined;
  stock.trpcCalls = 0;
  await testApp?.close();
});

async function startWithLogs() {
  const logs = captureLogs();
  testApp = await startTestApp({ env: { FAST_PATH: 'on', LOG_LEVEL: 'info' }, overrides: { logStream: logs.stream } });
  await testApp.app.ready();
  const warnings = () => logs.lines().filter((line) => line.level === 40);
  return { app: testApp.app, warnings };
}

async function getPlantOverTrpc(app: TestApp['app']) {
  const response = await app.inject({
    method: 'GET',
    url: `/trpc/getPlant?input=${encodeURIComponent('{"id":1}')}`,
    headers: authHeaders(),
  });
  return { status: response.statusCode, body: response.json<unknown>() };
}

describe('the fast path with versions of tRPC and trpc-to-openapi it was not tested with', () => {
  it('stays off: the stock adapters serve REST and /trpc, after one warning that says which version was found and which expected', async () => {
    const { TESTED_VERSIONS } = await vi.importActual<typeof FastPath>('@plant-store/fast-path');
    const expected = TESTED_VERSIONS['trpc-to-openapi'];
    installed.versionOf = (name) => (name === 'trpc-to-openapi' ? '3.99.0' : TESTED_VERSIONS['@trpc/server']);
    const { app, warnings } = await startWithLogs();

    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.msg).toBe(
      `fast path off: trpc-to-openapi 3.99.0 is installed, ${expected} expected; the stock tRPC and trpc-to-openapi adapters serve the API, as with FAST_PATH=off`,
    );
    expect(warnings()[0]?.versions).toEqual([{ packageName: 'trpc-to-openapi', found: '3.99.0', expected }]);
    // Only the fast path mounts an operation as a route of its own; the stock plugin has one catch-all.
    expect(app.hasRoute({ method: 'POST', url: '/plants' })).toBe(false);
    const created = await postPlant(app, { id: 1, name: 'Fern' });
    expect({ status: created.statusCode, body: created.json<unknown>() }).toEqual({ status: 200, body: { name: 'Fern' } });
    expect(await getPlantOverTrpc(app)).toEqual({ status: 200, body: { result: { data: { id: 1, name: 'Fern' } } } });
    expect(stock.trpcCalls).toBe(1);
    expect(warnings()).toHaveLength(1);
  });

  it('is on, with no warning, when they are the tested versions', async () => {
    const { app, warnings } = await startWithLogs();
    expect(warnings()).toEqual([]);
    expect(app.hasRoute({ method: 'POST', url: '/plants' })).toBe(true);
    await postPlant(app, { id: 1, name: 'Fern' });
    expect(await getPlantOverTrpc(app)).toEqual({ status: 200, body: { result: { data: { id: 1, name: 'Fern' } } } });
    expect(stock.trpcCalls).toBe(0);
  });
});
