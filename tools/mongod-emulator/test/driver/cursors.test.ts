// Cursor batching: firstBatch/nextBatch sizes, Int64 cursor ids, getMore and killCursors.
import { Long, MongoClient, MongoServerError, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useTestDatabase, type CursorReply, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('cursors');
const rawLongs = { promoteLongs: false } as const;
let monitored: MongoClient;
const started: CommandStartedEvent[] = [];

beforeAll(async () => {
  await mongo.db.collection<LooseDoc>('many').insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
  monitored = await new MongoClient(inject('mongoUri'), { monitorCommands: true }).connect();
  monitored.on('commandStarted', (event) => started.push(event));
});

afterAll(async () => {
  await monitored.close();
});

function commandsNamed(name: string): CommandStartedEvent[] {
  return started.filter((event) => event.commandName === name);
}

describe('cursors', () => {
  it('returns 101 documents in the default first batch', async () => {
    const reply = (await mongo.db.command({ find: 'many', filter: {} }, rawLongs)) as CursorReply;
    expect(reply.cursor.firstBatch).toHaveLength(101);
    expect(reply.cursor.id).toBeInstanceOf(Long);
    expect(reply.cursor.id.isZero()).toBe(false);
    expect(reply.cursor.ns).toBe(`${mongo.db.databaseName}.many`);
    await mongo.db.command({ killCursors: 'many', cursors: [reply.cursor.id] });
  });

  it('pages through results with getMore until the cursor id is 0', async () => {
    const first = (await mongo.db.command({ find: 'many', filter: {}, sort: { i: 1 }, batchSize: 100 }, rawLongs)) as CursorReply;
    const id = first.cursor.id;
    const second = (await mongo.db.command({ getMore: id, collection: 'many', batchSize: 100 }, rawLongs)) as CursorReply;
    expect(second.cursor.nextBatch).toHaveLength(100);
    expect(second.cursor.id.equals(id)).toBe(true);
    const third = (await mongo.db.command({ getMore: id, collection: 'many', batchSize: 100 }, rawLongs)) as CursorReply;
    expect(third.cursor.nextBatch?.map((doc) => doc.i)).toEqual(Array.from({ length: 50 }, (_, k) => 200 + k));
    expect(third.cursor.id.isZero()).toBe(true);
  });

  it('kills cursors, after which getMore fails with CursorNotFound (43)', async () => {
    const first = (await mongo.db.command({ find: 'many', filter: {}, batchSize: 10 }, rawLongs)) as CursorReply;
    const id = first.cursor.id;
    const killed = (await mongo.db.command({ killCursors: 'many', cursors: [id] }, rawLongs)) as { cursorsKilled: Long[] };
    expect(killed.cursorsKilled).toEqual([id]);
    const error = await mongo.db.command({ getMore: id, collection: 'many' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 43, codeName: 'CursorNotFound' });
  });

  it('honours singleBatch and limit', async () => {
    const single = (await mongo.db.command({ find: 'many', filter: {}, batchSize: 5, singleBatch: true }, rawLongs)) as CursorReply;
    expect(single.cursor.firstBatch).toHaveLength(5);
    expect(single.cursor.id.isZero()).toBe(true);
    expect(await mongo.db.collection<LooseDoc>('many').find().limit(7).toArray()).toHaveLength(7);
  });

  it('lets the driver iterate with getMore and close early with killCursors', async () => {
    const collection = monitored.db(mongo.db.databaseName).collection<LooseDoc>('many');
    const all = await collection
      .find({ i: { $lt: 20 } })
      .batchSize(7)
      .toArray();
    expect(all.map((doc) => doc.i as number)).toEqual(Array.from({ length: 20 }, (_, k) => k));
    expect(commandsNamed('getMore')).toHaveLength(2);
    const cursor = collection.find().batchSize(3);
    await cursor.next();
    await cursor.close();
    expect(commandsNamed('killCursors')).toHaveLength(1);
  });
});
