// Aggregation pipelines through the driver: the common stages and $group accumulators.
import { Double } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, type CursorReply, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('aggregate');

function sales() {
  return mongo.db.collection<LooseDoc>('sales');
}

beforeAll(async () => {
  await sales().insertMany([
    { _id: 1, plant: 'fern', shop: 'north', qty: 2, price: new Double(10), tags: ['green', 'shade'] },
    { _id: 2, plant: 'fern', shop: 'south', qty: 1, price: new Double(12), tags: ['green'] },
    { _id: 3, plant: 'cactus', shop: 'north', qty: 5, price: new Double(4), tags: [] },
    { _id: 4, plant: 'palm', shop: 'south', qty: 3, price: new Double(20) },
  ]);
});

describe('aggregate', () => {
  it('matches, sorts, skips, limits and projects', async () => {
    const result = await sales()
      .aggregate([
        { $match: { qty: { $gte: 2 } } },
        { $sort: { qty: -1 } },
        { $skip: 1 },
        { $limit: 2 },
        { $project: { _id: 0, plant: 1, total: { $multiply: ['$qty', '$price'] } } },
      ])
      .toArray();
    expect(result).toEqual([
      { plant: 'palm', total: 60 },
      { plant: 'fern', total: 20 },
    ]);
  });

  it('groups with every accumulator', async () => {
    const result = await sales()
      .aggregate([
        { $sort: { _id: 1 } },
        {
          $group: {
            _id: '$plant',
            qty: { $sum: '$qty' },
            rows: { $sum: 1 },
            avgPrice: { $avg: '$price' },
            minPrice: { $min: '$price' },
            maxPrice: { $max: '$price' },
            firstShop: { $first: '$shop' },
            lastShop: { $last: '$shop' },
            shops: { $push: '$shop' },
            shopSet: { $addToSet: '$shop' },
            n: { $count: {} },
          },
        },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(result).toEqual([
      {
        _id: 'cactus',
        qty: 5,
        rows: 1,
        avgPrice: 4,
        minPrice: 4,
        maxPrice: 4,
        firstShop: 'north',
        lastShop: 'north',
        shops: ['north'],
        shopSet: ['north'],
        n: 1,
      },
      {
        _id: 'fern',
        qty: 3,
        rows: 2,
        avgPrice: 11,
        minPrice: 10,
        maxPrice: 12,
        firstShop: 'north',
        lastShop: 'south',
        shops: ['north', 'south'],
        shopSet: expect.arrayContaining(['north', 'south']) as unknown,
        n: 2,
      },
      {
        _id: 'palm',
        qty: 3,
        rows: 1,
        avgPrice: 20,
        minPrice: 20,
        maxPrice: 20,
        firstShop: 'south',
        lastShop: 'south',
        shops: ['south'],
        shopSet: ['south'],
        n: 1,
      },
    ]);
  });

  it('groups everything under a null _id', async () => {
    const [total] = await sales()
      .aggregate([{ $group: { _id: null, qty: { $sum: '$qty' } } }])
      .toArray();
    expect(total).toEqual({ _id: null, qty: 11 });
  });

  it('adds, sets and unsets fields', async () => {
    const [doc] = await sales()
      .aggregate([
        { $match: { _id: 1 } },
        { $addFields: { double: { $multiply: ['$qty', 2] } } },
        { $set: { label: { $concat: ['$plant', '@', '$shop'] } } },
        { $unset: ['tags', 'price'] },
      ])
      .toArray();
    expect(doc).toEqual({ _id: 1, plant: 'fern', shop: 'north', qty: 2, double: 4, label: 'fern@north' });
  });

  it('unwinds arrays and counts', async () => {
    const unwound = await sales()
      .aggregate([{ $unwind: '$tags' }, { $project: { _id: 1, tags: 1 } }, { $sort: { _id: 1, tags: 1 } }])
      .toArray();
    expect(unwound).toEqual([
      { _id: 1, tags: 'green' },
      { _id: 1, tags: 'shade' },
      { _id: 2, tags: 'green' },
    ]);
    const preserved = await sales()
      .aggregate([{ $unwind: { path: '$tags', preserveNullAndEmptyArrays: true } }, { $count: 'rows' }])
      .toArray();
    expect(preserved).toEqual([{ rows: 5 }]);
    expect(
      await sales()
        .aggregate([{ $match: { qty: 100 } }, { $count: 'rows' }])
        .toArray(),
    ).toEqual([]);
  });

  it('batches aggregate results through a cursor', async () => {
    const reply = (await mongo.db.command(
      { aggregate: 'sales', pipeline: [{ $sort: { _id: 1 } }], cursor: { batchSize: 2 } },
      { promoteLongs: false },
    )) as CursorReply;
    expect(reply.cursor.firstBatch).toHaveLength(2);
    expect(reply.cursor.id.isZero()).toBe(false);
    expect(
      await sales()
        .aggregate([{ $sort: { _id: 1 } }], { batchSize: 1 })
        .toArray(),
    ).toHaveLength(4);
  });

  it('rejects unknown stages', async () => {
    await expect(
      sales()
        .aggregate([{ $frobnicate: {} }])
        .toArray(),
    ).rejects.toMatchObject({ code: 40324 });
  });
});
