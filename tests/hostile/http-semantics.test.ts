// HTTP as RFC 9110 and 9112 have it, sent to the service process in both modes: odd request
// targets, percent-escapes, media types and content codings, HEAD, methods a path does not
// serve, empty query parameters, CORS preflights, pipelining, and the failed-auth limit.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { RawResponse } from '../helpers/http-responses.js';
import { HOSTILE_TOKEN, rawRequest, useHostileService, type HostileService } from '../helpers/hostile-service.js';
import { openRawSocket, postHead } from '../helpers/raw-socket.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const ORIGIN = 'https://garden.example';
const bearer = { authorization: `Bearer ${HOSTILE_TOKEN}` };
const json = { ...bearer, 'content-type': 'application/json' };

/** The REST `Error` shape: exactly `{ error: status, message }`, as JSON. */
function expectErrorBody(answer: RawResponse, status: number, message?: string | RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toStrictEqual(['error', 'message']);
  expect(body.error).toBe(status);
  if (message !== undefined) expect(body.message).toMatch(message);
}

/** tRPC's error envelope with this status. */
function expectTrpcError(answer: RawResponse, status: number) {
  expect(answer.status).toBe(status);
  expect(JSON.parse(answer.body)).toMatchObject({ error: { data: { httpStatus: status } } });
}

/** An answer's headers but those that differ from one answer to the next (Date, X-Request-Id). */
function lasting(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date' && name !== 'x-request-id'));
}

/** Nothing was logged at error level, and no stack at any level. */
function expectNoErrorLogged(service: HostileService) {
  expect(service.output()).not.toMatch(/"level":50|"stack":/);
}

/** `application/json` as a client may write it: any casing, perhaps a charset parameter with spaces around it. */
const jsonMediaType = fc
  .tuple(
    fc.constantFrom('application', 'APPLICATION', 'Application', 'aPpLiCaTiOn'),
    fc.constantFrom('json', 'JSON', 'Json', 'jSoN'),
    fc.constantFrom('', '; charset=utf-8', ';charset=UTF-8', ' ; Charset="utf-8"', '; CHARSET=utf-8'),
  )
  .map(([type, subtype, parameters]) => `${type}/${subtype}${parameters}`);

