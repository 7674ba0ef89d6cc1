// Filter and sort semantics: numeric comparison across BSON number types (exact for Int64 beyond
// 2^53), BSON type order, and the query operators.
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, type Document } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('query');
const TWO_53 = 2n ** 53n;

async function ids(collection: string, filter: Document, sort: Document = { _id: 1 }): Promise<unknown[]> {
  return (await mongo.db.collection(collection).find(filter).sort(sort).toArray()).map((doc) => doc._id);
}

describe('numbers across BSON types', () => {
  beforeAll(async () => {
    await mongo.db.collection<LooseDoc>('numbers').insertMany([
      { _id: Long.fromNumber(5), v: new Int32(1) },
      { _id: 'big0', v: Long.fromBigInt(TWO_53) },
      { _id: 'big1', v: Long.fromBigInt(TWO_53 + 1n) },
      { _id: 'big2', v: Long.fromBigInt(TWO_53 + 2n) },
      { _id: 'dbl', v: new Double(2.5) },
      { _id: 'dec', v: Decimal128.fromString('1.5') },
      { _id: 'int', v: new Int32(2) },
      { _id: 'str', v: '3' },
    ]);
  });

  it('finds an Int64 _id with an int32, double or decimal of the same value', async () => {
    expect(await ids('numbers', { _id: 5 })).toHaveLength(1);
    expect(await ids('numbers', { _id: new Double(5) })).toHaveLength(1);
    expect(await ids('numbers', { _id: Decimal128.fromString('5.0') })).toHaveLength(1);
    expect(await ids('numbers', { _id: { $in: [new Double(5), 'nope'] } })).toHaveLength(1);
  });

  it('compares Int64 values beyond 2^53 exactly', async () => {
    expect(await ids('numbers', { v: { $gt: Long.fromBigInt(TWO_53) } })).toEqual(['big1', 'big2']);
    expect(await ids('numbers', { v: { $gte: Long.fromBigInt(TWO_53 + 1n), $lt: Long.fromBigInt(TWO_53 + 2n) } })).toEqual(['big1']);
    expect(await ids('numbers', { v: new Double(Number(TWO_53)) })).toEqual(['big0']);
    expect(await ids('numbers', { v: { $ne: Long.fromBigInt(TWO_53 + 1n), $type: 'long' } })).toEqual(['big0', 'big2']);
    expect(await ids('numbers', { v: { $nin: [Long.fromBigInt(TWO_53), Long.fromBigInt(TWO_53 + 2n)], $type: 'long' } })).toEqual(['big1']);
  });

  it('sorts numbers by value whatever their type, and only numbers match numeric ranges', async () => {
    expect(await ids('numbers', { v: { $gte: 1 } }, { v: -1 })).toEqual(['big2', 'big1', 'big0', 'dbl', 'int', 'dec', 5]);
    expect(await ids('numbers', { v: { $lt: new Double(2.1) } }, { v: 1 })).toEqual([5, 'dec', 'int']);
    expect(await ids('numbers', { v: { $eq: new Double(1.5) } })).toEqual(['dec']);
    expect(await ids('numbers', { v: { $in: [new Double(2), Long.fromNumber(1)] } }, { v: 1 })).toEqual([5, 'int']);
  });
});

describe('BSON type order', () => {
  it('sorts values of different types as MongoDB defines it', async () => {
    const values: [string, unknown][] = [
      ['maxKey', new MaxKey()],
      ['regex', new BSONRegExp('a', 'i')],
      ['timestamp', new Timestamp({ t: 100, i: 1 })],
      ['date', new Date(0)],
      ['bool', false],
      ['objectId', new ObjectId('000000000000000000000001')],
      ['binData', new Binary(Buffer.from([1]))],
      ['array', [7]],
      ['object', { a: 1 }],
      ['string', 'text'],
      ['number', 42],
      ['null', null],
      ['minKey', new MinKey()],
    ];
    await mongo.db.collection<LooseDoc>('types').insertMany(values.map(([name, v]) => ({ _id: name, v })));
    const ascending = await ids('types', {}, { v: 1 });
    // Arrays sort by their smallest element, so [7] sits with the numbers (before 42).
    expect(ascending).toEqual([
      'minKey',
      'null',
      'array',
      'number',
      'string',
      'object',
      'binData',
      'objectId',
      'bool',
      'date',
      'timestamp',
      'regex',
      'maxKey',
    ]);
  });
});

