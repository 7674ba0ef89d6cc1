import { Long, MongoServerError, type Collection, type Db, type WriteConcernSettings } from 'mongodb';
import type { NewPlant, Plant } from '../../schemas/plant.js';
import type { EventRecorder } from '../webhooks/register-webhooks.js';
import { newWebhookRecord, type WebhookRecord } from '../webhooks/webhook-record.js';
import { isUnavailable } from './mongo-errors.js';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from './plant-store.js';

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
      _id: Long.fromNumber(plant.id),
      name: plant.name,
      ...(plant.tag !== undefined && { tag: plant.tag }),
      createdAt,
      ...(this.events && { webhook: newWebhookRecord(this.events.urls, createdAt) }),
    };
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
    // Plants are never deleted, so the document that won the insert is there to read. Its event
    // is the one recorded with it: a replay records none.
    const stored = await this.plants.findOne({ _id: document._id }, { projection: { name: 1, tag: 1 } }).catch((error: unknown) => {
      throw toStoreError(error);
    });
    if (stored && stored.name === plant.name && stored.tag === plant.tag) return toPlant(stored);
    throw new PlantConflictError(plant.id);
  }

  async ping(): Promise<void> {
    try {
      await this.db.command({ ping: 1 });
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

function toPlant(document: PlantDocument): Plant {
  return document.tag === undefined ? { name: document.name } : { name: document.name, tag: document.tag };
}

/** An unavailable database becomes StoreUnavailableError (503); anything else stays unexpected (500). */
function toStoreError(error: unknown): unknown {
  return isUnavailable(error) ? new StoreUnavailableError({ cause: error }) : error;
}
