// Inserts, finds, updates, deletes, findAndModify, count and distinct through the driver.
import { Double, Int32, Long, MongoServerError, ObjectId, type Document } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestDatabase, type AnyDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('crud');
const raw = { promoteValues: false, promoteLongs: false } as const;

function items() {
  return mongo.db.collection<AnyDoc>('items');
}

beforeEach(async () => {
  await items().deleteMany({});
});

describe('insert', () => {
  it('gives documents an ObjectId _id, placed first', async () => {
    const { insertedId } = await items().insertOne({ name: 'fern' });
    expect(insertedId).toBeInstanceOf(ObjectId);
    await items().insertOne({ name: 'moss', _id: 7 });
    const moss = await items().findOne({ name: 'moss' });
    expect(Object.keys(moss ?? {})).toEqual(['_id', 'name']);
    const fern = await items().findOne({ _id: insertedId });
    expect(fern).toEqual({ _id: insertedId, name: 'fern' });
  });

  it('inserts many documents in order', async () => {
    const result = await items().insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(result.insertedCount).toBe(3);
    const found = await items()
      .find({}, { projection: { _id: 0 } })
      .toArray();
    expect(found).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});

describe('find', () => {
  beforeEach(async () => {
    await items().insertMany([
      { _id: 1, name: 'aloe', price: 12, tags: ['succulent', 'indoor'], size: { h: 20, unit: 'cm' } },
      { _id: 2, name: 'basil', price: 4, tags: ['herb'], size: { h: 30, unit: 'cm' } },
      { _id: 3, name: 'cactus', price: 8, tags: ['succulent'], size: { h: 10, unit: 'cm' } },
      { _id: 4, name: 'dill', price: 4, tags: [], size: { h: 60, unit: 'cm' } },
    ]);
  });

  it('filters, sorts, skips and limits', async () => {
    const names = (
      await items()
        .find({ price: { $lte: 8 } })
        .sort({ price: 1, name: -1 })
        .skip(1)
        .limit(2)
        .toArray()
    ).map((doc) => doc.name as string);
    expect(names).toEqual(['basil', 'cactus']);
  });

  it('projects with inclusion and exclusion, dotted paths included', async () => {
    expect(await items().findOne({ _id: 1 }, { projection: { name: 1, 'size.h': 1 } })).toEqual({ _id: 1, name: 'aloe', size: { h: 20 } });
    expect(await items().findOne({ _id: 2 }, { projection: { tags: 0, size: 0, _id: 0 } })).toEqual({ name: 'basil', price: 4 });
  });

  it('matches array elements and dotted paths', async () => {
    const ids = async (filter: Document): Promise<unknown[]> =>
      (await items().find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);
    expect(await ids({ tags: 'succulent' })).toEqual([1, 3]);
    expect(await ids({ 'size.h': { $gt: 15, $lt: 40 } })).toEqual([1, 2]);
    expect(await ids({ tags: { $size: 0 } })).toEqual([4]);
    expect(await ids({ tags: { $all: ['succulent', 'indoor'] } })).toEqual([1]);
  });

  it('counts and finds distinct values', async () => {
    expect(await items().countDocuments({ price: 4 })).toBe(2);
    expect(await items().estimatedDocumentCount()).toBe(4);
    const count = await mongo.db.command({ count: 'items', query: { price: { $gt: 4 } } });
    expect(count.n).toBe(2);
    expect((await items().distinct('tags')).sort()).toEqual(['herb', 'indoor', 'succulent']);
    expect((await items().distinct('price', { name: { $ne: 'aloe' } })).sort()).toEqual([4, 8]);
  });
});

describe('update', () => {
  it('applies the field operators', async () => {
    await items().insertOne({ _id: 1, a: 1, b: 'x', n: 5, m: 3, lo: 5, hi: 5, list: [1, 2, 3, 4], set: ['a'], old: 'o' });
    // Typed as a plain Document: the driver's operator typings cannot describe free-form test fields.
    const update: Document = {
      $set: { 'nested.deep': true },
      $unset: { b: '' },
      $inc: { n: 2 },
      $mul: { m: 4, fresh: 2 },
      $min: { lo: 1 },
      $max: { hi: 9 },
      $push: { log: { $each: ['p', 'q'] } },
      $addToSet: { set: { $each: ['a', 'b'] } },
      $pull: { list: { $gte: 3 } },
      $rename: { old: 'renamed' },
      $currentDate: { touched: true },
    };
    const result = await items().updateOne({ _id: 1 }, update);
    expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const doc = await items().findOne({ _id: 1 });
    expect(doc).toMatchObject({
      a: 1,
      n: 7,
      m: 12,
      fresh: 0,
      lo: 1,
      hi: 9,
      log: ['p', 'q'],
      set: ['a', 'b'],
      list: [1, 2],
      renamed: 'o',
      nested: { deep: true },
    });
    expect(doc).not.toHaveProperty('b');
    expect(doc).not.toHaveProperty('old');
    expect(doc?.touched).toBeInstanceOf(Date);
  });

  it('keeps numeric types: int32 stays int32, overflows to int64, long stays long', async () => {
    await items().insertOne({ _id: 1, small: new Int32(1), edge: new Int32(2_147_483_647), long: Long.fromNumber(1), dbl: new Double(1) });
    await items().updateOne({ _id: 1 }, { $inc: { small: 1, edge: 1, long: 1, dbl: 1 } });
    const doc = await items().findOne({ _id: 1 } as Document, raw);
    expect(doc?.small).toEqual(new Int32(2));
    expect(doc?.edge).toEqual(Long.fromNumber(2_147_483_648));
    expect(doc?.long).toEqual(Long.fromNumber(2));
    expect(doc?.dbl).toEqual(new Double(2));
  });

  it('replaces whole documents, keeping _id', async () => {
    await items().insertOne({ _id: 1, a: 1, b: 2 });
    await items().replaceOne({ _id: 1 }, { c: 3 });
    expect(await items().findOne({ _id: 1 })).toEqual({ _id: 1, c: 3 });
  });

  it('upserts from the filter equality fields and $setOnInsert', async () => {
    const first = await items().updateOne({ sku: 'A1' }, { $set: { qty: 1 }, $setOnInsert: { created: true } }, { upsert: true });
    expect(first.upsertedCount).toBe(1);
    expect(first.upsertedId).toBeInstanceOf(ObjectId);
    const second = await items().updateOne({ sku: 'A1' }, { $set: { qty: 2 }, $setOnInsert: { created: false } }, { upsert: true });
    expect(second).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    const doc = await items().findOne({ sku: 'A1' }, { projection: { _id: 0 } });
    expect(doc).toEqual({ sku: 'A1', qty: 2, created: true });
  });

  it('updates many documents and counts only real modifications', async () => {
    await items().insertMany([
      { g: 1, v: 0 },
      { g: 1, v: 1 },
      { g: 2, v: 0 },
    ]);
    const result = await items().updateMany({ g: 1 }, { $set: { v: 1 } });
    expect(result).toMatchObject({ matchedCount: 2, modifiedCount: 1 });
  });

  it('refuses to change _id (ImmutableField, 66)', async () => {
    await items().insertOne({ _id: 1, a: 1 });
    await expect(items().updateOne({ _id: 1 }, { $set: { _id: 2 } })).rejects.toMatchObject({ code: 66 });
  });

  it('refuses an update whose result would be larger than 16 MiB (17419), as with $push and findOneAndUpdate, and keeps the document', async () => {
    const chunk = 'x'.repeat(4 * 1024 * 1024);
    const chunked = mongo.db.collection<{ _id: number; chunks: string[] }>('items');
    await chunked.insertOne({ _id: 1, chunks: [chunk, chunk, chunk] });
    const refused = { code: 17419, errmsg: 'Resulting document after update is larger than 16777216' };
    await expect(chunked.updateOne({ _id: 1 }, { $push: { chunks: chunk } })).rejects.toMatchObject(refused);
    await expect(chunked.findOneAndUpdate({ _id: 1 }, { $push: { chunks: chunk } })).rejects.toMatchObject(refused);
    expect((await chunked.findOne({ _id: 1 }))?.chunks).toHaveLength(3);
  });

  it('refuses $inc on a string (TypeMismatch, 14)', async () => {
    await items().insertOne({ _id: 1, a: 'text' });
    await expect(items().updateOne({ _id: 1 }, { $inc: { a: 1 } })).rejects.toMatchObject({ code: 14 });
  });
});

describe('delete', () => {
  it('deletes one or many', async () => {
    await items().insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
    expect((await items().deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await items().deleteMany({ k: 1 })).deletedCount).toBe(2);
    expect((await items().deleteMany({ k: 3 })).deletedCount).toBe(0);
    expect(await items().countDocuments()).toBe(1);
  });
});

describe('findAndModify', () => {
  beforeEach(async () => {
    await items().insertMany([
      { _id: 1, q: 5, tag: 'a' },
      { _id: 2, q: 9, tag: 'a' },
    ]);
  });

  it('returns the document before or after the update, honouring sort and projection', async () => {
    const before = await items().findOneAndUpdate({ tag: 'a' }, { $inc: { q: 1 } }, { sort: { q: -1 }, projection: { q: 1 } });
    expect(before).toEqual({ _id: 2, q: 9 });
    const after = await items().findOneAndUpdate({ tag: 'a' }, { $inc: { q: 1 } }, { sort: { q: 1 }, returnDocument: 'after' });
    expect(after).toEqual({ _id: 1, q: 6, tag: 'a' });
  });

  it('upserts, replaces and removes', async () => {
    const upserted = await items().findOneAndUpdate({ _id: 3 }, { $set: { q: 1 } }, { upsert: true, returnDocument: 'after' });
    expect(upserted).toEqual({ _id: 3, q: 1 });
    const missing = await items().findOneAndUpdate({ _id: 4 }, { $set: { q: 1 } });
    expect(missing).toBeNull();
    const replaced = await items().findOneAndReplace({ _id: 1 }, { fresh: true }, { returnDocument: 'after' });
    expect(replaced).toEqual({ _id: 1, fresh: true });
    const removed = await items().findOneAndDelete({ _id: 2 });
    expect(removed).toEqual({ _id: 2, q: 9, tag: 'a' });
    expect(await items().countDocuments()).toBe(2);
  });

  it('reports the raw lastErrorObject', async () => {
    const reply = await mongo.db.command({
      findAndModify: 'items',
      query: { _id: 9 },
      update: { $set: { q: 0 } },
      upsert: true,
      new: true,
    });
    expect(reply.lastErrorObject).toEqual({ n: 1, updatedExisting: false, upserted: 9 });
    expect(reply.value).toEqual({ _id: 9, q: 0 });
  });

  it('rejects update and remove together', async () => {
    const error = await mongo.db
      .command({ findAndModify: 'items', query: {}, update: { $set: { a: 1 } }, remove: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
  });
});
