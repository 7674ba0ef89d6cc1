// The client package's pieces against a listening app, through the real @trpc/client: ids come
// back as one type, exact at any size; a rounded number is refused on the client in the service's
// error shape; and an app's own links (httpBatchLink, loggerLink) keep ids exact with them.
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink, loggerLink, TRPCClientError } from '@trpc/client';
import { beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createPlantStoreClient, exactIntegerFetch, int64Transformer, trpcUrl, type AppRouter } from '../../client/index.js';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

const BEYOND_2_53 = 9007199254740993n;
const INT64_MAX = 2n ** 63n - 1n;
const service = useListeningTestApp();
beforeEach(async () => {
  await service.testApp.plants.deleteMany({});
});

/** A fetch that counts the requests it sends. */
function countingFetch() {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return globalThis.fetch(input, init);
  };
  return { fetch, urls };
}

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (reason: unknown) => reason,
  );
}

describe('createPlantStoreClient', () => {
  const client = () => createPlantStoreClient({ url: service.url, token: TEST_TOKEN });

  it('answers every id as a bigint, small or beyond 2^53, in create, get and list alike', async () => {
    await client().createPlant.mutate({ id: 7, name: 'Fern' });
    await client().createPlant.mutate({ id: BEYOND_2_53, name: 'Monstera' });
    const page = await client().listPlants.query({});
    expect(page).toStrictEqual([
      { id: 7n, name: 'Fern' },
      { id: BEYOND_2_53, name: 'Monstera' },
    ]);
    expect(await client().getPlant.query({ id: 7 })).toStrictEqual({ id: 7n, name: 'Fern' });
    expect(await client().getPlant.query({ id: BEYOND_2_53 })).toStrictEqual({ id: BEYOND_2_53, name: 'Monstera' });
    expectTypeOf<(typeof page)[number]['id']>().toEqualTypeOf<bigint>();
    expectTypeOf<Awaited<ReturnType<ReturnType<typeof client>['getPlant']['query']>>['id']>().toEqualTypeOf<bigint>();
  });

  it('refuses a number beyond 2^53 before sending it, with the BAD_REQUEST shape of the service', async () => {
    const { fetch, urls } = countingFetch();
    const store = createPlantStoreClient({ url: service.url, token: TEST_TOKEN, fetch });
    const error = await rejectionOf(store.createPlant.mutate({ id: 2 ** 53 + 2, name: 'Rounded' }));
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error).toMatchObject({ data: { code: 'BAD_REQUEST', httpStatus: 400 } });
    expect((error as Error).message).toMatch(
      /^id must be an integer from .* exactly: 9007199254740994 is a JavaScript number beyond ±\(2\^53−1\), which is rounded; pass it as a bigint/,
    );
    const inQuery = await rejectionOf(store.getPlant.query({ id: 2 ** 60 }));
    expect(inQuery).toMatchObject({ data: { code: 'BAD_REQUEST', httpStatus: 400 } });
    expect(urls).toStrictEqual([]);
    // The service's own refusal of an invalid id has the same shape.
    const served = await rejectionOf(store.getPlant.query({ id: 'x' }));
    expect(served).toMatchObject({ data: { code: 'BAD_REQUEST', httpStatus: 400 } });
  });
});

