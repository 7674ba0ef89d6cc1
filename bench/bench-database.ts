import { randomBytes } from 'node:crypto';
import { Long, MongoClient, type Collection } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { PLANTS_COLLECTION, type PlantDocument } from '../index.js';
import { PLANT_NAME, PLANT_TAG } from './plant-requests.js';

const BATCH = 10_000;

/**
 * The database of one benchmark run, of its own on the MongoDB it is given (so a MONGODB_URI
 * that names a real database is never touched) and dropped at the end. The list and delete
 * rounds need known plants in it: they are written here straight through the driver, as the
 * service stores them (Int64 `_id`, name, tag, creation time).
 */
export class BenchDatabase {
  private constructor(
    private readonly client: MongoClient,
    private readonly plants: Collection<PlantDocument>,
    /** The connection string the servers get: the given one, naming this database. */
    readonly uri: string,
  ) {}

  static async open(serverUri: string): Promise<BenchDatabase> {
    const uri = new ConnectionString(serverUri);
    uri.pathname = `/plantstore_bench_${randomBytes(4).toString('hex')}`;
    const client = await new MongoClient(uri.toString(), { serverSelectionTimeoutMS: 10_000 }).connect();
    return new BenchDatabase(client, client.db().collection<PlantDocument>(PLANTS_COLLECTION), uri.toString());
  }

  /** Stores `count` plants with ids from `firstId` on, named as the create rounds name theirs. */
  async fill(firstId: number, count: number): Promise<void> {
    for (let offset = 0; offset < count; offset += BATCH) {
      const size = Math.min(BATCH, count - offset);
      const documents = Array.from({ length: size }, (_, index): PlantDocument => ({
        _id: Long.fromNumber(firstId + offset + index),
        name: PLANT_NAME,
        tag: PLANT_TAG,
        createdAt: new Date(),
      }));
      await this.plants.insertMany(documents, { ordered: false });
    }
  }

  /** Removes every plant. */
  async empty(): Promise<void> {
    await this.plants.deleteMany({});
  }

  async drop(): Promise<void> {
    try {
      await this.client.db().dropDatabase();
    } finally {
      await this.client.close();
    }
  }
}
