import {
  Long,
  MongoServerError,
  type Abortable,
  type Collection,
  type CreateIndexesOptions,
  type Db,
  type DeleteOptions,
  type FindOneAndUpdateOptions,
  type Filter,
  type InsertOneOptions,
  type UpdateFilter,
  type UpdateOptions,
  type WriteConcernSettings,
} from 'mongodb';
import { entityTagOf, failedCondition, type Precondition } from '../../routers/entity-tags.js';
import {
  ChangeQueueFullError,
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StoreMisconfiguredError,
  StoreUnavailableError,
  type PlantStore,
  type Revised,
} from '../../routers/plant-store.js';
import { fromBigInt, type Int64 } from '../../schemas/int64.js';
import type { NewPlant, Plant, PlantPatch, StoredPlant } from '../../schemas/plant.js';
import type { OperationGuard } from '../db/mongo-database.js';
import type { EventRecorder } from '../webhooks/register-webhooks.js';
import { newWebhookRecord, type WebhookRecord } from '../webhooks/webhook-record.js';
import type { ChangeQueue } from '../webhooks/change-record.js';
import { ChangeWrites, isTooLarge, withQueued, type QueuedChange } from '../webhooks/change-writes.js';
import { isUnavailable, refusesWriteConcern } from '../db/mongo-errors.js';

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
  /** The change events not yet delivered, appended by the write that made each change; absent without WEBHOOK_CHANGE_URLS. */
  changes?: ChangeQueue;
  /** A deleted plant kept (without its tag) until its change events are delivered: no read of the store sees it. */
  tombstone?: true;
}

/** What a write needs to know of the plant as read: its fields, and whether a worker holds its change events. */
type ReadPlant = Pick<PlantDocument, '_id' | 'name' | 'tag' | 'revision'> & { changes?: { lease?: { token: string } } };
type ReadDocument = ReadPlant & Pick<PlantDocument, 'tombstone'>;

/** Only plants: a tombstone is not one. */
const LIVE = { tombstone: { $exists: false } } as const;

export const PLANTS_COLLECTION = 'plants';
const DUPLICATE_KEY = 11000;
/** A create whose id was taken, then freed by a delete, before it could read the holder: try again this often. */
const CREATE_ATTEMPTS = 3;
const PROJECTION = { name: 1, tag: 1, revision: 1 } as const;
/** What a create, an update or a delete reads before writing: the plant, whether it is a tombstone, the change lease. */
const WRITE_PROJECTION = { ...PROJECTION, tombstone: 1, 'changes.lease.token': 1 } as const;
/** Plants are listed by tag on this index: equal tags, then ascending ids, so a page is one range of it. */
export const TAG_INDEX = { key: { tag: 1, _id: 1 }, name: 'tag_id' } as const;

export class MongoPlantStore implements PlantStore {
  private readonly plants: Collection<PlantDocument>;
  private readonly changes: ChangeWrites;

  /** Set once MongoDB has refused the write concern: the store is not ready, since no write can succeed. */
  private misconfigured: StoreMisconfiguredError | undefined;

  /** `guard` bounds each operation by its deadline and hears of each outage; without it, the client's own timeouts apply. */
  constructor(
    private readonly db: Db,
    private readonly writeConcern: WriteConcernSettings,
    private readonly events?: EventRecorder,
    private readonly guard?: OperationGuard,
  ) {
    this.plants = db.collection<PlantDocument>(PLANTS_COLLECTION, { writeConcern });
    this.changes = new ChangeWrites(events?.changeUrls ?? [], events?.changeQueueLimit ?? 0);
  }

  /**
   * The indexes the store's queries need beside `_id`'s; MongoDB keeps an index that already exists as it is. Written
   * with the store's write concern, this is also where a write concern MongoDB refuses shows before any write does.
   */
  async createIndexes(): Promise<void> {
    const options: CreateIndexesOptions & Abortable = { name: TAG_INDEX.name, signal: this.guard?.signal() };
    try {
      await this.plants.createIndex(TAG_INDEX.key, options, undefined);
    } catch (error) {
      if (!refusesWriteConcern(error)) throw this.storeError(error);
      const { w, journal } = this.writeConcern;
      this.misconfigured = new StoreMisconfiguredError(
        `MongoDB refuses the write concern (w: ${String(w)}, j: ${String(journal)}): ${error.message}`,
        { cause: error },
      );
      throw this.misconfigured;
    }
  }