describe('links an app composes with int64Transformer and exactIntegerFetch', () => {
  it('httpBatchLink with loggerLink: one request for the calls made together, every id exact and a bigint', async () => {
    const { fetch, urls } = countingFetch();
    const logged: unknown[] = [];
    const client = createTRPCClient<AppRouter>({
      links: [
        loggerLink({ console: { log: (...args: unknown[]) => logged.push(args), error: (...args: unknown[]) => logged.push(args) } }),
        httpBatchLink({
          url: trpcUrl(service.url),
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
          transformer: int64Transformer,
          fetch: exactIntegerFetch(fetch),
        }),
      ],
    });
    const created = await Promise.all([
      client.createPlant.mutate({ id: BEYOND_2_53, name: 'Monstera' }),
      client.createPlant.mutate({ id: INT64_MAX, name: 'Fern' }),
      client.createPlant.mutate({ id: 1, name: 'Basil' }),
    ]);
    expect(created).toStrictEqual([{ name: 'Monstera' }, { name: 'Fern' }, { name: 'Basil' }]);
    const [one, other, page, missing] = await Promise.all([
      client.getPlant.query({ id: BEYOND_2_53 }),
      client.getPlant.query({ id: 1 }),
      client.listPlants.query({ after: 1 }),
      client.getPlant.query({ id: BEYOND_2_53 + 1n }).catch((reason: unknown) => reason),
    ]);
    expect(one).toStrictEqual({ id: BEYOND_2_53, name: 'Monstera' });
    expect(other).toStrictEqual({ id: 1n, name: 'Basil' });
    expect(page).toStrictEqual([
      { id: BEYOND_2_53, name: 'Monstera' },
      { id: INT64_MAX, name: 'Fern' },
    ]);
    expect(missing).toMatchObject({ message: `no plant with id ${BEYOND_2_53 + 1n}`, data: { code: 'NOT_FOUND', httpStatus: 404 } });
    expect(urls).toHaveLength(2);
    expect(urls.every((url) => url.includes('batch=1'))).toBe(true);
    expect(logged.length).toBeGreaterThanOrEqual(14);
  });

  it('httpBatchLink with maxItems at TRPC_MAX_BATCH_SIZE: fifty mutations, then fifty queries, made together, every call answered', async () => {
    const { fetch, urls } = countingFetch();
    const client = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: trpcUrl(service.url),
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
          maxItems: 16,
          transformer: int64Transformer,
          fetch: exactIntegerFetch(fetch),
        }),
      ],
    });
    const ids = Array.from({ length: 50 }, (_, index) => BEYOND_2_53 + BigInt(index));
    const created = await Promise.all(ids.map((id) => client.createPlant.mutate({ id, name: `Plant ${id}` })));
    expect(created).toStrictEqual(ids.map((id) => ({ name: `Plant ${id}` })));
    const read = await Promise.all(ids.map((id) => client.getPlant.query({ id })));
    expect(read).toStrictEqual(ids.map((id) => ({ id, name: `Plant ${id}` })));
    // Batches of 16, 16, 16 and 2, each way.
    expect(urls).toHaveLength(8);
  });

  it('httpLink: a query with an id beyond 2^53 in its URL, and a mutation in its body', async () => {
    const client = createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: trpcUrl(service.url),
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
          transformer: int64Transformer,
          fetch: exactIntegerFetch(),
        }),
      ],
    });
    await client.createPlant.mutate({ id: BEYOND_2_53, name: 'Monstera' });
    await client.createPlant.mutate({ id: BEYOND_2_53 - 1n, name: 'Fern' });
    await expect(client.getPlant.query({ id: BEYOND_2_53 })).resolves.toStrictEqual({ id: BEYOND_2_53, name: 'Monstera' });
    await expect(client.deletePlant.mutate({ id: BEYOND_2_53 })).resolves.toBeUndefined();
    await expect(client.listPlants.query({})).resolves.toStrictEqual([{ id: BEYOND_2_53 - 1n, name: 'Fern' }]);
  });
});

describe('a link with int64Transformer but without exactIntegerFetch', () => {
  const client = () =>
    createTRPCClient<AppRouter>({
      links: [httpLink({ url: trpcUrl(service.url), headers: { authorization: `Bearer ${TEST_TOKEN}` }, transformer: int64Transformer })],
    });

  it('sends a bigint id within 2^53, as the answers give ids back, as a plain number', async () => {
    await client().createPlant.mutate({ id: 2n ** 53n - 1n, name: 'Fern' });
    const [plant] = await client().listPlants.query({});
    expect(plant).toStrictEqual({ id: 2n ** 53n - 1n, name: 'Fern' });
    await expect(client().getPlant.query({ id: plant?.id ?? 0n })).resolves.toStrictEqual(plant);
    await expect(client().deletePlant.mutate({ id: 2n ** 53n - 1n })).resolves.toBeUndefined();
  });
});

