// Dollar-prefixed and dotted field names as MongoDB 5.0+ stores them: allowed in inserted documents
// at any level, refused as top-level names of a replacement or of a field an update operator sets,
// and never allowed inside `_id` (nor an array `_id`). These are write errors, which carry a code and
// a message but no codeName.
import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/mongo.js';

const mongo = useTestDatabase('field_names');

/** Numbers, arrays and documents as `_id`: these tests send the ones mongod refuses too. */
interface StoredDoc extends Document {
  _id?: number | number[] | Record<string, unknown>;
}

function names(label: string) {
  return mongo.db.collection<StoredDoc>(label);
}

const replacementRefusal = (field: string, fullName = field) => ({
  code: 52, // DollarPrefixedFieldName
  message: `The dollar ($) prefixed field '${field}' in '${fullName}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
});

describe('inserted documents', () => {
  it('stores top-level and nested dollar-prefixed and dotted names as given', async () => {
    const collection = names('inserted');
    await collection.insertMany([
      { _id: 1, $a: 1 },
      { _id: 2, 'a.b': 1 },
      { _id: 3, a: { $b: 1, 'c.d': 2 } },
      { _id: 4, a: { $db: 'foo' } },
    ]);
    expect(await collection.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: 1, $a: 1 },
      { _id: 2, 'a.b': 1 },
      { _id: 3, a: { $b: 1, 'c.d': 2 } },
      { _id: 4, a: { $db: 'foo' } },
    ]);
  });

  it('refuses an _id holding a $-prefixed name at any depth, and stores nothing', async () => {
    const collection = names('dollar_ids');
    for (const [id, field] of [
      [{ $a: 1 }, '$a'],
      [{ x: { y: [{ $b: 1 }] } }, '$b'],
    ] as const) {
      await expect(collection.insertOne({ _id: id })).rejects.toMatchObject({
        code: 52, // DollarPrefixedFieldName
        message: `_id fields may not contain '$'-prefixed fields: ${field} is not valid for storage.`,
      });
    }
    expect(await collection.countDocuments()).toBe(0);
  });

  it('stores an _id with dotted names, or shaped as a DBRef', async () => {
    const collection = names('dotted_ids');
    await collection.insertMany([{ _id: { 'a.b': 1 } }, { _id: { $ref: 'plants', $id: 1, $db: 'shop' } }]);
    expect(await collection.countDocuments()).toBe(2);
  });

  it('refuses an array _id with InvalidIdField', async () => {
    await expect(names('array_ids').insertOne({ _id: [1, 2] })).rejects.toMatchObject({
      code: 53, // InvalidIdField
      message: "The '_id' value cannot be of type array",
    });
  });
});

describe('updates', () => {
  it('refuses a replacement with a top-level $-prefixed name, but not a nested one', async () => {
    const collection = names('replaced');
    await collection.insertOne({ _id: 1, a: 1 });
    await expect(collection.replaceOne({ _id: 1 }, { a: 2, $b: 1 })).rejects.toMatchObject(replacementRefusal('$b'));
    await expect(collection.replaceOne({ _id: 1 }, { a: { $b: 2 } })).resolves.toMatchObject({ modifiedCount: 1 });
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, a: { $b: 2 } });
  });

  it('refuses an update operator creating a top-level $-prefixed name, but not a nested one', async () => {
    const collection = names('operators');
    await collection.insertOne({ _id: 1, a: {} });
    await expect(collection.updateOne({ _id: 1 }, { $set: { $b: 1 } })).rejects.toMatchObject(replacementRefusal('$b'));
    await expect(collection.updateOne({ _id: 1 }, { $set: { 'a.$b': 1 } })).resolves.toMatchObject({ modifiedCount: 1 });
    expect(await collection.findOne({ _id: 1 })).toEqual({ _id: 1, a: { $b: 1 } });
  });
});
