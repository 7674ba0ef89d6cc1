import { NewPlantSchema, PlantSchema } from '../schemas/plant.js';
import { protectedProcedure } from './trpc.js';

/** REST statuses this operation can answer besides 200, each with the Error body. */
export const CREATE_PLANT_ERRORS = {
  400: 'Invalid input or malformed JSON',
  401: 'Missing or invalid bearer token',
  409: 'A plant with this id exists with a different name or tag',
  413: 'Request body too large',
  415: 'The body is not JSON',
  500: 'Unexpected error',
  503: 'The plant database is unavailable',
} as const;

export const createPlant = protectedProcedure
  .meta({
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
