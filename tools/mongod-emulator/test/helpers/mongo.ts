// Test helpers for the MongoDB chosen by the global setup: a connected client, and a database
// name unique to each test file so files can run in parallel without seeing each other's data.
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db, type Decimal128, type Document, type Double, type Int32, type Long, type ObjectId } from 'mongodb';
import { afterAll, beforeAll, inject } from 'vitest';

export function connectTestMongo(): Promise<MongoClient> {
  return new MongoClient(inject('mongoUri'), { serverSelectionTimeoutMS: 10_000 }).connect();
}

/** A fresh database name such as `t_crud_1a2b3c4d` (letters, digits and underscores, < 64 chars). */
export function uniqueDbName(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40);
  return `t_${safe}_${randomBytes(4).toString('hex')}`;
}

export interface TestDatabase {
  readonly client: MongoClient;
  readonly db: Db;
}

/** Registers beforeAll/afterAll hooks giving the calling test file its own database. */
export function useTestDatabase(label: string): TestDatabase {
  let client: MongoClient | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    client = await connectTestMongo();
    db = client.db(uniqueDbName(label));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });
  return {
    get client(): MongoClient {
      if (!client) throw new Error('useTestDatabase: used outside a test');
      return client;
    },
    get db(): Db {
      if (!db) throw new Error('useTestDatabase: used outside a test');
      return db;
    },
  };
}

/** The `_id` types the tests use. */
export type TestId = number | string | ObjectId | Long | Int32 | Double | Decimal128;

/** A test document: any fields, and an `_id` of any BSON type (mongod accepts them all). */
export interface LooseDoc {
  _id?: TestId;
  [field: string]: unknown;
}

/** A document whose fields may hold anything, for tests exercising raw update operators. */
export interface AnyDoc extends Document {
  _id?: TestId;
}

/** The cursor part of a raw find/aggregate/getMore reply. */
export interface CursorReply {
  cursor: { firstBatch?: LooseDoc[]; nextBatch?: LooseDoc[]; id: Long; ns: string };
}
