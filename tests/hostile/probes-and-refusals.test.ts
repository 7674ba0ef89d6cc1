// The service process, in both modes, against what a stranger can send that no route expects: a
// request without Host, prototype names as query parameters, JSON bodies writing a key twice,
// deep pipelining, probes called in a flood, and a probe that would take the stall signal from
// the orchestrator. Every line the process writes stays a JSON log line.
import { Agent, get } from 'node:http';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '@plant-store/service-launcher';
import type { RawResponse } from '../helpers/http-responses.js';
import {
  HOSTILE_TOKEN,
  JSON_WITH_TOKEN,
  type HostileService,
  messageOf,
  rawRequest,
  trpcQuery,
  useHostileService,
} from '../helpers/hostile-service.js';

const bearer = { authorization: `Bearer ${HOSTILE_TOKEN}` };

function expectErrorBody(answer: RawResponse, status: number, message: string | RegExp) {
  expect(answer.status).toBe(status);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toStrictEqual(['error', 'message']);
  expect(body.error).toBe(status);
  expect(body.message).toMatch(message);
}

async function storePlant(service: HostileService, id: number, name: string): Promise<void> {
  const created = await service.send({ method: 'POST', path: '/plants', body: JSON.stringify({ id, name }), headers: JSON_WITH_TOKEN });
  expect(created.status).toBe(200);
}

/** Lines of output that are not JSON log lines. */
const notJsonLines = (output: string) => output.split('\n').filter((line) => line !== '' && !line.startsWith('{"level":'));

