import { MongoClient, type Long } from 'mongodb';
import type { LoadPlant } from './drive-load.js';

export interface StoreCheck {
  /** Documents in the run's plants collection. */
  stored: number;
  /** Plants answered 200 whose document is not there. */
  missing: number;
  /** Documents beyond the first for one id (an `_id` index forbids them; counted, not assumed). */
  duplicates: number;
  /** Documents whose name or tag differ from what was sent, or whose id was never sent. */
  wrong: number;
}

interface StoredPlant {
  _id: Long | number;
  name: string;
  tag?: string;
}

/** Reads back every document of the run's database and compares it with what was sent. */
export async function verifyStore(
  mongoUri: string,
  dbName: string,
  sent: readonly LoadPlant[],
  okIds: readonly number[],
): Promise<StoreCheck> {
  const client = await new MongoClient(mongoUri, { serverSelectionTimeoutMS: 10_000 }).connect();
  try {
    const documents = await client
      .db(dbName)
      .collection<StoredPlant>('plants')
      .find({}, { projection: { name: 1, tag: 1 } })
      .toArray();
    const sentById = new Map(sent.map((plant) => [plant.id, plant]));
    const seen = new Map<number, number>();
    let wrong = 0;
    for (const document of documents) {
      const id = Number(document._id);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const plant = sentById.get(id);
      if (plant?.name !== document.name || plant.tag !== document.tag) wrong += 1;
    }
    return {
      stored: documents.length,
      missing: okIds.filter((id) => !seen.has(id)).length,
      duplicates: [...seen.values()].reduce((sum, count) => sum + count - 1, 0),
      wrong,
    };
  } finally {
    await client.close();
  }
}
