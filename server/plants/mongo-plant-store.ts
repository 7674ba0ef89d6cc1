import {
  Long,
  MongoServerError,
  type Abortable,
  type Collection,
  type CreateIndexesOptions,
  type Db,
  type DeleteOptions,
  type Filter,
  type InsertOneOptions,
  type UpdateFilter,
  type UpdateOptions,
  type WriteConcernSettings,
} from 'mongodb';
import { entityTagOf, matchesStrongly, type EntityTagCondition } from '../../routers/entity-tags.js';
import {
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StoreUnavailableError,
  type PlantStore,
  type Revised,
} from '../../routers/plant-store.js';
import { fromBigInt, type Int64 } from '../../schemas/int64.js';
import type { NewPlant, Plant, PlantPatch, StoredPlant } from '../../schemas/plant.js';
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
  /** How many effective changes the plant has had; absent until the first (and on plants stored before it was kept). */
  revision?: number;
  /** The new-plant event, written by the same insert; absent without WEBHOOK_URLS. */
  webhook?: WebhookRecord;
}

export const PLANTS_COLLECTION = 'plants';
const DUPLICATE_KEY = 11000;
/** A create whose id was taken, then freed by a delete, before it could read the holder: try again this often. */
const CREATE_ATTEMPTS = 3;
const PROJECTION = { name: 1, tag: 1, revision: 1 } as const;
/** Plants are listed by tag on this index: equal tags, then ascending ids, so a page is one range of it. */
export const TAG_INDEX = { key: { tag: 1, _id: 1 }, name: 'tag_id' } as const;

export class MongoPlantStore implements PlantStore {
  private readonly plants: Collection<PlantDocument>;

  /** `guard` bounds each operation by its deadline and hears of each outage; without it, the client's own timeouts apply. */
  constructor(
    private readonly db: Db,
    writeConcern: WriteConcernSettings,
    private readonly events?: EventRecorder,
    private readonly guard?: OperationGuard,
  ) {
    this.plants = db.collection<PlantDocument>(PLANTS_COLLECTION, { writeConcern });
  }

  /** The indexes the store's queries need beside `_id`'s; MongoDB keeps an index that already exists as it is. */
  async createIndexes(): Promise<void> {
    try {
      const options: CreateIndexesOptions & Abortable = { name: TAG_INDEX.name, signal: this.guard?.signal() };
      await this.plants.createIndex(TAG_INDEX.key, options, undefined);
    } catch (error) {
      throw this.storeError(error);
    }
  }

  async create(plant: NewPlant): Promise<Revised<Plant>> {
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
        if (stored.name === plant.name && stored.tag === plant.tag) return { ...toPlant(stored), ...revisionOf(stored) };
        throw new PlantConflictError(plant.id);
      }
      // Deleted since the insert failed: the id is free again.
      if (attempt === CREATE_ATTEMPTS) throw new PlantConflictError(plant.id);
    }
  }

  async list({
    limit,
    after,
    tag,
  }: {
    limit: number;
    after: Int64 | undefined;
    tag?: string | undefined;
  }): Promise<{ plants: StoredPlant[]; more: boolean }> {
    // Keyset paging on the _id index (or tag_id for one tag): no skip, and one plant more than asked tells whether
    // more follow; the whole page in one round trip, so no cursor outlives it.
    const filter: Filter<PlantDocument> = {
      ...(tag !== undefined && { tag }),
      ...(after !== undefined && { _id: { $gt: toLong(after) } }),
    };
    const documents = await this.plants
      .find(filter, {
        promoteLongs: false,
        projection: PROJECTION,
        sort: { _id: 1 },
        limit: limit + 1,
        batchSize: limit + 1,
        signal: this.guard?.signal(),
      })
      .toArray()
      .catch((error: unknown) => {
        throw this.storeError(error);
      });
    return { plants: documents.slice(0, limit).map(toStoredPlant), more: documents.length > limit };
  }

  async get(id: Int64): Promise<Revised<StoredPlant> | undefined> {
    const document = await this.find(id, this.guard?.signal());
    return document ? { ...toStoredPlant(document), ...revisionOf(document) } : undefined;
  }

  /**
   * The write's filter holds the revision, name and tag as read, so a change in between makes it match nothing and the
   * plant is read again: exactly one of several writers conditioned on the same entity tag succeeds.
   */
  async update(id: Int64, patch: PlantPatch, ifMatch?: EntityTagCondition): Promise<Revised<StoredPlant>> {
    const signal = this.guard?.signal();
    for (;;) {
      const document = await this.find(id, signal);
      if (!document) throw new PlantNotFoundError(id);
      const revision = document.revision ?? 0;
      const current = toStoredPlant(document);
      if (ifMatch && !matchesStrongly(ifMatch, entityTagOf(current, revision))) throw new PlantPreconditionFailedError(id);
      const name = patch.name ?? current.name;
      const tag = patch.tag === undefined ? current.tag : (patch.tag ?? undefined);
      if (name === current.name && tag === current.tag) return { ...current, revision };
      const change: UpdateFilter<PlantDocument> = {
        $set: { name, ...(tag !== undefined && { tag }), revision: revision + 1 },
        ...(tag === undefined && { $unset: { tag: '' } }),
      };
      const { matchedCount } = await this.plants
        .updateOne(asRead(document), change, { signal } as UpdateOptions & Abortable)
        .catch((error: unknown) => {
          throw this.storeError(error);
        });
      if (matchedCount === 1) return { id: current.id, name, ...(tag !== undefined && { tag }), revision: revision + 1 };
    }
  }

  async delete(id: Int64, ifMatch?: EntityTagCondition): Promise<boolean> {
    const signal = this.guard?.signal();
    const options: DeleteOptions & Abortable = { signal };
    if (ifMatch === undefined) {
      const { deletedCount } = await this.plants.deleteOne({ _id: toLong(id) }, options).catch((error: unknown) => {
        throw this.storeError(error);
      });
      return deletedCount === 1;
    }
    // As update: judged on what was read, deleted only if still so.
    for (;;) {
      const document = await this.find(id, signal);
      if (!document) return false;
      if (!matchesStrongly(ifMatch, entityTagOf(toStoredPlant(document), document.revision ?? 0)))
        throw new PlantPreconditionFailedError(id);
      const { deletedCount } = await this.plants.deleteOne(asRead(document), options).catch((error: unknown) => {
        throw this.storeError(error);
      });
      if (deletedCount === 1) return true;
    }
  }

  private async find(id: Int64, signal: AbortSignal | undefined): Promise<Pick<PlantDocument, '_id' | 'name' | 'tag' | 'revision'> | null> {
    try {
      // promoteLongs: false keeps Int64 as Long, so an id beyond 2^53 is never rounded on the way in.
      return await this.plants.findOne({ _id: toLong(id) }, { promoteLongs: false, projection: PROJECTION, signal });
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

/** A filter that matches the plant only while it is as read: same revision, name and tag (absent ones absent). */
function asRead(document: Pick<PlantDocument, '_id' | 'name' | 'tag' | 'revision'>): Filter<PlantDocument> {
  return {
    _id: document._id,
    name: document.name,
    tag: document.tag ?? { $exists: false },
    revision: document.revision ?? { $exists: false },
  };
}

function revisionOf(document: Pick<PlantDocument, 'revision'>): { revision?: number } {
  return document.revision === undefined ? {} : { revision: document.revision };
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
