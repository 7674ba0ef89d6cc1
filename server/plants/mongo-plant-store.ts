import { Long, MongoServerError, type Collection, type Db, type WriteConcernSettings } from 'mongodb';
import type { Int64 } from '../../schemas/int64.js';
import type { NewPlant, Plant } from '../../schemas/plant.js';
import { isUnavailable } from './mongo-errors.js';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';

/** One document per plant: the plant id is the `_id`, kept as BSON Int64 like the interface's int64. */
export interface PlantDocument {
  _id: Long;
  name: string;
  tag?: string;
  createdAt: Date;
}

export const PLANTS_COLLECTION = 'plants';
const DUPLICATE_KEY = 11000;

export class MongoPlantStore implements PlantStore {
  private readonly plants: Collection<PlantDocument>;

  constructor(
    private readonly db: Db,
    writeConcern: WriteConcernSettings,
  ) {
    this.plants = db.collection<PlantDocument>(PLANTS_COLLECTION, { writeConcern });
  }

  async create(plant: NewPlant): Promise<Plant> {
    const document: PlantDocument = {
      _id: toLong(plant.id),
      name: plant.name,
      ...(plant.tag !== undefined && { tag: plant.tag }),
      createdAt: new Date(),
    };
    try {
      // Resolves only once the server acknowledged the write with the collection's write concern;
      // a write concern error rejects (and is answered 503 by toStoreError), so no 200 goes out unacknowledged.
      const { acknowledged } = await this.plants.insertOne(document);
      if (!acknowledged) throw new Error('the insert was not acknowledged: MONGODB_WRITE_CONCERN must be at least 1');
      return toPlant(document);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw toStoreError(error);
    }
    // The id is taken: a retry of the same create answers the stored plant; anything else conflicts.
    // Plants are never deleted, so the document that won the insert is there to read.
    const stored = await this.plants.findOne({ _id: document._id }).catch((error: unknown) => {
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

/** The id as BSON Int64: exact for a bigint and for a safe-integer number alike. */
export function toLong(id: Int64): Long {
  return typeof id === 'bigint' ? Long.fromBigInt(id) : Long.fromNumber(id);
}

function toPlant(document: PlantDocument): Plant {
  return document.tag === undefined ? { name: document.name } : { name: document.name, tag: document.tag };
}

/** An unavailable database becomes StoreUnavailableError (503); anything else stays unexpected (500). */
function toStoreError(error: unknown): unknown {
  return isUnavailable(error) ? new StoreUnavailableError({ cause: error }) : error;
}
