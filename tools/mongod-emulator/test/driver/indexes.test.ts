// createIndexes / listIndexes / dropIndexes, and unique index enforcement (single and compound).
import type { Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('indexes');

async function indexNames(collection: Collection<LooseDoc>): Promise<string[]> {
  return (await collection.listIndexes().toArray()).map((index: { name: string }) => index.name);
}

describe('indexes', () => {
  it('creates, lists and drops indexes', async () => {
    const collection = mongo.db.collection<LooseDoc>('listing');
    expect(await collection.createIndex({ name: 1 })).toBe('name_1');
    expect(await collection.createIndexes([{ key: { shop: 1, price: -1 }, unique: true }])).toEqual(['shop_1_price_-1']);
    expect(await collection.createIndex({ name: 1 })).toBe('name_1');
    const indexes = await collection.listIndexes().toArray();
    expect(indexes.map((index: { name: string }) => index.name)).toEqual(['_id_', 'name_1', 'shop_1_price_-1']);
    expect(indexes[2]).toMatchObject({ key: { shop: 1, price: -1 }, unique: true });
    expect(await collection.indexExists('name_1')).toBe(true);
    await collection.dropIndex('name_1');
    expect(await indexNames(collection)).toEqual(['_id_', 'shop_1_price_-1']);
    await collection.dropIndexes();
    expect(await indexNames(collection)).toEqual(['_id_']);
  });

  it('refuses to drop the _id index or a missing index', async () => {
    const collection = mongo.db.collection<LooseDoc>('dropping');
    await collection.insertOne({ a: 1 });
    await expect(collection.dropIndex('_id_')).rejects.toMatchObject({ code: 72 });
    await expect(collection.dropIndex('nope_1')).rejects.toMatchObject({ code: 27, codeName: 'IndexNotFound' });
  });

  it('enforces unique compound indexes on the combination of fields', async () => {
    const collection = mongo.db.collection<LooseDoc>('compound');
    await collection.createIndexes([{ key: { shop: 1, sku: 1 }, unique: true }]);
    await collection.insertMany([
      { shop: 'n', sku: 'a' },
      { shop: 'n', sku: 'b' },
      { shop: 's', sku: 'a' },
    ]);
    const error = await collection.insertOne({ shop: 'n', sku: 'a' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 11000, keyPattern: { shop: 1, sku: 1 }, keyValue: { shop: 'n', sku: 'a' } });
    await expect(collection.updateOne({ shop: 's' }, { $set: { shop: 'n' } })).rejects.toMatchObject({ code: 11000 });
  });

  it('treats a missing field as null in a unique index', async () => {
    const collection = mongo.db.collection<LooseDoc>('missing');
    await collection.createIndexes([{ key: { code: 1 }, unique: true }]);
    await collection.insertOne({ other: 1 });
    const error = await collection.insertOne({ other: 2 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 11000, keyValue: { code: null } });
  });

  it('fails to build a unique index over duplicate data, and keeps working without it', async () => {
    const collection = mongo.db.collection<LooseDoc>('existing');
    await collection.insertMany([{ v: 1 }, { v: 1 }, { v: 2 }]);
    const error = await collection.createIndexes([{ key: { v: 1 }, unique: true }]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 11000 });
    expect(await indexNames(collection)).toEqual(['_id_']);
    await collection.insertOne({ v: 1 });
    expect(await collection.countDocuments({ v: 1 })).toBe(3);
  });

  it('releases unique keys when documents are deleted or updated', async () => {
    const collection = mongo.db.collection<LooseDoc>('release');
    await collection.createIndexes([{ key: { email: 1 }, unique: true }]);
    await collection.insertOne({ email: 'a@x' });
    await collection.updateOne({ email: 'a@x' }, { $set: { email: 'b@x' } });
    await collection.insertOne({ email: 'a@x' });
    await collection.deleteOne({ email: 'b@x' });
    await collection.insertOne({ email: 'b@x' });
    expect(await collection.countDocuments()).toBe(2);
  });
});
