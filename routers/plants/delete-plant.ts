import { z } from 'zod';
import { DELETE_PLANT_ERRORS } from '../../schemas/operation-errors.js';
import { PlantIdInputSchema } from '../../schemas/plant-queries.js';
import { PlantNotFoundError } from '../plant-store.js';
import { protectedProcedure } from '../trpc.js';

/** Answers nothing: REST answers 204 No Content (server/routes/rest-answers.ts). */
export const deletePlant = protectedProcedure
  .meta({
    scope: 'plants:write',
    openapi: {
      method: 'DELETE',
      path: '/plants/{id}',
      operationId: 'deletePlant',
      summary: 'Delete a plant',
      description: 'Deletes the plant with this id. A second delete of the same id answers 404; the id can then be used again.',
      tags: ['plants'],
      successDescription: 'Plant deleted',
      errorResponses: DELETE_PLANT_ERRORS,
    },
  })
  .input(PlantIdInputSchema)
  .output(z.void())
  .mutation(async ({ input, ctx }) => {
    if (!(await ctx.store.delete(input.id))) throw new PlantNotFoundError(input.id);
  });