/** A client through one of tRPC's batch links, as an app composes it with the client package's pieces. */
function batchingClient(link: typeof httpBatchLink | typeof httpBatchStreamLink, headers: Record<string, string> = {}) {
  return createTRPCClient<AppRouter>({
    links: [link({ url: trpcUrl(service.url), headers, transformer: int64Transformer, fetch: exactIntegerFetch(fetch) })],
  });
}

describe('httpBatchStreamLink', () => {
  it('answers a batch of a create, a get and a list, every id exact', async () => {
    const client = batchingClient(httpBatchStreamLink, { authorization: `Bearer ${TEST_TOKEN}` });
    await client.createPlant.mutate({ id: BEYOND_2_53, name: 'Monstera' });
    const [plant, page] = await Promise.all([client.getPlant.query({ id: BEYOND_2_53 }), client.listPlants.query({})]);
    expect(plant).toStrictEqual({ id: BEYOND_2_53, name: 'Monstera' });
    expect(page).toStrictEqual([{ id: BEYOND_2_53, name: 'Monstera' }]);
  });
});

describe('a batch sent without a valid token', () => {
  it.each([
    ['httpBatchLink', httpBatchLink],
    ['httpBatchStreamLink', httpBatchStreamLink],
  ] as const)('%s: every call of it rejects with UNAUTHORIZED, nothing stored', async (_name, link) => {
    const client = batchingClient(link);
    const failures = await Promise.all([
      rejectionOf(client.createPlant.mutate({ id: 1, name: 'Fern' })),
      rejectionOf(client.deletePlant.mutate({ id: 2 })),
    ]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(TRPCClientError);
      expect((failure as TRPCClientError<AppRouter>).data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    }
    expect(await service.testApp.plants.countDocuments()).toBe(0);
  });
});

describe('batches and TRPC_MAX_BATCH_SIZE (16 by default)', () => {
  const authorization = `Bearer ${TEST_TOKEN}`;
  const creates = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [index, { id: index + 1, name: 'Fern' }]));

  it('refuses a batch of 17 calls with 400 before any runs, and answers one of 16', async () => {
    const batch = (count: number) =>
      fetch(`${trpcUrl(service.url)}/${Array.from({ length: count }, () => 'createPlant').join(',')}?batch=1`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(creates(count)),
      });
    const refused = await batch(17);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        message: "a batch may make at most 16 calls (TRPC_MAX_BATCH_SIZE), and this one makes 17: split it (httpBatchLink's maxItems does)",
        data: { code: 'BAD_REQUEST', httpStatus: 400 },
      },
    });
    expect(await service.testApp.plants.countDocuments()).toBe(0);
    const answered = await batch(16);
    expect(answered.status).toBe(200);
    expect(await service.testApp.plants.countDocuments()).toBe(16);
  });

  it('refuses a batch mixing a mutation and a query with 400, labelled as the JSON it is', async () => {
    const mixed = await fetch(`${trpcUrl(service.url)}/createPlant,getPlant?batch=1`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: '{"0":{"id":5,"name":"Fern"},"1":{"id":5}}',
    });
    expect(mixed.status).toBe(400);
    expect(mixed.headers.get('content-type')).toBe('application/json');
    expect(await mixed.json()).toMatchObject({ error: { message: 'Cannot mix procedure types in call: mutation, query' } });
  });

  it('refuses a query batch of 17 in its URL', async () => {
    const paths = Array.from({ length: 17 }, () => 'listPlants').join(',');
    const refused = await fetch(`${trpcUrl(service.url)}/${paths}?batch=1`, { headers: { authorization } });
    expect(refused.status).toBe(400);
  });
});
