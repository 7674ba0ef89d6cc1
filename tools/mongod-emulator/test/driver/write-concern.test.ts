// Write concerns as a standalone mongod (this suite's server, see server-commands.test.ts) treats
// them: what needs a replica set (`w` above 1, a tag) is refused before the write runs, with mongod's
// code and message; what a standalone honours (`w` 0, 1 or "majority", `j`, `wtimeout`) is accepted.
import { MongoServerError, type WriteConcernSettings } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('write_concern');

function plants(writeConcern?: WriteConcernSettings) {
  return mongo.db.collection<LooseDoc>('plants', writeConcern ? { writeConcern } : {});
}

async function storedIds(): Promise<unknown[]> {
  return (
    await plants()
      .find({}, { sort: { _id: 1 } })
      .toArray()
  ).map((doc) => doc._id);
}

const replicaSetOnly = { code: 2, codeName: 'BadValue', errmsg: "cannot use 'w' > 1 when a host is not replicated" };
const unknownTag = {
  code: 2,
  codeName: 'BadValue',
  errmsg: 'cannot use non-majority \'w\' mode "someTag" when a host is not a member of a replica set',
};

beforeEach(async () => {
  await plants().deleteMany({});
  await plants().insertOne({ _id: 1, name: 'fern' });
});

describe('write concerns a standalone cannot honour', () => {
  it('refuses w: 2 (MONGODB_WRITE_CONCERN=2, journaled) before inserting anything', async () => {
    const error = await plants({ w: 2, journal: true })
      .insertOne({ _id: 2 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject(replicaSetOnly);
    expect(await storedIds()).toEqual([1]);
  });

  it('refuses any w above 1 on every write the product makes', async () => {
    const refused = plants({ w: 3 });
    await expect(refused.updateOne({ _id: 1 }, { $set: { name: 'moss' } })).rejects.toMatchObject(replicaSetOnly);
    await expect(refused.updateMany({}, { $set: { name: 'moss' } })).rejects.toMatchObject(replicaSetOnly);
    await expect(refused.findOneAndUpdate({ _id: 1 }, { $set: { name: 'moss' } })).rejects.toMatchObject(replicaSetOnly);
    await expect(refused.deleteOne({ _id: 1 })).rejects.toMatchObject(replicaSetOnly);
    await expect(refused.createIndex({ name: 1 })).rejects.toMatchObject(replicaSetOnly);
    expect(await plants().findOne({ _id: 1 })).toEqual({ _id: 1, name: 'fern' });
    expect((await plants().listIndexes().toArray()).map((index: { name: string }) => index.name)).toEqual(['_id_']);
  });

  it('refuses a tag name, which only a replica set configuration can define', async () => {
    // The driver's types allow only "majority" as a string, so the command is sent as mongod receives it.
    const insert = { insert: 'plants', documents: [{ _id: 2 }], writeConcern: { w: 'someTag' } };
    await expect(mongo.db.command(insert)).rejects.toMatchObject(unknownTag);
    expect(await storedIds()).toEqual([1]);
  });

  it('fails to parse a w beyond the 50 members a replica set can have, or below 0', async () => {
    for (const w of [51, -1]) {
      const error = await mongo.db
        .command({ insert: 'plants', documents: [{ _id: 2 }], writeConcern: { w } })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 9,
        codeName: 'FailedToParse',
        errmsg: `w has to be a non-negative number and not greater than 50; found: ${w}`,
      });
    }
    expect(await storedIds()).toEqual([1]);
  });

  it('refuses any writeConcern on commands that never write', async () => {
    const commands = [{ find: 'plants' }, { count: 'plants' }, { distinct: 'plants', key: 'name' }];
    for (const command of commands) {
      await expect(mongo.db.command({ ...command, writeConcern: { w: 1 } })).rejects.toMatchObject({
        code: 72,
        codeName: 'InvalidOptions',
        errmsg: 'Command does not support writeConcern',
      });
    }
  });
});

describe('write concerns a standalone accepts', () => {
  it('accepts w: 1 and w: "majority", journaled or not, with a wtimeout', async () => {
    const accepted: WriteConcernSettings[] = [
      { w: 1 },
      { w: 'majority' },
      { w: 'majority', journal: true },
      { w: 1, journal: false },
      { w: 'majority', wtimeoutMS: 500 },
    ];
    for (const [index, writeConcern] of accepted.entries()) {
      await expect(plants(writeConcern).insertOne({ _id: 10 + index })).resolves.toMatchObject({ acknowledged: true });
    }
    await expect(plants({ w: 'majority', journal: true }).updateOne({ _id: 1 }, { $set: { name: 'moss' } })).resolves.toMatchObject({
      modifiedCount: 1,
    });
    expect(await storedIds()).toEqual([1, 10, 11, 12, 13, 14]);
  });

  it('accepts w: 0, an unacknowledged write that still happens', async () => {
    await expect(plants({ w: 0 }).insertOne({ _id: 2 })).resolves.toMatchObject({ acknowledged: false });
    await expect.poll(storedIds).toEqual([1, 2]);
  });
});
