import { MongoClient, type Collection } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll } from 'vitest';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { testMongoUri } from './app.js';

export interface FreshDatabase {
  /** For the service's MONGODB_URI. */
  uri: string;
  /** Its plants, read through the test's own connection. */
  plants: Collection<PlantDocument>;
  drop: () => Promise<unknown>;
}

/** For a test file: `fresh()` gives a test a database of its own on the test MongoDB, which it drops after it. */
export function useFreshDatabases(): { fresh: () => FreshDatabase } {
  let client: MongoClient | undefined;
  beforeAll(async () => {
    client = await new MongoClient(testMongoUri()).connect();
  });
  afterAll(async () => {
    await client?.close();
  });
  return {
    fresh: () => {
      if (!client) throw new Error('useFreshDatabases: used outside a test');
      const uri = testMongoUri();
      const db = client.db(new ConnectionString(uri).pathname.slice(1));
      return { uri, plants: db.collection<PlantDocument>('plants'), drop: () => db.dropDatabase() };
    },
  };
}
