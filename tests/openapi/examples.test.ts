// Every status each operation documents carries an example, and each example is true: its
// request, sent to the real app (with MongoDB holding just the example's plants), answers
// exactly the documented body and headers.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_LAYER_EXAMPLES, REQUEST_ID_PLACEHOLDER, type ExampleRequest, type OperationExample } from '../../schemas/examples.js';
import { int64Json } from '../../schemas/int64-json.js';
import { buildApp } from '../../server/app.js';
import { postPlant, startTestApp, testConfig, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import type { PlantStore } from '../../routers/plant-store.js';
import { openRawSocket, parseResponse } from '../helpers/raw-socket.js';
import { splitResponses } from '../helpers/http-responses.js';
import { fetchDocument, type OpenApiDocument, type Operation } from '../helpers/openapi-reading.js';
import { exampleOf, moreRequestsOf, OPERATION_EXAMPLES } from '../helpers/operation-examples.js';

/** The Authorization header of each kind of example request; the JWTs come from a provider on loopback, minted before the tests. */
const AUTHORIZATION: Record<ExampleRequest['token'], string | undefined> = {
  valid: `Bearer ${TEST_TOKEN}`,
  invalid: 'Bearer not-a-token-we-issued',
  none: undefined,
  readOnly: undefined,
  writeOnly: undefined,
};

let provider: IdentityProvider;
beforeAll(async () => {
  provider = await startIdentityProvider();
  AUTHORIZATION.readOnly = `Bearer ${await provider.mint({ scope: 'plants:read' })}`;
  AUTHORIZATION.writeOnly = `Bearer ${await provider.mint({ scope: 'plants:write' })}`;
});
afterAll(async () => {
  await provider.close();
});

/** The configuration of every app here: static tokens, and JWTs from the provider. */
const exampleConfig = (env: Record<string, string> = {}) => testConfig({ ...provider.env(), ...env });

function send(app: FastifyInstance, { method, url, token, contentType, headers, body }: ExampleRequest) {
  const authorization = AUTHORIZATION[token];
  return app.inject({
    method,
    url,
    headers: {
      ...headers,
      ...(contentType !== undefined && { 'content-type': contentType }),
      ...(authorization !== undefined && { authorization }),
    },
    ...(body !== undefined && { payload: typeof body === 'string' ? body : int64Json.stringify(body) }),
  });
}

/** The one example the document shows for a status, as the document shows it. */
function documentedExample(operation: Operation, status: string): unknown {
  const examples = Object.values(operation.responses[status]?.content?.['application/json']?.examples ?? {});
  expect(examples, `examples documented for ${status}`).toHaveLength(1);
  return examples[0]?.value;
}

// Every operation of the port, so that one added to it is a type error here until it fails too.
const failing = () => Promise.reject(new Error('simulated failure inside the store'));
const failingStore: PlantStore = {
  create: failing,
  list: failing,
  get: failing,
  update: failing,
  delete: failing,
  ping: () => Promise.resolve(),
};

let document: OpenApiDocument;
let operations: Map<string, Operation>;
beforeAll(async () => {
  const app = await buildApp(testConfig());
  document = await fetchDocument(app);
  await app.close();
  operations = new Map(
    Object.values(document.paths).flatMap((pathItem) =>
      Object.values(pathItem as Record<string, Operation>).map((operation) => [String(operation.operationId), operation] as const),
    ),
  );
});

/** An app arranged for the example: a failing store for 500, an unreachable MongoDB for 503, else a database holding `given`. */
async function appFor(status: number, example: OperationExample): Promise<{ app: FastifyInstance; close: () => Promise<void> }> {
  if (status === 500) {
    const app = await buildApp(exampleConfig(), { store: failingStore });
    return { app, close: () => app.close() };
  }
  if (status === 503) {
    // Port 9 (discard) has no MongoDB; 300 ms keeps the wait for it short.
    const app = await buildApp(exampleConfig({ MONGODB_URI: 'mongodb://127.0.0.1:9/plantstore', MONGODB_TIMEOUT_MS: '300' }));
    return { app, close: () => app.close() };
  }
  const testApp: TestApp = await startTestApp({ env: provider.env() });
  for (const plant of example.given ?? []) {
    const stored = await send(testApp.app, {
      method: 'POST',
      url: '/plants',
      token: 'valid',
      contentType: 'application/json',
      body: plant,
    });
    expect(stored.statusCode).toBe(200);
  }
  return { app: testApp.app, close: () => testApp.close() };
}

describe.each(Object.entries(OPERATION_EXAMPLES))('%s', (operationId, examples: Record<number, OperationExample>) => {
  const operation = () => {
    const found = operations.get(operationId);
    if (!found) throw new Error(`the document has no operation ${operationId}`);
    return found;
  };

  it('documents an example for every status, the ones its procedure declares', () => {
    const httpLayer: Record<string, { response: unknown }> = HTTP_LAYER_EXAMPLES;
    expect(Object.keys(operation().responses)).toEqual(expect.arrayContaining(Object.keys(examples)));
    for (const [status, response] of Object.entries(operation().responses)) {
      const expected = (examples as Record<string, OperationExample | undefined>)[status] ?? httpLayer[status];
      expect(expected, `an example for ${status}`).toBeDefined();
      if (response.content === undefined) expect(response.description).toMatch(/The answer to `/);
      else expect(documentedExample(operation(), status)).toEqual(expected?.response);
    }
  });

  it.each(Object.entries(examples))('%s: the request answers the documented body and headers', async (status, example) => {
    const { app, close } = await appFor(Number(status), example);
    try {
      const response = await send(app, example.request);
      expect(response.statusCode).toBe(Number(status));
      if (example.response === undefined) {
        expect(response.body).toBe('');
      } else {
        // A 500 names the request's own id, where the document shows a placeholder.
        const documented = int64Json
          .stringify(documentedExample(operation(), status))
          .replace(REQUEST_ID_PLACEHOLDER, String(response.headers['x-request-id']));
        expect(response.body).toBe(documented);
      }
      for (const [name, value] of Object.entries(example.headers ?? {})) expect(response.headers[name]).toBe(value);
    } finally {
      await close();
    }
  });
});

describe('ids beyond 2^53 in the examples', () => {
  const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
  const isBig = (value: bigint) => value > MAX_SAFE || value < -MAX_SAFE;
  /** Whether an example holds an id beyond 2^53, read exactly: a plant's `id`, or the id of a request's path or query (in its words). */
  const holdsBigId = (node: unknown): boolean => {
    if (typeof node === 'string')
      return [...node.matchAll(/(?:\/plants\/|after=)(-?\d+)/g)].some(([, digits = '']) => isBig(BigInt(digits)));
    if (typeof node !== 'object' || node === null) return false;
    const { id } = node as { id?: unknown };
    return (typeof id === 'bigint' && isBig(id)) || Object.values(node).some(holdsBigId);
  };

  /** Whether the operation's parameters, body or answers hold an int64, their schemas' references followed. */
  const carriesInt64 = (node: unknown, seen = new Set<string>()): boolean => {
    if (typeof node !== 'object' || node === null) return false;
    const { format, $ref } = node as { format?: unknown; $ref?: unknown };
    if (format === 'int64') return true;
    if (typeof $ref === 'string' && !seen.has($ref)) {
      seen.add($ref);
      return carriesInt64(document.components?.schemas?.[$ref.split('/').pop() ?? ''], seen);
    }
    return Object.values(node).some((child) => carriesInt64(child, seen));
  };

  it.each(Object.keys(OPERATION_EXAMPLES))(
    '%s shows one where it carries ids, in a request or an answer the tests send and compare',
    (operationId) => {
      const operation = operations.get(operationId);
      const requestExamples = Object.values(operation?.requestBody?.content['application/json']?.examples ?? {});
      const responses = Object.values(operation?.responses ?? {});
      const shown = [
        ...requestExamples.map((example) => example.value),
        ...responses.flatMap((response) => [
          response.description,
          ...Object.values(response.content?.['application/json']?.examples ?? {}),
        ]),
      ];
      const { parameters, requestBody, responses: answers } = operation ?? {};
      expect(shown.some(holdsBigId)).toBe(carriesInt64({ parameters, requestBody, answers }));
    },
  );
});

describe('request bodies offered to try out', () => {
  it.each(Object.entries(OPERATION_EXAMPLES))('%s offers only the bodies of examples sent with a valid token', (operationId, byStatus) => {
    const examples: OperationExample[] = Object.values(byStatus);
    const content = operations.get(operationId)?.requestBody?.content ?? {};
    for (const offered of Object.values(content).flatMap((media) => Object.keys(media.examples ?? {}))) {
      const example = examples.find(({ name }) => name === offered);
      if (example) expect(example.request.token, offered).toBe('valid');
    }
  });
});

describe('requests offered to try out on POST /plants', () => {
  it('offer the short JSON requests of the examples, except the invalid one of the 400, which its answer shows in words', () => {
    const offered = operations.get('createPlant')?.requestBody?.content['application/json']?.examples ?? {};
    expect(offered).toMatchObject({
      created: { value: exampleOf('createPlant', 200).request.body },
      idTaken: { value: exampleOf('createPlant', 409).request.body },
    });
    expect(Object.keys(offered)).not.toContain(exampleOf('createPlant', 400).name);
    const invalid = exampleOf('createPlant', 400);
    expect(operations.get('createPlant')?.responses['400']?.content?.['application/json']?.examples?.[invalid.name]?.description).toContain(
      JSON.stringify(invalid.request.body),
    );
  });

  it.each(Object.entries(moreRequestsOf('createPlant')))('%s answers as documented', async (name, example) => {
    expect(operations.get('createPlant')?.requestBody?.content['application/json']?.examples?.[name]?.value).toEqual(example.body);
    const { app, close } = await appFor(200, {
      name,
      summary: example.summary,
      request: { method: 'POST', url: '/plants', token: 'valid' },
    });
    try {
      const response = await send(app, {
        method: 'POST',
        url: '/plants',
        token: 'valid',
        contentType: 'application/json',
        body: example.body,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(example.response);
    } finally {
      await close();
    }
  });
});

describe('the {id} path parameter', () => {
  const idOperations = ['getPlant', 'updatePlant', 'deletePlant'] as const;

  it.each(idOperations)('of %s offers 42 and an id beyond 2^53, written exactly', (operationId) => {
    const parameter = operations.get(operationId)?.parameters?.find((candidate) => candidate.in === 'path' && candidate.name === 'id');
    const values = Object.values(parameter?.examples ?? {}).map((example) => example.value);
    expect(values).toEqual([42, 9007199254740993n]);
  });

  it('examples name real plants: GET /plants/{id} with each answers that plant, its id exact', async () => {
    const testApp = await startTestApp();
    try {
      const examples = operations.get('getPlant')?.parameters?.find((candidate) => candidate.name === 'id')?.examples ?? {};
      const ids = Object.values(examples).map((example) => example.value as number | bigint);
      expect(ids).toHaveLength(2);
      for (const id of ids) expect((await postPlant(testApp.app, int64Json.stringify({ id, name: `Plant ${id}` }))).statusCode).toBe(200);
      for (const id of ids) {
        const response = await testApp.app.inject({ url: `/plants/${id}`, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
        expect(response.statusCode).toBe(200);
        expect((int64Json.parse(response.body) as { id: unknown }).id).toEqual(id);
      }
    } finally {
      await testApp.close();
    }
  });
});

describe('answers of the HTTP layer, the same on every operation', () => {
  const documented = (status: keyof typeof HTTP_LAYER_EXAMPLES) => {
    expect([...operations.keys()].sort()).toEqual(Object.keys(OPERATION_EXAMPLES).sort());
    expect(operations.size).toBeGreaterThan(0);
    for (const operation of operations.values())
      expect(documentedExample(operation, String(status))).toEqual(HTTP_LAYER_EXAMPLES[status].response);
    return HTTP_LAYER_EXAMPLES[status].response;
  };
  /** The headers every operation's answer of this status is documented to carry, lower-cased. */
  const requiredHeaders = (status: keyof typeof HTTP_LAYER_EXAMPLES) => {
    const names = [...operations.values()].flatMap((operation) =>
      Object.entries(operation.responses[String(status)]?.headers ?? {})
        .filter(([, header]) => (header as { required?: boolean }).required === true)
        .map(([name]) => name.toLowerCase()),
    );
    return [...new Set(names)].sort();
  };
  const expectRequiredHeaders = (status: keyof typeof HTTP_LAYER_EXAMPLES, headers: object) => {
    for (const name of requiredHeaders(status)) expect(headers, name).toHaveProperty(name);
  };
  /** The headers of the one answer a raw socket received, names lower-cased. */
  const rawHeaders = (raw: string) => splitResponses(raw)[0]?.headers ?? {};
  let listening: TestApp;
  let origin: string;
  afterAll(async () => {
    await listening.close();
  });
  beforeAll(async () => {
    listening = await startTestApp({ env: { REQUEST_TIMEOUT_MS: '300', AUTH_FAILURE_LIMIT: '1' } });
    origin = await listening.app.listen({ host: '127.0.0.1', port: 0 });
  });

  it('429 once an address failed authentication AUTH_FAILURE_LIMIT times', async () => {
    const request = { method: 'GET', url: '/plants', token: 'invalid' } as const;
    expect((await send(listening.app, request)).statusCode).toBe(401);
    const refused = await send(listening.app, { ...request, token: 'valid' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual(documented(429));
    expect(refused.headers['retry-after']).toBe('60');
    expect(requiredHeaders(429)).toEqual(['retry-after', 'x-request-id']);
    expectRequiredHeaders(429, refused.headers);
  });

  it('408 for a request that stalls', async () => {
    const raw = await openRawSocket(origin);
    raw.write('GET /plants HTTP/1.1\r\nhost: localhost\r\n');
    const { data } = await raw.closed;
    expect(parseResponse(data)).toEqual({ status: 408, body: documented(408) });
    expectRequiredHeaders(408, rawHeaders(data));
  });

  it('417 for an Expect other than 100-continue', async () => {
    const raw = await openRawSocket(origin);
    raw.write('GET /plants HTTP/1.1\r\nhost: localhost\r\nexpect: 200-ok\r\nconnection: close\r\n\r\n');
    const { data } = await raw.closed;
    expect(parseResponse(data)).toEqual({ status: 417, body: documented(417) });
    expectRequiredHeaders(417, rawHeaders(data));
  });

  it('431 for headers over the limit', async () => {
    const raw = await openRawSocket(origin);
    raw.write(`GET /plants HTTP/1.1\r\nhost: localhost\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const { data } = await raw.closed;
    expect(parseResponse(data)).toEqual({ status: 431, body: documented(431) });
    expectRequiredHeaders(431, rawHeaders(data));
  });
});
