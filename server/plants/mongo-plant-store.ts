import { Long, MongoServerError, type Abortable, type Collection, type Db, type DeleteOptions, type InsertOneOptions, type WriteConcernSettings } from 'mongodb';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';
import { fromBigInt, type Int64 } from '../../schemas/int64.js';
import type { NewPlant, Plant, StoredPlant } from '../../schemas/plant.js';
import type { OperationGuard } from '../db/mongo-database.js';
import type { EventRecorder } from '../webhooks/register-webhooks.js';
import { newWebhookRecord, type WebhookRecord } from '../webhooks/webhook-record.js';
import { isUnavailable } from '../db/mongo-errors.js';

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
const PROJECTION = { name: 1, tag: 1 } as const;

export class MongoPlantStore implements PlantStore {
  private readonly plants: Collection<PlantDocument>;

  /**
   * `guard`, when given, bounds each operation by its deadline and hears of each outage
   * (server/db/mongo-database.ts); without it, the client's own timeouts apply.
   */
  constructor(
    private readonly db: Db,
    writeConcern: WriteConcernSettings,
    private readonly events?: EventRecorder,
    private readonly guard?: OperationGuard,
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
      ...(this.events && { webhook: newWebhookRecord(this.events.urls, createdAt, this.events.traceparent?.()) }),
    };
    // One deadline for the whole create, the reads that follow a taken id included.
    const signal = this.guard?.signal();
    // Every driver operation honours `signal`, though only the reads declare it.
    const insertOptions: InsertOneOptions & Abortable = { signal };
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Resolves only once the server acknowledged the write with the collection's write concern;
        // a write concern error rejects (and is answered 503 by storeError), so no 200 goes out unacknowledged.
        const { acknowledged } = await this.plants.insertOne(document, insertOptions);
        if (!acknowledged) throw new Error('the insert was not acknowledged: MONGODB_WRITE_CONCERN must be at least 1');
        this.events?.recorded();
        return toPlant(document);
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw this.storeError(error);
      }
      // The id is taken: a retry of the same create answers the stored plant; anything else conflicts.
      // Its event is the one recorded with it: a replay records none.
      const stored = await this.plants.findOne({ _id: document._id }, { projection: PROJECTION, signal }).catch((error: unknown) => {
        throw this.storeError(error);
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
    // Keyset paging on the _id index: no skip, and one plant more than asked tells whether more follow;
    // the whole page in one round trip, so no cursor outlives it.
    const filter = after === undefined ? {} : { _id: { $gt: toLong(after) } };
    const documents = await this.plants
      .find(filter, { promoteLongs: false, projection: PROJECTION, sort: { _id: 1 }, limit: limit + 1, batchSize: limit + 1, signal: this.guard?.signal() })
      .toArray()
      .catch((error: unknown) => {
        throw this.storeError(error);
      });
    return { plants: documents.slice(0, limit).map(toStoredPlant), more: documents.length > limit };
  }

  async get(id: Int64): Promise<StoredPlant | undefined> {
    try {
      // promoteLongs: false keeps Int64 as Long, so an id beyond 2^53 is never rounded on the way in.
      const document = await this.plants.findOne({ _id: toLong(id) }, { promoteLongs: false, projection: PROJECTION, signal: this.guard?.signal() });
      return document ? toStoredPlant(document) : undefined;
    } catch (error) {
      throw this.storeError(error);
    }
  }

  async delete(id: Int64): Promise<boolean> {
    try {
      const options: DeleteOptions & Abortable = { signal: this.guard?.signal() };
      const { deletedCount } = await this.plants.deleteOne({ _id: toLong(id) }, options);
      return deletedCount === 1;
    } catch (error) {
      throw this.storeError(error);
    }
  }

  async ping(): Promise<void> {
    try {
      await this.db.command({ ping: 1 }, { signal: this.guard?.signal() });
    } catch (error) {
      throw this.storeError(error);
    }
  }

  /** An unavailable database becomes StoreUnavailableError (503), and the guard hears of it; anything else stays unexpected (500). */
  private storeError(error: unknown): unknown {
    if (!isUnavailable(error)) return error;
    this.guard?.unavailable(error);
    return new StoreUnavailableError({ cause: error });
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