describe.each(['on', 'off'])('the service process with FAST_PATH=%s', (fastPath) => {
  const service = useHostileService({ FAST_PATH: fastPath, CORS_ORIGINS: ORIGIN });
  const stored: number[] = [];

  it('a * request target answers 400 in the Error shape, whatever the method, and logs no stack', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']) {
      const headers = method === 'OPTIONS' ? { origin: ORIGIN, 'access-control-request-method': 'POST' } : json;
      const answer = await service.exchange(
        rawRequest(method, '*', headers, ['POST', 'PUT', 'PATCH'].includes(method) ? '{"id":1,"name":"Star"}' : undefined),
        { head: method === 'HEAD' },
      );
      if (method === 'HEAD') expect(answer.status).toBe(400);
      else expectErrorBody(answer, 400, 'the request target * names no resource: send a path such as /plants');
    }
    await service.checkAfterBatch(stored);
    expectNoErrorLogged(service);
  });

  it("a percent-escape that is not UTF-8 answers 400: the Error shape, and tRPC's envelope under /trpc", async () => {
    for (const path of ['/plants/%ff', '/plants/%', '/plants/%zz', '/plants/%c3%28', '/plants%ff', '/healthz%ff', '/nope/%ff']) {
      for (const method of ['GET', 'DELETE']) expectErrorBody(await service.exchange(rawRequest(method, path, bearer)), 400, /percent|%/);
    }
    expectErrorBody(await service.exchange(rawRequest('POST', '/plants/%ff', json, '{"id":2,"name":"Escaped"}')), 400);
    expectTrpcError(await service.exchange(rawRequest('GET', '/trpc/%ff', bearer)), 400);
    for (const query of ['tag=%ff', 'tag=%', 'limit=%zz', 'tag=%c3%28', 'after=1&tag=x%ffy']) {
      expectErrorBody(await service.exchange(rawRequest('GET', `/plants?${query}`, bearer)), 400, 'the request query is not valid');
    }
    expectTrpcError(await service.exchange(rawRequest('GET', '/trpc/listPlants?input=%ff', bearer)), 400);
    // Escapes of UTF-8 text are read as usual.
    expect((await service.exchange(rawRequest('GET', '/plants?tag=%C3%A9t%C3%A9&limit=%31', bearer))).status).toBe(200);
    await service.checkAfterBatch(stored);
    expectNoErrorLogged(service);
  });

  it('an Expect other than 100-continue answers 417 in the Error shape', async () => {
    for (const path of ['/plants/1', '/trpc/getPlant?input=%7B%22id%22%3A1%7D', '/healthz']) {
      const refused = await service.exchange(rawRequest('GET', path, { ...bearer, expect: 'teapot' }));
      expectErrorBody(refused, 417, 'the Expect header asks for what this service does not do: only 100-continue is understood');
    }
    await service.checkAfterBatch(stored);
    expectNoErrorLogged(service);
  });

  it('Expect: 100-continue: the 100 comes only once the body will be read, never before a refusal the head decides', async () => {
    const FIRST_LINE = /^HTTP\/1\.1 (\d{3}) /;
    /** The service's first answer to a head sent alone, then what follows the body once sent. */
    const sendAwaiting = async (path: string, headers: Record<string, string>, body: string, length = Buffer.byteLength(body)) => {
      const socket = await openRawSocket(service.url);
      socket.write(postHead(path, length, { ...headers, expect: '100-continue' }));
      await vi.waitFor(
        () => {
          expect(socket.received()).toContain('\r\n\r\n');
        },
        { timeout: 5_000, interval: 10 },
      );
      const first = Number(FIRST_LINE.exec(socket.received())?.[1]);
      if (first === 100) socket.write(body);
      else socket.socket.end();
      const { data } = await socket.closed.then(undefined, () => ({ data: socket.received() }));
      return { first, statuses: [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1])) };
    };
    const plantBody = (id: number) => JSON.stringify({ id, name: `Awaiting ${id}` });
    const admitted = { ...bearer, connection: 'close' };
    const stranger = { authorization: 'Bearer not-a-token-of-this-service', connection: 'close' };

    expect(await sendAwaiting('/plants', admitted, plantBody(701))).toStrictEqual({ first: 100, statuses: [100, 200] });
    expect(await sendAwaiting('/trpc/createPlant', admitted, plantBody(702))).toStrictEqual({ first: 100, statuses: [100, 200] });
    stored.push(701, 702);
    // Refused on what the head tells: no invitation to upload.
    for (const path of ['/plants', '/trpc/createPlant']) {
      expect(await sendAwaiting(path, stranger, plantBody(703))).toStrictEqual({ first: 401, statuses: [401] });
      expect(await sendAwaiting(path, { ...admitted, 'content-type': 'text/plain' }, 'Fern')).toStrictEqual({
        first: 415,
        statuses: [415],
      });
      expect(await sendAwaiting(path, admitted, plantBody(704), 10_000_000)).toStrictEqual({ first: 413, statuses: [413] });
    }
    // A media type another operation takes, but not this one.
    const mergePatch = { ...admitted, 'content-type': 'application/merge-patch+json' };
    expect(await sendAwaiting('/plants', mergePatch, plantBody(706))).toStrictEqual({ first: 415, statuses: [415] });
    expect(await sendAwaiting('/nowhere', admitted, plantBody(705))).toStrictEqual({ first: 404, statuses: [404] });
    expect(await sendAwaiting('/healthz', { ...admitted, 'content-type': 'text/plain' }, 'Fern')).toStrictEqual({
      first: 405,
      statuses: [405],
    });
    // A request without a body has nothing to hold back: its connection stays open for the next.
    const socket = await openRawSocket(service.url);
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${HOSTILE_TOKEN}\r\n`;
    socket.write(`${get('/plants/701')}expect: 100-continue\r\n\r\n`);
    await vi.waitFor(() => {
      expect(socket.received()).toMatch(/HTTP\/1\.1 200 [^]*"name":"Awaiting 701"/);
    });
    socket.write(`${get('/healthz')}connection: close\r\n\r\n`);
    const { data } = await socket.closed;
    expect([...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))).toStrictEqual([100, 200, 200]);
    await service.checkAfterBatch(stored);
    expectNoErrorLogged(service);
  });

  it('media types compare case-insensitively, parameters included, on REST as on /trpc', async () => {
    let id = 100;
    await fc.assert(
      fc.asyncProperty(jsonMediaType, fc.constantFrom('/plants', '/trpc/createPlant'), async (mediaType, path) => {
        id += 1;
        const answer = await service.exchange(
          rawRequest('POST', path, { ...bearer, 'content-type': mediaType }, JSON.stringify({ id, name: `Cased ${mediaType}` })),
        );
        expect([mediaType, answer.status]).toStrictEqual([mediaType, 200]);
        stored.push(id);
      }),
      { seed: SEED, numRuns: 40 },
    );
    for (const mediaType of [
      'text/json',
      'application/jsonx',
      'application/json-patch+json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      expectErrorBody(
        await service.exchange(rawRequest('POST', '/plants', { ...bearer, 'content-type': mediaType }, '{"id":99,"name":"Odd"}')),
        415,
      );
    }
    await service.checkAfterBatch(stored);
  });

  it('a body with a Content-Encoding other than identity answers 415, saying so, and stores nothing', async () => {
    const codings = fc.constantFrom(
      'gzip',
      'br',
      'deflate',
      'compress',
      'x-gzip',
      'zstd',
      'GZIP',
      'gzip, identity',
      'identity, br',
      'identity,gzip',
      'aes128gcm',
    );
    await fc.assert(
      fc.asyncProperty(
        codings,
        fc.constantFrom('/plants', '/trpc/createPlant'),
        fc.integer({ min: 200, max: 299 }),
        async (coding, path, id) => {
          const answer = await service.exchange(
            rawRequest('POST', path, { ...json, 'content-encoding': coding }, JSON.stringify({ id, name: 'Encoded' })),
          );
          if (path === '/plants') expectErrorBody(answer, 415, /Content-Encoding/);
          else expectTrpcError(answer, 415);
          expect(answer.headers['accept-encoding']).toBe('identity');
        },
      ),
      { seed: SEED + 1, numRuns: 40 },
    );
    for (const [index, coding] of ['identity', 'IDENTITY', ' identity '].entries()) {
      expect(
        (
          await service.exchange(
            rawRequest('POST', '/plants', { ...json, 'content-encoding': coding }, JSON.stringify({ id: 300 + index, name: 'Plain' })),
          )
        ).status,
      ).toBe(200);
      stored.push(300 + index);
    }
    await service.checkAfterBatch(stored);
  });

  it('HEAD answers exactly as GET does, token checked and 404 included, without the body', async () => {
    const paths = [
      '/plants',
      '/plants?limit=1',
      '/plants?limit=0',
      '/plants?limit=',
      `/plants/${stored[0] ?? 1}`,
      '/plants/424242',
      '/plants/fern',
      '/nope',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/PLANTS/',
      `/trpc/getPlant?input=${encodeURIComponent(JSON.stringify({ id: stored[0] ?? 1 }))}`,
      '/trpc/listPlants?input=%7B%7D',
      '/trpc/createPlant',
    ];
    const auths = [{}, bearer, { authorization: 'Bearer wrong-token' }];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.constantFrom(...auths), async (path, auth) => {
        const get = await service.exchange(rawRequest('GET', path, auth));
        const head = await service.exchange(rawRequest('HEAD', path, auth), { head: true });
        expect({ path, status: head.status, headers: lasting(head.headers) }).toStrictEqual({
          path,
          status: get.status,
          headers: lasting(get.headers),
        });
        expect(head.body).toBe('');
      }),
      { seed: SEED + 2, numRuns: 60 },
    );
    await service.checkAfterBatch(stored);
  });

  it('a known path asked with a method it does not serve answers 405 with Allow and an Error body', async () => {
    const served: Record<string, string[]> = {
      '/plants': ['GET', 'HEAD', 'POST'],
      [`/plants/${stored[0] ?? 1}`]: ['GET', 'HEAD', 'PATCH', 'DELETE'],
      '/healthz': ['GET', 'HEAD'],
      '/readyz': ['GET', 'HEAD'],
      '/openapi.json': ['GET', 'HEAD'],
      '/docs': ['GET', 'HEAD'],
    };
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'PROPFIND', 'SEARCH', 'TRACE', 'LOCK'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(served)),
        fc.constantFrom(...methods),
        fc.boolean(),
        async (path, method, withBody) => {
          const allowed = served[path] ?? [];
          // A method the path serves would do what it does (store, delete): those are other tests'.
          if (allowed.includes(method)) return;
          const answer = await service.exchange(rawRequest(method, path, json, withBody ? '{"id":5,"name":"Wrong method"}' : undefined));
          expectErrorBody(answer, 405, `${method} is not allowed on ${path}: it answers ${allowed.join(', ')}`);
          expect(answer.headers.allow).toBe(allowed.join(', '));
        },
      ),
      { seed: SEED + 3, numRuns: 80 },
    );
    // RFC 10008 makes a QUERY without Content-Type a 400 where QUERY is served; where it is not, that is no reason.
    for (const body of [undefined, 'id=5']) {
      const answer = await service.exchange(rawRequest('QUERY', '/plants', bearer, body));
      expectErrorBody(answer, 405, 'QUERY is not allowed on /plants: it answers GET, HEAD, POST');
      expect(answer.headers.allow).toBe('GET, HEAD, POST');
    }
    // Unknown paths stay 404, whatever the method.
    for (const method of ['PUT', 'POST', 'GET'])
      expectErrorBody(await service.exchange(rawRequest(method, '/pots', json, method === 'GET' ? undefined : '{}')), 404);
    await service.checkAfterBatch(stored);
  });

  it('an empty limit= or after= answers 400 naming it; nothing is read as its default', async () => {
    for (const [query, parameter] of [
      ['limit=', 'limit'],
      ['after=', 'after'],
      ['limit', 'limit'],
      ['limit=2&after=', 'after'],
      ['after=&limit=5', 'after'],
    ] as const) {
      expectErrorBody(await service.exchange(rawRequest('GET', `/plants?${query}`, bearer)), 400, new RegExp(`^${parameter} must be`));
    }
    expectErrorBody(
      await service.exchange(rawRequest('GET', `/plants/${stored[0] ?? 1}?force=`, bearer)),
      400,
      /unknown parameter "force"/,
    );
    expectErrorBody(
      await service.exchange(rawRequest('DELETE', `/plants/${stored[0] ?? 1}?force=`, bearer)),
      400,
      /unknown parameter "force"/,
    );
    // The operation's path escaped, or in other letters: the same.
    expectErrorBody(await service.exchange(rawRequest('GET', '/plants/%31?force=', bearer)), 400, /unknown parameter "force"/);
    expectErrorBody(await service.exchange(rawRequest('GET', '/Plants/?limit=', bearer)), 400, /^limit must be/);
    await service.checkAfterBatch(stored);
  });

  it('CORS preflights: 204 from a listed origin, no grant to another; an OPTIONS that is no preflight gets the 405 of a method not served', async () => {
    const preflight = (origin: string | undefined, requestMethod: string | undefined, path = '/plants') =>
      service.exchange(
        rawRequest('OPTIONS', path, {
          ...(origin !== undefined && { origin }),
          ...(requestMethod !== undefined && { 'access-control-request-method': requestMethod }),
          'access-control-request-headers': 'authorization, content-type',
        }),
      );
    const allowed = await preflight(ORIGIN, 'POST');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    const other = await preflight('https://evil.example', 'DELETE', '/plants/1');
    expect(other.status).toBe(204);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    for (const [origin, method] of [
      [ORIGIN, undefined],
      [undefined, 'POST'],
      [undefined, undefined],
      ['https://evil.example', undefined],
    ] as const) {
      const refused = await preflight(origin, method);
      expectErrorBody(refused, 405, 'OPTIONS is not allowed on /plants: it answers GET, HEAD, POST');
      expect(refused.headers.allow).toBe('GET, HEAD, POST');
    }
    expectTrpcError(await preflight(ORIGIN, undefined, '/trpc/createPlant'), 405);
    await service.checkAfterBatch(stored);
  });

  it('pipelined requests take effect in the order they were sent: POST, DELETE, GET answer 200, 204, 404', async () => {
    for (const id of [7777, 7778, 7779]) {
      const keepAlive = { ...json, connection: 'keep-alive' };
      const answers = await service.pipeline([
        rawRequest('POST', '/plants', keepAlive, JSON.stringify({ id, name: 'Pipelined' })),
        rawRequest('DELETE', `/plants/${id}`, { ...bearer, connection: 'keep-alive' }),
        rawRequest('GET', `/plants/${id}`, bearer),
      ]);
      expect(answers.map((answer) => answer.status)).toStrictEqual([200, 204, 404]);
    }
    await service.checkAfterBatch(stored);
  });
});

describe.each(['on', 'off'])('the failed-auth limit in the service process with FAST_PATH=%s', (fastPath) => {
  const service = useHostileService({ FAST_PATH: fastPath, AUTH_FAILURE_LIMIT: '2', AUTH_FAILURE_WINDOW_MS: '60000' });

  it('refuses only what needs a token: probes and docs stay open to a locked-out address', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1)
      expect((await service.exchange(rawRequest('GET', '/plants', { authorization: 'Bearer wrong' }))).status).toBe(401);
    const refused = await service.exchange(rawRequest('GET', '/plants', bearer));
    expectErrorBody(refused, 429, /^too many failed authentications from this address: try again in \d+ s$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectTrpcError(await service.exchange(rawRequest('POST', '/trpc/createPlant', json, '{"id":1,"name":"Locked out"}')), 429);
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      const answer = await service.exchange(rawRequest('GET', path));
      expect([path, answer.status]).toStrictEqual([path, 200]);
    }
    await service.checkAfterBatch([]);
  });
});
