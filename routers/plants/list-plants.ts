import { z } from 'zod';
import { LIST_PLANTS_ERRORS } from '../../schemas/operation-errors.js';
import { DEFAULT_LIST_LIMIT, ListPlantsInputSchema } from '../../schemas/plant-queries.js';
import { StoredPlantSchema } from '../../schemas/plant.js';
import { protectedProcedure } from '../trpc.js';

export const listPlants = protectedProcedure
  .meta({
    scope: 'plants:read',
    openapi: {
      method: 'GET',
      path: '/plants',
      operationId: 'listPlants',
      summary: 'List plants',
      description:
        'Returns the plants in ascending id order, `limit` at a time. To page, pass the last id you got as `after`; ' +
        'while more plants follow, the `Link` header gives the next page\'s URL (`rel="next"`).',
      tags: ['plants'],
      successDescription: 'Plant response',
      errorResponses: LIST_PLANTS_ERRORS,
    },
  })
  .input(ListPlantsInputSchema)
  .output(z.array(StoredPlantSchema))
  .query(async ({ input, ctx }) => {
    const limit = input.limit ?? DEFAULT_LIST_LIMIT;
    const { plants, more } = await ctx.store.list({ limit, after: input.after });
    const last = plants.at(-1);
    if (more && last) ctx.nextPage = { limit: String(limit), after: String(last.id) };
    return plants;
  });
