// Test helpers for the MongoDB chosen by the global setup: a connected client, and a database
// name unique to each test file so files can run in parallel without seeing each other's data.
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
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