describe('query operators', () => {
  beforeAll(async () => {
    await mongo.db.collection<LooseDoc>('ops').insertMany([
      {
        _id: 1,
        name: 'Aloe vera',
        qty: 10,
        tags: ['a', 'b'],
        dims: [
          { w: 1, h: 5 },
          { w: 3, h: 2 },
        ],
        meta: { color: 'green' },
      },
      { _id: 2, name: 'basil', qty: 0, tags: ['b'], dims: [{ w: 2, h: 2 }], meta: { color: null } },
      { _id: 3, name: 'Cactus', tags: [], dims: [] },
      { _id: 4, name: 'dill', qty: new Double(7.5), tags: ['c', 'a', 'd'] },
    ]);
  });

  it('combines conditions with $and, $or, $nor and $not', async () => {
    expect(await ids('ops', { $and: [{ qty: { $gte: 0 } }, { tags: 'b' }] })).toEqual([1, 2]);
    expect(await ids('ops', { $or: [{ qty: 0 }, { name: 'dill' }] })).toEqual([2, 4]);
    expect(await ids('ops', { $nor: [{ tags: 'a' }, { qty: 0 }] })).toEqual([3]);
    expect(await ids('ops', { qty: { $not: { $gt: 5 } } })).toEqual([2, 3]);
  });

  it('checks existence, null and types', async () => {
    expect(await ids('ops', { qty: { $exists: false } })).toEqual([3]);
    expect(await ids('ops', { 'meta.color': null })).toEqual([2, 3, 4]);
    expect(await ids('ops', { 'meta.color': { $exists: true } })).toEqual([1, 2]);
    expect(await ids('ops', { qty: { $type: 'double' } })).toEqual([4]);
    expect(await ids('ops', { qty: { $type: 'number' } })).toEqual([1, 2, 4]);
    expect(await ids('ops', { tags: { $type: 'array' } })).toEqual([1, 2, 3, 4]);
  });

  it('matches regular expressions', async () => {
    expect(await ids('ops', { name: { $regex: '^[a-c]', $options: 'i' } })).toEqual([1, 2, 3]);
    expect(await ids('ops', { name: /^d/ })).toEqual([4]);
    expect(await ids('ops', { name: { $not: /a/i } })).toEqual([4]);
  });

  it('matches arrays with $size, $all, $elemMatch and element equality', async () => {
    expect(await ids('ops', { tags: { $size: 1 } })).toEqual([2]);
    expect(await ids('ops', { tags: { $all: ['a', 'd'] } })).toEqual([4]);
    expect(await ids('ops', { dims: { $elemMatch: { w: { $gte: 2 }, h: 2 } } })).toEqual([1, 2]);
    expect(await ids('ops', { dims: { $elemMatch: { w: 1, h: 2 } } })).toEqual([]);
    expect(await ids('ops', { 'dims.w': 1, 'dims.h': 2 })).toEqual([1]);
    expect(await ids('ops', { 'dims.0.h': 5 })).toEqual([1]);
    expect(await ids('ops', { tags: ['b'] })).toEqual([2]);
    expect(await ids('ops', { tags: { $in: ['c', 'x'] } })).toEqual([4]);
  });

  it('sorts by array fields using the smallest element ascending and largest descending', async () => {
    expect(await ids('ops', { _id: { $in: [1, 2, 4] } }, { tags: 1, _id: 1 })).toEqual([1, 4, 2]);
    expect(await ids('ops', { _id: { $in: [1, 2, 4] } }, { tags: -1, _id: 1 })).toEqual([4, 1, 2]);
  });
});
