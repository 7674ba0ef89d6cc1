import { createPlant } from './plants/create-plant.js';
import { deletePlant } from './plants/delete-plant.js';
import { getPlant } from './plants/get-plant.js';
import { listPlants } from './plants/list-plants.js';
import { updatePlant } from './plants/update-plant.js';
import { createCallerFactory, router } from './trpc.js';

/** The whole API: every procedure, served over tRPC at /trpc and, where it has OpenAPI meta, as REST. */
export const appRouter = router({
  createPlant,
  listPlants,
  getPlant,
  updatePlant,
  deletePlant,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
