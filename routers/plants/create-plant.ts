import { CREATE_PLANT_ERRORS } from '../../schemas/operation-errors.js';
import { NewPlantSchema, PlantSchema } from '../../schemas/plant.js';
import { protectedProcedure } from '../trpc.js';

export const createPlant = protectedProcedure
  .meta({
    scope: 'plants:write',
    openapi: {
      method: 'POST',
      path: '/plants',
      operationId: 'createPlant',
      summary: 'Create a plant',
      description:
        'Creates a new plant in the store. Safe to retry: sending the same plant again answers 200 with the stored plant.',
      tags: ['plants'],
      successDescription: 'Plant response',
      errorResponses: CREATE_PLANT_ERRORS,
    },
  })
  .input(NewPlantSchema)
  .output(PlantSchema)
  .mutation(({ input, ctx }) => ctx.store.create(input));
