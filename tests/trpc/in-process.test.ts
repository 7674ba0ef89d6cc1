import { getEventListeners } from 'node:events';
import { TRPCError } from '@trpc/server';
import { Long, MongoClient } from 'mongodb';
import { ZodError } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { entityTagOf } from '../../routers/entity-tags.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { OperationDeadlines } from '../../server/db/operation-deadlines.js';
import { MongoPlantStore, PLANTS_COLLECTION } from '../../server/plants/mongo-plant-store.js';
import { testMongoUri, TEST_TOKEN } from '../helpers/app.js';
import { scriptedStore } from '../helpers/scripted-store.js';

/** What a TypeScript app running the store in its own process does: createCaller over a real MongoDB. */
let client: MongoClient;
let createContext: ReturnType<typeof createContextFactory>;
beforeAll(() => {
  client = new MongoClient(testMongoUri());
  createContext = createContextFactory({
    store: new MongoPlantStore(client.db(), { w: 1 }),
    verifyToken: createTokenVerifier([TEST_TOKEN]),
  });
});
afterAll(async () => {
  await client.db().dropDatabase();
  await client.close();
});

describe('createPlant in process, through createCaller', () => {
  it('creates and stores a plant', async () => {
    const caller = createCaller(createContext(`Bearer ${TEST_TOKEN}`));
    await expect(caller.createPlant({ id: 1, name: 'Pothos' })).resolves.toStrictEqual({ name: 'Pothos' });
    expect(
      await client
        .db()
        .collection(PLANTS_COLLECTION)
        .findOne({ _id: Long.fromNumber(1) }),
    ).toMatchObject({ name: 'Pothos' });
  });

  it('applies the same auth rule', async () => {
    const caller = createCaller(createContext(undefined));
    await expect(caller.createPlant({ id: 2, name: 'x' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('throws CONFLICT for an id taken by another plant', async () => {
    const caller = createCaller(createContext(`Bearer ${TEST_TOKEN}`));
    await caller.createPlant({ id: 3, name: 'Rose' });
    const error: unknown = await caller.createPlant({ id: 3, name: 'Tulip' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: 'CONFLICT', message: 'a plant with id 3 already exists with a different name or tag' });
  });
});

describe('a conditional update in process', () => {
  it('reads the entity tag of the plant a call answered from its context, and changes the plant only while it holds', async () => {
    const reader = createContext(`Bearer ${TEST_TOKEN}`);
    await createCaller(reader).createPlant({ id: 10, name: 'Ivy' });
    const read = reader.entityTag;
    expect(read).toBe(entityTagOf(10, 0, { name: 'Ivy' }));
    await createCaller(reader).getPlant({ id: 10 });
    expect(reader.entityTag).toBe(read);

    const writer = createContext(`Bearer ${TEST_TOKEN}`);
    await expect(createCaller(writer).updatePlant({ id: 10, name: 'English ivy', ifMatch: read })).resolves.toStrictEqual({
      id: 10,
      name: 'English ivy',
    });
    expect(writer.entityTag).toMatch(/^"[\w-]{22}"$/);
    expect(writer.entityTag).not.toBe(read);
    await expect(createCaller(reader).updatePlant({ id: 10, name: 'Poison ivy', ifMatch: read })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(createCaller(writer).getPlant({ id: 10 })).resolves.toStrictEqual({ id: 10, name: 'English ivy' });
  });

  it('names the ifMatch input, not a header the caller never sent, when it is no entity tag', async () => {
    const caller = createCaller(createContext(`Bearer ${TEST_TOKEN}`));
    await caller.createPlant({ id: 11, name: 'Ivy' });
    const calls = [
      () => caller.updatePlant({ id: 11, name: 'x', ifMatch: 'stale' }),
      () => caller.deletePlant({ id: 11, ifMatch: 'stale' }),
    ];
    for (const call of calls) {
      await expect(call()).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: 'ifMatch must be * or a comma-separated list of entity tags, each in double quotes, as ETag gives them',
      });
    }
    await expect(caller.getPlant({ id: 11 })).resolves.toStrictEqual({ id: 11, name: 'Ivy' });
  });
});

describe('refusals in process', () => {
  it('say what is wrong in the words REST and /trpc use, with zod issues still on the cause', async () => {
    const caller = createCaller(createContext(`Bearer ${TEST_TOKEN}`));
    const error: unknown = await caller
      .createPlant({ id: 'forty-two', name: '' } as unknown as { id: number; name: string })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', message: 'id must be an integer; name must not be empty' });
    expect((error as TRPCError).cause).toBeInstanceOf(ZodError);
  });
});

describe('listPlants for a caller that has gone, through createCaller with a signal', () => {
  it('reads nothing once the signal has aborted, stops a read on its way, and the store serves the next caller', async () => {
    const watched = new MongoClient(testMongoUri(), { monitorCommands: true });
    const finds: string[] = [];
    watched.on('commandStarted', (event) => {
      if (event.commandName === 'find') finds.push(event.commandName);
    });
    try {
      const context = createContextFactory({
        store: new MongoPlantStore(watched.db(), { w: 1 }),
        verifyToken: createTokenVerifier([TEST_TOKEN]),
      });
      const gone = createCaller(context(`Bearer ${TEST_TOKEN}`), { signal: AbortSignal.abort() });
      await expect(gone.listPlants({ limit: 1000 })).rejects.toMatchObject({
        code: 'CLIENT_CLOSED_REQUEST',
        message: 'the client closed the connection before the answer',
      });
      expect(finds).toStrictEqual([]);

      const leaving = new AbortController();
      const listing = createCaller(context(`Bearer ${TEST_TOKEN}`), { signal: leaving.signal }).listPlants({ limit: 1000 });
      leaving.abort();
      await expect(listing).rejects.toMatchObject({ code: 'CLIENT_CLOSED_REQUEST' });

      const staying = createCaller(context(`Bearer ${TEST_TOKEN}`), { signal: new AbortController().signal });
      await staying.createPlant({ id: 90, name: 'Staying' });
      await expect(staying.listPlants({ limit: 1000 })).resolves.toContainEqual({ id: 90, name: 'Staying' });
    } finally {
      await watched.close();
    }
  });
});

describe("listPlants under a signal that lives on, as an HTTP connection's does", () => {
  it('leaves it no record of the reads: no listener, and no dependant signal where Node keeps those', async () => {
    // As the app guards its store: every operation under a deadline, which the read joins to the caller's signal.
    const deadlines = new OperationDeadlines(3_000);
    const guarded = createContextFactory({
      store: new MongoPlantStore(client.db(), { w: 1 }, undefined, { signal: () => deadlines.signal(), unavailable: () => undefined }),
      verifyToken: createTokenVerifier([TEST_TOKEN]),
    });
    const connection = new AbortController();
    const caller = createCaller(guarded(`Bearer ${TEST_TOKEN}`), { signal: connection.signal });
    for (let read = 0; read < 5; read++) await caller.listPlants({ limit: 10 });
    expect(getEventListeners(connection.signal, 'abort')).toStrictEqual([]);
    // Node's own record of the signals AbortSignal.any made from this one, which Node 20 never prunes.
    const dependants = Object.getOwnPropertySymbols(connection.signal).find((key) => key.description === 'kDependantSignals');
    const record = dependants && (connection.signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants];
    expect(record?.size ?? 0).toBe(0);
  });
});

describe('listPlants failing for a reason of its own after its caller has gone', () => {
  it('is the failure it is (500), not a closed request: only the abort itself is one', async () => {
    const leaving = new AbortController();
    const context = createContextFactory({
      store: scriptedStore({
        list: async ({ signal }) => {
          if (signal && !signal.aborted)
            await new Promise((resolve) => {
              signal.addEventListener('abort', resolve, { once: true });
            });
          throw new Error('disk on fire');
        },
      }),
      verifyToken: createTokenVerifier([TEST_TOKEN]),
    });
    const listing = createCaller(context(`Bearer ${TEST_TOKEN}`), { signal: leaving.signal }).listPlants({ limit: 10 });
    leaving.abort();
    const failure: unknown = await listing.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', cause: { message: 'disk on fire' } });
  });
});