  async create(plant: NewPlant): Promise<Revised<Plant>> {
    const createdAt = new Date();
    const document: PlantDocument = {
      _id: toLong(plant.id),
      name: plant.name,
      ...(plant.tag !== undefined && { tag: plant.tag }),
      createdAt,
      ...(this.events &&
        this.events.urls.length > 0 && { webhook: newWebhookRecord(this.events.urls, createdAt, plant, this.events.traceparent?.()) }),
    };
    const created = this.changes.event('plant.created', createdAt, document);
    if (created) document.changes = { dueAt: createdAt, claims: 0, recorded: 1, events: [created] };
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
      const stored = await this.stored(
        this.plants.findOne({ _id: document._id }, { promoteLongs: false, projection: WRITE_PROJECTION, signal }),
      );
      if (stored?.tombstone) {
        const revised = await this.createOver(stored, document, signal);
        if (revised) return revised;
        continue;
      }
      if (stored) {
        if (stored.name === plant.name && stored.tag === plant.tag) return { ...toPlant(stored), ...revisionOf(stored) };
        throw new PlantConflictError(plant.id);
      }
      // Deleted since the insert failed: the id is free again.
      if (attempt === CREATE_ATTEMPTS) throw new PlantConflictError(plant.id);
    }
  }

  /**
   * A plant created again while its deleted self waits for its change events: the tombstone becomes the plant, its
   * revision counting on (so no entity tag of the deleted plant comes back), its created event queued after the deleted
   * one. Undefined when the tombstone changed meanwhile: the caller tries again.
   */
  private async createOver(
    tombstone: ReadDocument,
    document: PlantDocument,
    signal: AbortSignal | undefined,
  ): Promise<Revised<Plant> | undefined> {
    const revision = (tombstone.revision ?? 0) + 1;
    const { _id, name, tag, webhook } = document;
    // Now, not when the first insert was tried: the delete this create follows may have come in between.
    const createdAt = new Date();
    const event = this.changes.event('plant.created', createdAt, document);
    const queued = this.changes.queue(tombstone, event);
    const change = withQueued<UpdateFilter<PlantDocument>>(queued, {
      $set: { name, ...(tag !== undefined && { tag }), createdAt, revision, ...(webhook && { webhook }) },
      $unset: { tombstone: '' },
    });
    const filter: Filter<PlantDocument> = { _id, tombstone: true, revision: tombstone.revision ?? { $exists: false }, ...queued.filter };
    if (!(await this.writeChange(queued, _id, filter, change, signal))) return undefined;
    this.events?.recorded();
    return { ...toPlant(document), revision };
  }

  /**
   * A change's conditional write; false when it matched nothing, for the caller to read again. When it queued an event
   * and matched nothing because the plant's queue is full, the change is refused for good.
   */
  private async writeChange(
    queued: QueuedChange,
    _id: Long,
    filter: Filter<PlantDocument>,
    change: UpdateFilter<PlantDocument>,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const written = this.plants.updateOne(filter, change, { signal } as UpdateOptions & Abortable);
    const { matchedCount } = await this.queuedWrite(queued, _id, written, signal);
    if (matchedCount === 1) return true;
    if (queued.event) await this.refuseIfFull(_id, this.changes.full(), signal);
    return false;
  }

  /**
   * A change's write, refused as a full queue when it would make the document larger than MongoDB keeps: long URLs
   * make events large, so their count alone cannot keep a plant within 16 MiB.
   */
  private async queuedWrite<T>({ event }: QueuedChange, _id: Long, write: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await this.stored(write);
    } catch (error) {
      if (event && isTooLarge(error)) await this.refuseIfFull(_id, {}, signal);
      throw error;
    }
  }

  /** The plant's queue is full when `filter` finds it: its next delivery's due time says when to try again. */
  private async refuseIfFull(_id: Long, filter: Filter<PlantDocument>, signal: AbortSignal | undefined): Promise<void> {
    const full = await this.stored(this.plants.findOne({ _id, ...filter }, { projection: { 'changes.dueAt': 1 }, signal }));
    if (!full) return;
    const dueInMs = (full.changes?.dueAt?.getTime() ?? 0) - Date.now();
    throw new ChangeQueueFullError(fromBigInt(_id.toBigInt()), Math.max(1, Math.ceil(dueInMs / 1000)));
  }

  async list({
    limit,
    after,
    tag,
    signal,
  }: {
    limit: number;
    after: Int64 | undefined;
    tag?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<{ plants: StoredPlant[]; more: boolean }> {
    // Keyset paging on the _id index (or tag_id for one tag): no skip, and one plant more than asked tells whether
    // more follow; the whole page in one round trip, so no cursor outlives it.
    const filter: Filter<PlantDocument> = {
      ...LIVE,
      ...(tag !== undefined && { tag }),
      ...(after !== undefined && { _id: { $gt: toLong(after) } }),
    };
    const documents = await this.stored(
      untilEither(this.guard?.signal(), signal, (either) =>
        this.plants
          .find(filter, {
            promoteLongs: false,
            projection: PROJECTION,
            sort: { _id: 1 },
            limit: limit + 1,
            batchSize: limit + 1,
            signal: either,
          })
          .toArray(),
      ),
    );
    // The driver made the documents; mapping them is the other half of the work.
    signal?.throwIfAborted();
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
  async update(id: Int64, patch: PlantPatch, precondition?: Precondition): Promise<Revised<StoredPlant>> {
    const signal = this.guard?.signal();
    if (!precondition) {
      const changed = await this.updateInOneWrite(id, patch, signal);
      if (changed) return changed;
    }
    for (;;) {
      const document = await this.find(id, signal);
      if (!document) throw new PlantNotFoundError(id);
      judge(id, precondition, document);
      const revision = document.revision ?? 0;
      const current = toStoredPlant(document);
      const { name, tag } = patched(current, patch);
      if (name === current.name && tag === current.tag) return { ...current, revision };
      const queued = this.changes.queue(document, this.changes.event('plant.updated', new Date(), { name, tag }));
      const change = withQueued<UpdateFilter<PlantDocument>>(queued, {
        $set: { name, ...(tag !== undefined && { tag }), revision: revision + 1 },
        ...(tag === undefined && { $unset: { tag: '' } }),
      });
      if (await this.writeChange(queued, document._id, { ...asRead(document), ...queued.filter }, change, signal)) {
        if (queued.event) this.events?.recorded();
        return { ...patched(current, patch), revision: revision + 1 };
      }
    }
  }

  /**
   * An unconditional change in one round trip, its result told by the plant as it was: the filter passes over a patch
   * that changes nothing and a plant whose events a worker holds, and a change event must know the whole plant from
   * the patch. Undefined when it wrote nothing: reading first then decides (absent, unchanged, or held).
   */
  private async updateInOneWrite(id: Int64, patch: PlantPatch, signal: AbortSignal | undefined): Promise<Revised<StoredPlant> | undefined> {
    const { name } = patch;
    const tag = patch.tag ?? undefined;
    const whole = name !== undefined && patch.tag !== undefined;
    const event = whole ? this.changes.event('plant.updated', new Date(), { name, tag }) : undefined;
    if (!event && this.changes.enabled) return undefined;
    const changes: Filter<PlantDocument>[] = [
      ...(name === undefined ? [] : [{ name: { $ne: name } }]),
      ...(patch.tag === undefined ? [] : [{ tag: patch.tag === null ? { $exists: true } : { $ne: patch.tag } }]),
    ];
    if (changes.length === 0) return undefined;
    const queued = this.changes.queue({}, event);
    const change = withQueued<UpdateFilter<PlantDocument>>(queued, {
      $inc: { revision: 1 },
      ...((name !== undefined || tag !== undefined) && {
        $set: { ...(name !== undefined && { name }), ...(tag !== undefined && { tag }) },
      }),
      ...(patch.tag === null && { $unset: { tag: '' } }),
    });
    const options: FindOneAndUpdateOptions & Abortable = { returnDocument: 'before', projection: PROJECTION, promoteLongs: false, signal };
    const _id = toLong(id);
    const before = await this.queuedWrite(
      queued,
      _id,
      this.plants.findOneAndUpdate({ _id, ...LIVE, ...queued.filter, $or: changes }, change, options),
      signal,
    );
    if (!before) return undefined;
    if (event) this.events?.recorded();
    return { ...patched(toStoredPlant(before), patch), revision: (before.revision ?? 0) + 1 };
  }

  async delete(id: Int64, precondition?: Precondition): Promise<boolean> {
    const signal = this.guard?.signal();
    const options: DeleteOptions & Abortable = { signal };
    const keeping = this.changes.enabled;
    if (precondition === undefined && !keeping) {
      const { deletedCount } = await this.stored(this.plants.deleteOne({ _id: toLong(id), ...LIVE }, options));
      return deletedCount === 1;
    }
    // As update: judged on what was read, deleted only if still so.
    for (;;) {
      const document = await this.find(id, signal);
      if (!document) return false;
      judge(id, precondition, document);
      if (keeping ? await this.markDeleted(document, signal) : await this.deleteAsRead(document, options)) return true;
    }
  }

  private async deleteAsRead(document: ReadPlant, options: DeleteOptions & Abortable): Promise<boolean> {
    const { deletedCount } = await this.stored(this.plants.deleteOne(asRead(document), options));
    return deletedCount === 1;
  }

  /**
   * The plant becomes a tombstone holding its deleted event, in one write; the worker removes it once its events are
   * done. Its new-plant event goes with it, as a deleted document's would.
   */
  private async markDeleted(document: ReadPlant, signal: AbortSignal | undefined): Promise<boolean> {
    const queued = this.changes.queue(document, this.changes.event('plant.deleted', new Date()));
    const change = withQueued<UpdateFilter<PlantDocument>>(queued, {
      $set: { tombstone: true, revision: (document.revision ?? 0) + 1 },
      $unset: { tag: '', webhook: '' },
    });
    if (!(await this.writeChange(queued, document._id, { ...asRead(document), ...queued.filter }, change, signal))) return false;
    this.events?.recorded();
    return true;
  }

  private find(id: Int64, signal: AbortSignal | undefined): Promise<ReadPlant | null> {
    // promoteLongs: false keeps Int64 as Long, so an id beyond 2^53 is never rounded on the way in.
    return this.stored(this.plants.findOne({ _id: toLong(id), ...LIVE }, { promoteLongs: false, projection: WRITE_PROJECTION, signal }));
  }

  async ping(): Promise<void> {
    if (this.misconfigured) throw this.misconfigured;
    await this.stored(this.db.command({ ping: 1 }, { signal: this.guard?.signal() }));
  }

  /** The operation, its failure told as `storeError` tells it. */
  private stored<T>(operation: Promise<T>): Promise<T> {
    return operation.catch((error: unknown) => {
      throw this.storeError(error);
    });
  }

  /** An unavailable database becomes StoreUnavailableError (503), and the guard hears of it; anything else stays unexpected (500). */
  private storeError(error: unknown): unknown {
    if (!isUnavailable(error)) return error;
    this.guard?.unavailable(error);
    return new StoreUnavailableError({ cause: error });
  }
}

/** Refuses a change of the plant as read when it fails the precondition. */
function judge(id: Int64, precondition: Precondition | undefined, document: ReadPlant): void {
  const failed = precondition && failedCondition(precondition, entityTagOf(id, document.revision ?? 0, toStoredPlant(document)));
  if (failed) throw new PlantPreconditionFailedError(id, failed);
}

/**
 * `read` given the deadline and the caller's signal as one: an abort stops the read where it is. One waiting for a pooled
 * connection leaves the queue; one on the wire closes its connection, as a deadline does. Listeners taken off after the
 * read, not `AbortSignal.any`: on Node 20 that keeps a record of every signal it makes on the caller's, which lives as
 * long as its HTTP connection.
 */
async function untilEither<T>(
  deadline: AbortSignal | undefined,
  caller: AbortSignal | undefined,
  read: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (caller === undefined || deadline?.aborted === true) return read(deadline);
  if (deadline === undefined || caller.aborted) return read(caller);
  const either = new AbortController();
  const abort = function (this: AbortSignal) {
    either.abort(this.reason);
  };
  deadline.addEventListener('abort', abort, { once: true });
  caller.addEventListener('abort', abort, { once: true });
  try {
    return await read(either.signal);
  } finally {
    deadline.removeEventListener('abort', abort);
    caller.removeEventListener('abort', abort);
  }
}

/** The plant as a merge patch (RFC 7396) leaves it: a field left out stays, a null tag goes. */
function patched(plant: StoredPlant, patch: PlantPatch): StoredPlant {
  const name = patch.name ?? plant.name;
  const tag = patch.tag === undefined ? plant.tag : (patch.tag ?? undefined);
  return { id: plant.id, name, ...(tag !== undefined && { tag }) };
}

/** A filter that matches the plant only while it is as read: same revision, name and tag (absent ones absent). */
function asRead(document: ReadPlant): Filter<PlantDocument> {
  return {
    _id: document._id,
    ...LIVE,
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
