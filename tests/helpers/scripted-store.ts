import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';

/** A store that does what a test scripts and fails loudly for anything else; ping always answers. */
export function scriptedStore(methods: Partial<PlantStore>): PlantStore {
  const unscripted = (name: string) => () => Promise.reject(new Error(`the test scripted no ${name}`));
  return {
    create: unscripted('create'),
    list: unscripted('list'),
    get: unscripted('get'),
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
