import { describe, it } from 'vitest';
import { expectSameOutcome } from '../../packages/fast-path/src/testing/same-outcome.js';
import { appRouter } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../../routers/plant-store.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { scriptedStore } from '../helpers/scripted-store.js';

/**
 * The fast path's procedure runner runs a procedure's middleware chain in place of tRPC's own
 * runner; every outcome must be the one tRPC's own `procedure(call)` gives: the same data, or an
 * error with the same code, message and cause.
 */

const stores: Record<string, PlantStore['create']> = {
  ok: async (plant) => ({ name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) }),
  conflict: async (plant) => Promise.reject(new PlantConflictError(plant.id)),
  unavailable: async () => Promise.reject(new StoreUnavailableError()),
  failing: async () => Promise.reject(new Error('disk on fire')),
  'bad output': async () => ({ name: 42 }) as unknown as { name: string },
};

const inputs: [string, unknown][] = [
  ['a plant', { id: 1, name: 'Monstera', tag: 'tropical' }],
  ['a coercible id', { id: '1', name: 'x' }],
  ['no input', undefined],
  ['an unknown field', { id: 1, name: 'x', tga: 'y' }],
];

describe('runProcedure gives what tRPC gives for createPlant', () => {
  const createPlant = appRouter._def.procedures.createPlant;
  for (const [storeName, create] of Object.entries(stores)) {
    const context = createContextFactory({ store: scriptedStore({ create }), verifyToken: createTokenVerifier(['t0ken']) });
    for (const authorization of ['Bearer t0ken', 'Bearer wrong', undefined]) {
      it.each(inputs)(`${storeName} store, ${String(authorization)}: %s`, async (_name, input) => {
        await expectSameOutcome(createPlant, {
          ctx: context(authorization),
          getRawInput: async () => input,
          path: 'createPlant',
          type: 'mutation',
          signal: undefined,
          batchIndex: 0,
        });
      });
    }
  }
});
