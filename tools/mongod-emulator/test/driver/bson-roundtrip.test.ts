// Every BSON type the service stores comes back exactly as written, type included.
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('bson');

describe('BSON round-trip', () => {
  it('returns each type unchanged', async () => {
    const original = {
      _id: new ObjectId(),
      int32: new Int32(-7),
      int64: Long.fromString('-9223372036854775808'),
      int64Big: Long.fromBigInt(2n ** 62n + 3n),
      doubleWhole: new Double(5),
      doubleFraction: new Double(-0.1),
      decimal: Decimal128.fromString('1234567890.123456789012345678901234'),
      date: new Date('2024-05-06T07:08:09.010Z'),
      objectId: new ObjectId('65f0c0ffee0000000000beef'),
      binary: new Binary(Buffer.from([0, 1, 2, 255])),
      uuid: new UUID('0f8fad5b-d9cb-469f-a165-70867728950e').toBinary(),
      text: 'grüne Pflanze 🌱',
      yes: true,
      nothing: null,
      regex: new BSONRegExp('^pl(ant)?', 'i'),
      timestamp: new Timestamp({ t: 1_700_000_000, i: 7 }),
      min: new MinKey(),
      max: new MaxKey(),
      nested: { level: { deeper: [new Int32(1), Long.fromNumber(2), new Double(3), 'four', { five: new Int32(5) }] } },
      empty: { list: [], doc: {} },
    };
    const collection = mongo.db.collection<LooseDoc>('roundtrip');
    await collection.insertOne(original);
    const stored = await collection.findOne(
      { _id: original._id },
      { promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: true },
    );
    expect(stored).toEqual(original);
    expect(Object.keys(stored ?? {})).toEqual(Object.keys(original));
    expect(stored?.int32).toBeInstanceOf(Int32);
    expect(stored?.int64).toBeInstanceOf(Long);
    expect(stored?.doubleWhole).toBeInstanceOf(Double);
    expect(stored?.decimal).toBeInstanceOf(Decimal128);
    expect((stored?.uuid as Binary).sub_type).toBe(Binary.SUBTYPE_UUID);
  });

  it('returns big Int64 values as bigint when asked', async () => {
    const collection = mongo.db.collection<LooseDoc>('bigint');
    await collection.insertOne({ _id: 1, v: Long.fromBigInt(2n ** 60n + 1n) });
    const doc = await collection.findOne({ v: Long.fromBigInt(2n ** 60n + 1n) }, { useBigInt64: true });
    expect(doc?.v).toBe(2n ** 60n + 1n);
  });
});
