// Duplicate key errors (E11000) in every write path, with mongod's message, keyPattern and keyValue.
import { Double, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('dupkeys');

function plants() {
  return mongo.db.collection<LooseDoc>('plants');
}

beforeEach(async () => {
  await plants()
    .drop()
    .catch(() => undefined);
  await plants().createIndexes([{ key: { sku: 1 }, unique: true }]);
  await plants().insertOne({ _id: 5, sku: 'A' });
});

async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MongoServerError);
  return error as MongoServerError;
}

describe('duplicate keys', () => {
  it('insertOne on _id reports the _id_ index', async () => {
    const error = await failure(plants().insertOne({ _id: 5, sku: 'B' }));
    expect(error.code).toBe(11000);
    expect(error.message).toBe(`E11000 duplicate key error collection: ${mongo.db.databaseName}.plants index: _id_ dup key: { _id: 5 }`);
    expect(error.keyPattern).toEqual({ _id: 1 });
    expect(error.keyValue).toEqual({ _id: 5 });
  });

  it('insertOne on a unique secondary index', async () => {
    const error = await failure(plants().insertOne({ sku: 'A' }));
    expect(error.code).toBe(11000);
    expect(error.message).toBe(`E11000 duplicate key error collection: ${mongo.db.databaseName}.plants index: sku_1 dup key: { sku: "A" }`);
    expect(error.keyPattern).toEqual({ sku: 1 });
    expect(error.keyValue).toEqual({ sku: 'A' });
  });

  it('ordered insertMany stops at the first error', async () => {
    const error = await plants()
      .insertMany([{ sku: 'B' }, { sku: 'A' }, { sku: 'C' }])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    const bulk = error as MongoBulkWriteError;
    expect(bulk.insertedCount).toBe(1);
    expect(bulk.result.getWriteErrors()).toHaveLength(1);
    expect(bulk.result.getWriteErrors()[0]).toMatchObject({ index: 1, code: 11000 });
    expect(await plants().countDocuments({ sku: 'C' })).toBe(0);
  });

  it('unordered insertMany carries on and reports every error', async () => {
    const error = await plants()
      .insertMany([{ sku: 'A' }, { sku: 'B' }, { sku: 'B' }, { sku: 'C' }], { ordered: false })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    const bulk = error as MongoBulkWriteError;
    expect(bulk.insertedCount).toBe(2);
    expect(bulk.result.getWriteErrors().map((writeError) => writeError.index)).toEqual([0, 2]);
    expect(await plants().countDocuments()).toBe(3);
  });

  it('reports writeErrors with keyPattern and keyValue inside an ok:1 insert reply', async () => {
    const reply = await mongo.db.command({ insert: 'plants', documents: [{ sku: 'Z' }, { sku: 'A' }], ordered: false });
    expect(reply.ok).toBe(1);
    expect(reply.n).toBe(1);
    expect(reply.writeErrors).toEqual([
      {
        index: 1,
        code: 11000,
        errmsg: `E11000 duplicate key error collection: ${mongo.db.databaseName}.plants index: sku_1 dup key: { sku: "A" }`,
        keyPattern: { sku: 1 },
        keyValue: { sku: 'A' },
      },
    ]);
  });

  it('updateOne that would duplicate a unique key', async () => {
    await plants().insertOne({ sku: 'B' });
    const error = await failure(plants().updateOne({ sku: 'B' }, { $set: { sku: 'A' } }));
    expect(error.code).toBe(11000);
    expect(error.keyPattern).toEqual({ sku: 1 });
    expect(error.keyValue).toEqual({ sku: 'A' });
    expect(await plants().countDocuments({ sku: 'B' })).toBe(1);
  });

  it('upsert that would duplicate a unique key', async () => {
    const error = await failure(plants().updateOne({ name: 'new' }, { $set: { sku: 'A' } }, { upsert: true }));
    expect(error.code).toBe(11000);
    expect(error.keyValue).toEqual({ sku: 'A' });
    expect(await plants().countDocuments()).toBe(1);
  });

  it('findAndModify fails as a command error carrying keyPattern and keyValue', async () => {
    await plants().insertOne({ sku: 'B' });
    const error = await failure(plants().findOneAndUpdate({ sku: 'B' }, { $set: { sku: 'A' } }));
    expect(error.code).toBe(11000);
    expect(error.codeName).toBe('DuplicateKey');
    expect(error.keyPattern).toEqual({ sku: 1 });
    expect(error.keyValue).toEqual({ sku: 'A' });
  });

  it('treats numerically equal _id values of different types as duplicates', async () => {
    const error = await failure(plants().insertOne({ _id: new Double(5), sku: 'D' }));
    expect(error.code).toBe(11000);
  });
});
