import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';

/**
 * A store whose answer the plant's name picks, so one request can reach each outcome a store
 * can have: a conflict, an outage, an unforeseen failure, an answer that breaks the schema.
 */
export const scriptedStore: PlantStore = {
  create: async ({ name, tag }) => {
    if (name === 'taken') throw new PlantConflictError(1);
    if (name === 'database down') throw new StoreUnavailableError();
    if (name === 'bug') throw new Error('disk on fire');
    if (name === 'bad output') return { name: 42 } as unknown as { name: string };
    return tag === undefined ? { name } : { name, tag };
  },
  ping: async () => undefined,
};