describe.each(['on', 'off'])('the service process with FAST_PATH=%s', (fastPath) => {
  const service = useHostileService({ FAST_PATH: fastPath });

  it('a request without Host, or with two, or with two Content-Types: 400 in the Error shape, with a request id, and a log line', async () => {
    const answer = await service.exchange('GET /healthz HTTP/1.1\r\nconnection: close\r\n\r\n');
    expectErrorBody(answer, 400, 'the request has no Host header, which HTTP/1.1 requires: send Host: <the server name>');
    const id = answer.headers['x-request-id'];
    expect(id).toMatch(/\S/);
    // The log line is written once the answer has gone out, so it may come just after it.
    await vi.waitFor(() => {
      expect(service.output()).toMatch(new RegExp(`"reqId":"${id}".*"status":400`));
    });
    const twice = await service.exchange('GET /healthz HTTP/1.1\r\nhost: a\r\nhost: b\r\nconnection: close\r\n\r\n');
    expectErrorBody(twice, 400, 'the request has more than one Host header: send exactly one');
    expect(twice.headers['x-request-id']).toMatch(/\S/);
    const twoTypes = await service.exchange(
      'POST /plants HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\ncontent-type: text/plain\r\n' +
        `authorization: Bearer ${HOSTILE_TOKEN}\r\ncontent-length: 24\r\nconnection: close\r\n\r\n{"id":61,"name":"Twice"}`,
    );
    expectErrorBody(twoTypes, 400, 'the request has more than one Content-Type header: send exactly one');
    // HTTP/1.0 needs none.
    expect((await service.exchange('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('a Host that is no host and port (a b, x:abc, [::1): 400; a name, an address, a port or nothing at all is served', async () => {
    const withHost = (host: string) => service.exchange(`GET /healthz HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
    for (const host of ['a b', 'x:abc', '[::1', 'x:1:2', 'a/b', '%zz']) {
      expectErrorBody(
        await withHost(host),
        400,
        'the Host header is not a host name or address with an optional port: send Host: <the server name>[:<port>]',
      );
    }
    // A zone id as Node's own client sends it (`[::1%lo]`), and as RFC 6874 writes it.
    for (const host of [
      'localhost',
      'plants.example:8080',
      '127.0.0.1:3000',
      '[::1]:3000',
      '[::1%lo]:3000',
      '[fe80::1%25eth0]',
      'xn--bcher-kva.example',
      '',
    ]) {
      expect((await withHost(host)).status).toBe(200);
    }
  });

  it('an unknown transfer coding: 501, the connection closed, nothing stored; HTTP/2.0, 3.0 or 1.2: 505, /trpc too', async () => {
    for (const [id, coding] of [
      [67, 'gzip, chunked'],
      [68, 'foo, chunked'],
    ] as const) {
      const body = `{"id":${id},"name":"Coded"}`;
      const answer = await service.exchange(
        rawRequest(
          'POST',
          '/plants',
          { ...JSON_WITH_TOKEN, 'transfer-encoding': coding },
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
        ),
      );
      expectErrorBody(
        answer,
        501,
        `the transfer coding "${coding}" is not implemented: send Transfer-Encoding: chunked alone, or Content-Length`,
      );
      expect(answer.headers.connection).toBe('close');
      expect((await service.send({ method: 'GET', path: `/plants/${id}`, headers: bearer })).status).toBe(404);
    }
    const version = await service.exchange('GET /healthz HTTP/2.0\r\nhost: a\r\n\r\n');
    expectErrorBody(version, 505, 'HTTP/2.0 is not supported: send HTTP/1.1');
    expect(version.headers.connection).toBe('close');
    // Versions Node's parser does not read at all; a malformed one is no HTTP.
    for (const unread of ['3.0', '1.2']) {
      const answer = await service.exchange(`GET /plants HTTP/${unread}\r\nhost: a\r\n\r\n`);
      expectErrorBody(answer, 505, `HTTP/${unread} is not supported: send HTTP/1.1`);
      expect(answer.headers.connection).toBe('close');
    }
    expectErrorBody(await service.exchange('GET /plants HTTP/1.10\r\nhost: a\r\n\r\n'), 400, 'the request is not valid HTTP');
    // The request line alone in its packet, before its CRLF.
    expectErrorBody(await service.exchange('GET /plants HTTP/3.0'), 505, 'HTTP/3.0 is not supported: send HTTP/1.1');
    // Over /trpc in tRPC's envelope, with the same words and the answer's own status: no tRPC code stands for 505.
    const trpcVersion = await service.exchange('GET /trpc/listPlants HTTP/2.0\r\nhost: a\r\n\r\n');
    expect(trpcVersion.status).toBe(505);
    expect(JSON.parse(trpcVersion.body)).toMatchObject({
      error: { message: 'HTTP/2.0 is not supported: send HTTP/1.1', data: { code: 'BAD_REQUEST', httpStatus: 505 } },
    });
    // Refusals of what the client sent, not failures of the service: no error line, no stack.
    await vi.waitFor(() => {
      expect(service.output()).toContain('"status":505');
    });
    expect(service.output()).not.toMatch(/"level":50.*(transfer coding|HTTP\/2\.0)/);
    const body = '{"id":69,"name":"Chunked"}';
    const chunked = rawRequest(
      'POST',
      '/plants',
      { ...JSON_WITH_TOKEN, 'transfer-encoding': 'Chunked' },
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect((await service.exchange(chunked)).status).toBe(200);
    expect((await service.send({ method: 'DELETE', path: '/plants/69', headers: bearer })).status).toBe(204);
  });

  it('two Authorization headers: 400, whichever comes first; nothing stored', async () => {
    for (const tokens of [
      [HOSTILE_TOKEN, 'not-the-token'],
      ['not-the-token', HOSTILE_TOKEN],
    ]) {
      const answer = await service.exchange(
        'POST /plants HTTP/1.1\r\nhost: a\r\ncontent-type: application/json\r\n' +
          tokens.map((token) => `authorization: Bearer ${token}\r\n`).join('') +
          'content-length: 24\r\nconnection: close\r\n\r\n{"id":62,"name":"Twice"}',
      );
      expectErrorBody(answer, 400, 'the request has more than one Authorization header: send exactly one');
    }
    expect((await service.send({ method: 'GET', path: '/plants/62', headers: bearer })).status).toBe(404);
  });

  it('a method nothing here implements (FOO, CONNECT): 501 in the Error shape, after the answers before it; bytes that are no HTTP: 400', async () => {
    const unknownMethod = 'the request method is not one this service implements';
    const connect = 'CONNECT is not implemented: this service is no proxy';
    for (const [request, message] of [
      ['FOO /plants HTTP/1.1\r\nhost: a\r\n\r\n', unknownMethod],
      ['get /plants HTTP/1.1\r\nhost: a\r\n\r\n', unknownMethod],
      ['CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n', connect],
    ] as const) {
      const answer = await service.exchange(request);
      expectErrorBody(answer, 501, message);
      expect(answer.headers.connection).toBe('close');
    }
    // Behind a create whose body ends the packet's text just before the method: the create is answered, then the 501.
    for (const [id, refused, message] of [
      [65, 'FOO /plants HTTP/1.1\r\nhost: a\r\n\r\n', unknownMethod],
      [66, 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n', connect],
    ] as const) {
      const create = rawRequest('POST', '/plants', { ...JSON_WITH_TOKEN, connection: 'keep-alive' }, `{"id":${id},"name":"Piped"}`);
      const answers = await service.pipeline([create, refused]);
      expect(answers.map((answer) => answer.status)).toStrictEqual([200, 501]);
      expect(JSON.parse(answers[1]?.body ?? '')).toStrictEqual({ error: 501, message });
    }
    // The first bytes of a TLS handshake, sent to the plain HTTP port; a line that names no target and no version.
    expectErrorBody(
      await service.exchange(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])),
      400,
      'the request is not valid HTTP',
    );
    expectErrorBody(await service.exchange('HELLO THERE\r\n\r\n'), 400, 'the request is not valid HTTP');
    for (const id of [65, 66]) expect((await service.send({ method: 'DELETE', path: `/plants/${id}`, headers: bearer })).status).toBe(204);
    await service.checkAfterBatch([]);
  });

  it('a target in absolute form (GET http://host/plants/63) is served as its path is: answers, refusals and /trpc alike', async () => {
    await storePlant(service, 63, 'Absolute');
    const asPath = await service.exchange(rawRequest('GET', '/plants/63', bearer));
    const absolute = await service.exchange(rawRequest('GET', 'http://localhost/plants/63', bearer));
    expect(absolute.status).toBe(200);
    expect(absolute.body).toBe(asPath.body);
    expect(absolute.headers.etag).toBe(asPath.headers.etag);
    const listed = await service.exchange(rawRequest('GET', 'http://localhost/plants?limit=1', bearer));
    expect([listed.status, JSON.parse(listed.body)]).toStrictEqual([200, [{ id: 63, name: 'Absolute' }]]);
    const notAllowed = await service.exchange(rawRequest('PUT', 'http://localhost/plants/63', bearer));
    expectErrorBody(notAllowed, 405, 'PUT is not allowed on /plants/63: it answers GET, HEAD, PATCH, DELETE');
    const trpc = await service.exchange(rawRequest('GET', `http://localhost${trpcQuery('getPlant', '{"id":63}')}`, bearer));
    expect([trpc.status, JSON.parse(trpc.body)]).toStrictEqual([200, { result: { data: { id: 63, name: 'Absolute' } } }]);
    for (const target of [
      'ftp://localhost/plants/63',
      'http://user:pass@localhost/plants/63',
      'http://a@b@localhost/plants/63',
      'http://x:abc/plants/63',
      'http://[::1/plants/63',
      'http://%zz/plants/63',
      'http:///plants/63',
    ]) {
      expectErrorBody(
        await service.exchange(rawRequest('GET', target, bearer)),
        400,
        'the request target must be a path such as /plants, or an http URL with a host and no user name',
      );
    }
    expect((await service.exchange(rawRequest('DELETE', 'http://localhost/plants/63', bearer))).status).toBe(204);
    await service.checkAfterBatch([]);
  });

  it('a target holding a fragment (#...), which clients never send, is answered as without it', async () => {
    await storePlant(service, 64, 'Fragment');
    for (const [target, fragment] of [
      ['/plants/64', '#frag'],
      ['/plants?limit=1', '#top'],
      ['http://localhost/plants/64', '#x'],
      [trpcQuery('getPlant', '{"id":64}'), '#x'],
    ] as const) {
      const plain = await service.exchange(rawRequest('GET', target, bearer));
      const withFragment = await service.exchange(rawRequest('GET', `${target}${fragment}`, bearer));
      expect(plain.status).toBe(200);
      expect([withFragment.status, withFragment.body]).toStrictEqual([plain.status, plain.body]);
    }
    expect((await service.exchange(rawRequest('DELETE', '/plants/64#gone', bearer))).status).toBe(204);
    await service.checkAfterBatch([]);
  });

  it('letters, digits, - _ ~ written as escapes in the path (/plants/%36%32) mean themselves; an escaped dot stays escaped', async () => {
    await storePlant(service, 62, 'Escaped');
    const plain = await service.exchange(rawRequest('GET', '/plants/62', bearer));
    for (const target of ['/plants/%36%32', '/%70lants/6%32', '/%70%6C%61%6E%74%73/62']) {
      const escaped = await service.exchange(rawRequest('GET', target, bearer));
      expect([escaped.status, escaped.body, escaped.headers.etag]).toStrictEqual([200, plain.body, plain.headers.etag]);
    }
    const trpc = await service.exchange(rawRequest('GET', trpcQuery('getPlant', '{"id":62}').replace('getPlant', 'get%50lant'), bearer));
    expect([trpc.status, JSON.parse(trpc.body)]).toStrictEqual([200, { result: { data: { id: 62, name: 'Escaped' } } }]);
    expectErrorBody(await service.exchange(rawRequest('GET', '/plants%2D%5F%7e', bearer)), 404, 'no route for GET /plants-_~');
    expectErrorBody(await service.exchange(rawRequest('GET', '/plants/%2E%2E', bearer)), 404, 'no route for GET /plants/%2E%2E');
    // A % that starts no escape keeps the path from being unescaped at all: `%3%36` must not become the escape `%36`.
    for (const target of ['/plants/%3%36', '/plants/%2%45', '/plan%74s/%3%36']) {
      expectErrorBody(await service.exchange(rawRequest('GET', target, bearer)), 400, /^the request path is not valid/);
    }
    expect((await service.exchange(rawRequest('DELETE', '/plants/%36%32', bearer))).status).toBe(204);
    await service.checkAfterBatch([]);
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    '%s in a query is an unknown parameter: 400 naming it, on every REST route',
    async (name) => {
      for (const path of [`/plants?${name}=1`, `/plants?limit=5&${name}=x`, `/plants/1?${name}=1`]) {
        const answer = await service.exchange(rawRequest('GET', path, bearer));
        expectErrorBody(answer, 400, new RegExp(`unknown parameter.*"${name}"`));
      }
      expectErrorBody(await service.exchange(rawRequest('DELETE', `/plants/1?${name}=1`, bearer)), 400, new RegExp(`"${name}"`));
      await service.checkAfterBatch();
    },
  );

  it('a JSON body writing a key twice: 400 naming the key, over REST and /trpc; nothing stored', async () => {
    const bodies: [string, string][] = [
      ['{"id": 20000, "id": 1020000, "name": "dup"}', 'id'],
      ['{"id": 20001, "name": "a", "n\\u0061me": "b"}', 'name'],
      ['{"id": 20002, "name": "ok", "tag": "x", "tag": "x"}', 'tag'],
    ];
    for (const [body, key] of bodies) {
      const message = `has the key "${key}" twice in one object: each key may appear once`;
      const rest = await service.send({ method: 'POST', path: '/plants', body, headers: JSON_WITH_TOKEN });
      expect(rest.status).toBe(400);
      expect(JSON.parse(rest.body)).toStrictEqual({ error: 400, message: `the request body ${message}` });
      const trpc = await service.send({ method: 'POST', path: '/trpc/createPlant', body, headers: JSON_WITH_TOKEN });
      expect(trpc.status).toBe(400);
      expect(messageOf(trpc)).toContain(message);
      const query = await service.send({ method: 'GET', path: trpcQuery('getPlant', '{"id": 1, "id": 2}'), headers: bearer });
      expect(query.status).toBe(400);
      expect(messageOf(query)).toContain('has the key "id" twice in one object');
    }
    // Nested objects and arrays have keys of their own: the same key in two objects is fine.
    expect(
      (await service.send({ method: 'POST', path: '/trpc/createPlant', body: '{"id": 20003, "name": "fine"}', headers: JSON_WITH_TOKEN }))
        .status,
    ).toBe(200);
    await service.checkAfterBatch([20003]);
  });

  it('15 pipelined requests (within MAX_PIPELINED_REQUESTS) are all answered, and nothing but JSON log lines is written', async () => {
    const requests = Array.from({ length: 15 }, (_, index) =>
      rawRequest('GET', '/healthz', { connection: index === 14 ? 'close' : 'keep-alive' }),
    );
    const answers = await service.pipeline(requests);
    expect(answers.map((answer) => answer.status)).toStrictEqual(Array.from({ length: 15 }, () => 200));
    expect(service.output()).not.toContain('MaxListenersExceededWarning');
    expect(notJsonLines(service.output())).toStrictEqual([]);
  });
});

describe('probes called by strangers', () => {
  let metricsPort = 0;
  // Before the service's own beforeAll, which reads its environment.
  beforeAll(async () => {
    metricsPort = await freePort();
  });
  const service = useHostileService(() => ({ METRICS_PORT: String(metricsPort) }));

  it('/readyz sends MongoDB one ping per tenth of a second at most, however many callers', async () => {
    const pings = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = /^plant_store_mongodb_command_duration_seconds_count\{command="ping",outcome="success"\} (\d+)$/m.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const before = await pings();
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const started = performance.now();
    let answered = 0;
    // 32 callers asking back to back for 2 s.
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() - started < 2_000) {
          const status = await new Promise<number | undefined>((resolve) => {
            get(`${service.url}/readyz`, { agent }, (response) => {
              response.resume();
              response.on('end', () => {
                resolve(response.statusCode);
              });
            }).on('error', () => {
              resolve(undefined);
            });
          });
          expect(status).toBe(200);
          answered += 1;
        }
      }),
    );
    const elapsedMs = performance.now() - started;
    agent.destroy();
    const sent = (await pings()) - before;
    console.log(`/readyz: ${answered} answers in ${Math.round(elapsedMs)} ms from ${sent} pings`);
    expect(answered).toBeGreaterThan(100);
    expect(sent).toBeLessThanOrEqual(Math.ceil(elapsedMs / 100) + 2);
  });

  it('a stall of the event loop answers /healthz 503 to every probe for a while, not only to the first caller', async () => {
    expect((await service.send({ method: 'GET', path: '/healthz' })).status).toBe(200);
    // Frozen for 3 s: for the process, its event loop stalled.
    process.kill(service.pid, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    process.kill(service.pid, 'SIGCONT');
    const stranger = await service.send({ method: 'GET', path: '/healthz' });
    const orchestrator = await service.send({ method: 'GET', path: '/healthz' });
    const later = await service.send({ method: 'GET', path: '/healthz' });
    for (const probe of [stranger, orchestrator, later]) {
      expect(probe.status).toBe(503);
      expect(JSON.parse(probe.body)).toMatchObject({
        error: 503,
        message: expect.stringMatching(/^not healthy: the event loop stalled for \d+ ms$/) as unknown,
      });
    }
  });
});
