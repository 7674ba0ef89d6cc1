// Features of mongod the emulator does not implement are refused with NotImplemented (238) and a
// message naming the feature, never answered with a different result. Against a real mongod
// (MONGODB_URI) the same calls check what mongod answers instead, which is the result the emulator
// would otherwise have got wrong.
import { MongoServerError } from 'mongodb';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { useTestDatabase, type AnyDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('unimplemented');
const emulated = inject('mongoKind') === 'emulator';
const caseInsensitive = { locale: 'en', strength: 2 };

function plants() {
  return mongo.db.collection<AnyDoc>('plants');
}

beforeEach(async () => {
  await mongo.db.dropDatabase();
  await plants().insertMany([
    { _id: 1, name: 'fern', rank: 2, grades: [1, 5, 9] },
    { _id: 2, name: 'Fern', rank: 3, grades: [2] },
    { _id: 3, name: 'moss', rank: 1, grades: [] },
  ]);
});

interface RefusalCase {
  feature: string;
  run: () => Promise<unknown>;
  /** What mongod answers (checked when the suite runs against one). */
  mongod: (result: unknown) => unknown;
}

const ids = (found: unknown): unknown[] => (found as AnyDoc[]).map((doc) => doc._id);

const refusals: RefusalCase[] = [
  {
    feature: "the 'collation' option of find",
    run: () => plants().find({ name: 'fern' }, { collation: caseInsensitive }).toArray(),
    mongod: (found) => {
      expect(ids(found).sort()).toEqual([1, 2]);
    },
  },
  {
    feature: "the 'collation' option of aggregate",
    run: () => plants().countDocuments({ name: 'fern' }, { collation: caseInsensitive }),
    mongod: (n) => {
      expect(n).toBe(2);
    },
  },
  {
    feature: "the 'collation' option of distinct",
    run: () => plants().distinct('name', { name: 'FERN' }, { collation: caseInsensitive }),
    mongod: (values) => {
      expect(values).toHaveLength(1);
    },
  },
  {
    feature: "the 'collation' option of update statements",
    run: () => plants().updateMany({ name: 'fern' }, { $set: { seen: true } }, { collation: caseInsensitive }),
    mongod: (result) => {
      expect(result).toMatchObject({ modifiedCount: 2 });
    },
  },
  {
    feature: "the 'collation' option of findAndModify",
    run: () => plants().findOneAndUpdate({ name: 'FERN' }, { $set: { seen: 2 } }, { collation: caseInsensitive }),
    mongod: (before) => {
      expect(before).toMatchObject({ name: expect.stringMatching(/^fern$/i) as unknown });
    },
  },
  {
    feature: "the 'collation' option of delete statements",
    run: () => plants().deleteMany({ name: 'FERN' }, { collation: caseInsensitive }),
    mongod: (result) => {
      expect(result).toMatchObject({ deletedCount: 2 });
    },
  },
  {
    feature: "the 'hint' option of find",
    run: async () => {
      await plants().createIndex({ name: 1 });
      return plants()
        .find({}, { hint: { name: 1 }, projection: { _id: 1 } })
        .toArray();
    },
    mongod: (found) => {
      expect(found).toEqual([{ _id: 2 }, { _id: 1 }, { _id: 3 }]);
    },
  },
  {
    feature: "the 'let' option of find",
    run: () =>
      plants()
        .find({ $expr: { $eq: ['$name', '$$wanted'] } }, { let: { wanted: 'moss' } })
        .toArray(),
    mongod: (found) => {
      expect(ids(found)).toEqual([3]);
    },
  },
  {
    feature: "the 'arrayFilters' option of update statements",
    run: async () => {
      await plants().updateOne({ _id: 1 }, { $set: { 'grades.$[big]': 0 } }, { arrayFilters: [{ big: { $gte: 5 } }] });
      return plants().findOne({ _id: 1 });
    },
    mongod: (updated) => {
      expect(updated).toMatchObject({ grades: [1, 0, 0] });
    },
  },
  {
    feature: 'the $expr query operator',
    run: () =>
      plants()
        .find({ $expr: { $gt: ['$rank', 2] } })
        .toArray(),
    mongod: (found) => {
      expect(ids(found)).toEqual([2]);
    },
  },
  {
    feature: 'the $facet aggregation stage',
    run: () =>
      plants()
        .aggregate([{ $facet: { n: [{ $count: 'n' }] } }])
        .toArray(),
    mongod: (result) => {
      expect(result).toEqual([{ n: [{ n: 3 }] }]);
    },
  },
  {
    feature: "the 'viewOn' option of create",
    run: async () => {
      await mongo.db.createCollection('ferns', { viewOn: 'plants', pipeline: [{ $match: { name: 'fern' } }] });
      return mongo.db.collection('ferns').countDocuments();
    },
    mongod: (n) => {
      expect(n).toBe(1);
    },
  },
  {
    feature: "the 'validator' option of create",
    run: async () => {
      await mongo.db.createCollection('named', { validator: { name: { $type: 'string' } } });
      return mongo.db
        .collection('named')
        .insertOne({ name: 1 })
        .catch((error: unknown) => error);
    },
    mongod: (error) => {
      expect(error).toMatchObject({ code: 121 });
    },
  },
  {
    feature: 'the collMod command',
    run: () => mongo.db.command({ collMod: 'plants', validator: {} }),
    mongod: (reply) => {
      expect(reply).toMatchObject({ ok: 1 });
    },
  },
  {
    feature: "the 'partialFilterExpression' index option",
    run: async () => {
      await plants().createIndex({ name: 1 }, { unique: true, partialFilterExpression: { rank: { $gt: 2 } } }, undefined);
      return plants().insertOne({ name: 'moss', rank: 0 });
    },
    mongod: (result) => {
      expect(result).toMatchObject({ acknowledged: true });
    },
  },
  {
    feature: "the 'expireAfterSeconds' index option",
    run: async () => {
      await plants().createIndex({ at: 1 }, { expireAfterSeconds: 60 }, undefined);
      return plants().listIndexes().toArray();
    },
    mongod: (indexes) => {
      expect(indexes).toContainEqual(expect.objectContaining({ name: 'at_1', expireAfterSeconds: 60 }));
    },
  },
  {
    feature: "'text' indexes",
    run: () => plants().createIndex({ name: 'text' }),
    mongod: (name) => {
      expect(name).toBe('name_text');
    },
  },
];

describe("features the emulator refuses by name (mongod's answer when run against one)", () => {
  it.each(refusals.map((refusal) => [refusal.feature, refusal] as const))('%s', async (feature, { run, mongod }) => {
    if (!emulated) {
      await mongod(await run());
      return;
    }
    const error = await run().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 238, codeName: 'NotImplemented', message: `the emulator does not implement ${feature}` });
  });

  it.runIf(emulated)('read concerns beyond what a standalone serves from memory', async () => {
    for (const level of ['snapshot', 'linearizable']) {
      await expect(mongo.db.command({ find: 'plants', readConcern: { level } })).rejects.toMatchObject({
        code: 238,
        message: `the emulator does not implement read concern level "${level}"`,
      });
    }
    await expect(mongo.db.command({ find: 'plants', readConcern: { level: 'majority' } })).resolves.toMatchObject({ ok: 1 });
  });
});

describe('the sort option of updateOne and replaceOne (MongoDB 8.0)', () => {
  it('updates the first document in sort order', async () => {
    await plants().updateOne({ name: /^fern$/i }, { $set: { picked: true } }, { sort: { rank: -1 } });
    await plants().replaceOne({}, { name: 'lowest' }, { sort: { rank: 1 } });
    expect(
      await plants()
        .find({}, { projection: { grades: 0 }, sort: { _id: 1 } })
        .toArray(),
    ).toEqual([
      { _id: 1, name: 'fern', rank: 2 },
      { _id: 2, name: 'Fern', rank: 3, picked: true },
      { _id: 3, name: 'lowest' },
    ]);
  });

  it('refuses a sort on a multi-document update', async () => {
    const command = { update: 'plants', updates: [{ q: {}, u: { $set: { x: 1 } }, multi: true, sort: { rank: 1 } }] };
    await expect(mongo.db.command(command)).rejects.toMatchObject({
      code: 9,
      codeName: 'FailedToParse',
      message: 'Cannot specify sort with multi=true',
    });
    expect(await plants().countDocuments({ x: 1 })).toBe(0);
  });
});
