import { GET_PLANT_ERRORS } from '../../schemas/operation-errors.js';
import { PlantIdInputSchema } from '../../schemas/plant-queries.js';
import { StoredPlantSchema } from '../../schemas/plant.js';
import { PlantNotFoundError } from '../plant-store.js';
import { protectedProcedure } from '../trpc.js';

export const getPlant = protectedProcedure
  .meta({
    scope: 'plants:read',
    openapi: {
      method: 'GET',
      path: '/plants/{id}',
      operationId: 'getPlant',
      summary: 'Get a plant',
      description: 'Returns the plant with this id.',
      tags: ['plants'],
      successDescription: 'Plant response',
      errorResponses: GET_PLANT_ERRORS,
    },
  })
  .input(PlantIdInputSchema)
  .output(StoredPlantSchema)
  .query(async ({ input, ctx }) => {
    const plant = await ctx.store.get(input.id);
    if (plant === undefined) throw new PlantNotFoundError(input.id);
    return plant;
  });
