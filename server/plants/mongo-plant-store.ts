import { Long, MongoServerError, type Collection, type Db, type WriteConcernSettings } from 'mongodb';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';
import { fromBigInt, type Int64 } from '../../schemas/int64.js';
import type { NewPlant, Plant, StoredPlant } from '../../schemas/plant.js';
import type { EventRecorder } from '../webhooks/register-webhooks.js';
import { newWebhookRecord, type WebhookRecord } from '../webhooks/webhook-record.js';
import { isUnavailable } from './mongo-errors.js';

/** One document per plant: the plant id is the `_id`, kept as BSON Int64 like the interface's int64. */
export interface PlantDocument {
  _id: Long;
  name: string;
  tag?: string;
  createdAt: Date;
  /** The new-plant event, written by the same insert (server/webhooks/webhook-record.ts); absent without WEBHOOK_URLS. */
  webhook?: WebhookRecord;
}

export const PLANTS_COLLECTION = 'plants';
const DUPLICATE_KEY = 11000;
/** A create whose id was taken, then freed by a delete, before it could read the holder: try again this often. */
const CREATE_ATTEMPTS = 3;
/** Reads keep Int64 as Long, so an id beyond 2^53 is never rounded on the way in. */
const EXACT_READ = { promoteLongs: false, projection: { name: 1, tag: 1 } } as const;

export class MongoPlantStore implements PlantStore {
  private readonly plants: Collection<PlantDocument>;

  constructor(
    private readonly db: Db,
    writeConcern: WriteConcernSettings,
    private readonly events?: EventRecorder,
  ) {
    this.plants = db.collection<PlantDocument>(PLANTS_COLLECTION, { writeConcern });
  }

  async create(plant: NewPlant): Promise<Plant> {
    const createdAt = new Date();
    const document: PlantDocument = {
      _id: toLong(plant.id),
      name: plant.name,
      ...(plant.tag !== undefined && { tag: plant.tag }),
      createdAt,
      ...(this.events && { webhook: newWebhookRecord(this.events.urls, createdAt) }),
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Resolves only once the server acknowledged the write with the collection's write concern;
        // a write concern error rejects (and is answered 503 by toStoreError), so no 200 goes out unacknowledged.
        const { acknowledged } = await this.plants.insertOne(document);
        if (!acknowledged) throw new Error('the insert was not acknowledged: MONGODB_WRITE_CONCERN must be at least 1');
        this.events?.recorded();
        return toPlant(document);
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw toStoreError(error);
      }
      // The id is taken: a retry of the same create answers the stored plant; anything else conflicts.
      // Its event is the one recorded with it: a replay records none.
      const stored = await this.plants.findOne({ _id: document._id }, { projection: { name: 1, tag: 1 } }).catch((error: unknown) => {
        throw toStoreError(error);
      });
      if (stored) {
        if (stored.name === plant.name && stored.tag === plant.tag) return toPlant(stored);
        throw new PlantConflictError(plant.id);
      }
      // Deleted since the insert failed: the id is free again.
      if (attempt === CREATE_ATTEMPTS) throw new PlantConflictError(plant.id);
    }
  }

  async list({ limit, after }: { limit: number; after: Int64 | undefined }): Promise<{ plants: StoredPlant[]; more: boolean }> {
    // Keyset paging on the _id index: no skip, and one plant more than asked tells whether more follow.
    const filter = after === undefined ? {} : { _id: { $gt: toLong(after) } };
    const documents = await this.plants
      .find(filter, { ...EXACT_READ, sort: { _id: 1 }, limit: limit + 1 })
      .toArray()
      .catch((error: unknown) => {
        throw toStoreError(error);
      });
    return { plants: documents.slice(0, limit).map(toStoredPlant), more: documents.length > limit };
  }

  async get(id: Int64): Promise<StoredPlant | undefined> {
    try {
      const document = await this.plants.findOne({ _id: toLong(id) }, EXACT_READ);
      return document ? toStoredPlant(document) : undefined;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async delete(id: Int64): Promise<boolean> {
    try {
      const { deletedCount } = await this.plants.deleteOne({ _id: toLong(id) });
      return deletedCount === 1;
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async ping(): Promise<void> {
    try {
      await this.db.command({ ping: 1 });
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/** The id as BSON Int64: exact for a bigint and for a safe-integer number alike. */
export function toLong(id: Int64): Long {
  return typeof id === 'bigint' ? Long.fromBigInt(id) : Long.fromNumber(id);
}

function toPlant(document: Pick<PlantDocument, 'name' | 'tag'>): Plant {
  return document.tag === undefined ? { name: document.name } : { name: document.name, tag: document.tag };
}

function toStoredPlant(document: Pick<PlantDocument, '_id' | 'name' | 'tag'>): StoredPlant {
  return { id: fromBigInt(document._id.toBigInt()), ...toPlant(document) };
}

/** An unavailable database becomes StoreUnavailableError (503); anything else stays unexpected (500). */
function toStoreError(error: unknown): unknown {
  return isUnavailable(error) ? new StoreUnavailableError({ cause: error }) : error;
}
