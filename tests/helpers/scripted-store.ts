import type { PlantStore } from '../../routers/plant-store.js';

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
