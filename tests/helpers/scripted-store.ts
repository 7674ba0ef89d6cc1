import { entityTagOf, failedCondition } from '../../routers/entity-tags.js';
import {
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StoreUnavailableError,
  type PlantStore,
} from '../../routers/plant-store.js';
import type { Int64 } from '../../schemas/int64.js';
import type { StoredPlant } from '../../schemas/plant.js';

/** A store that does what a test scripts and fails loudly for anything else; ping always answers. */
export function scriptedStore(methods: Partial<PlantStore>): PlantStore {
  const unscripted = (name: string) => () => Promise.reject(new Error(`the test scripted no ${name}`));
  return {
    create: unscripted('create'),
    list: unscripted('list'),
    get: unscripted('get'),
    update: unscripted('update'),
    delete: unscripted('delete'),
    ping: () => Promise.resolve(),
    ...methods,
  };
}

/**
 * A store whose answer the plant's name picks, so one request can reach each outcome a store
 * can have: a conflict, an outage, an unforeseen failure, an answer that breaks the schema.
 */
export const storeByPlantName: PlantStore = scriptedStore({
  create: async ({ name, tag }) => {
    if (name === 'taken') throw new PlantConflictError(1);
    if (name === 'database down') throw new StoreUnavailableError();
    if (name === 'bug') throw new Error('disk on fire');
    if (name === 'bad output') return { name: 42 } as unknown as { name: string };
    return tag === undefined ? { name } : { name, tag };
  },
});

/** The plants `storeByRequest` reads: ids at both ends of int64 and beyond 2^53, a tag and none. */
export const SCRIPTED_PLANTS: readonly StoredPlant[] = [
  { id: -(2n ** 63n), name: 'Snowflake' },
  { id: 1, name: 'Monstera', tag: 'tropical' },
  { id: 2, name: 'Fern', tag: '' },
  { id: 9007199254740993n, name: 'Ivy' },
  { id: 2n ** 63n - 1n, name: 'Cactus', tag: 'desert' },
];
/** Ids that make `storeByRequest`'s get and delete fail: the database is down, or the store breaks. */
export const DOWN_ID = 503;
export const FAILING_ID = 500;
/** An id whose get answers a plant that breaks the output schema. */
export const BAD_OUTPUT_ID = 422;

function scriptedFailure(id: Int64): void {
  if (id === DOWN_ID) throw new StoreUnavailableError();
  if (id === FAILING_ID) throw new Error('disk on fire');
}

const scripted = (id: Int64) => SCRIPTED_PLANTS.find((plant) => BigInt(plant.id) === BigInt(id));

/**
 * A store that keeps nothing, so the same request always gets the same answer (the differential
 * tests send each request twice): create as `storeByPlantName`; list, get and delete over
 * `SCRIPTED_PLANTS`, with an outage, a failure and a broken output picked by the id.
 */
export const storeByRequest: PlantStore = scriptedStore({
  create: (plant) => storeByPlantName.create(plant),
  list: async ({ limit, after, tag }) => {
    if (after !== undefined) scriptedFailure(after);
    const following = SCRIPTED_PLANTS.filter(
      (plant) => (after === undefined || BigInt(plant.id) > BigInt(after)) && (tag === undefined || plant.tag === tag),
    );
    return { plants: following.slice(0, limit).map((plant) => ({ ...plant })), more: following.length > limit };
  },
  get: async (id) => {
    scriptedFailure(id);
    if (id === BAD_OUTPUT_ID) return { id, name: '' };
    const plant = scripted(id);
    return plant && { ...plant };
  },
  update: async (id, patch, precondition) => {
    scriptedFailure(id);
    const plant = scripted(id);
    if (plant === undefined) throw new PlantNotFoundError(id);
    const failed = precondition && failedCondition(precondition, entityTagOf(id, 0, plant));
    if (failed) throw new PlantPreconditionFailedError(id, failed);
    const tag = patch.tag === undefined ? plant.tag : (patch.tag ?? undefined);
    const changed = { id: plant.id, name: patch.name ?? plant.name, ...(tag !== undefined && { tag }) };
    return changed.name === plant.name && tag === plant.tag ? { ...plant } : { ...changed, revision: 1 };
  },
  delete: async (id, precondition) => {
    scriptedFailure(id);
    const plant = scripted(id);
    const failed = plant && precondition && failedCondition(precondition, entityTagOf(id, 0, plant));
    if (failed) throw new PlantPreconditionFailedError(id, failed);
    return plant !== undefined;
  },
});
