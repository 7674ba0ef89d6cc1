import { z } from 'zod';
import * as ex from '../../schemas/examples.js';
import { DeletePlantInputSchema } from '../../schemas/plant-queries.js';
import { preconditionOf } from '../entity-tags.js';
import { PlantNotFoundError } from '../plant-store.js';
import { restOperation } from '../procedure-meta.js';
import { protectedProcedure } from '../trpc.js';

const request = { method: 'DELETE', url: '/plants/42' } as const;

/** Answers nothing: REST answers 204 No Content. */
export const deletePlant = protectedProcedure
  .meta(
    restOperation({
      method: 'DELETE',
      path: '/plants/{id}',
      operationId: 'deletePlant',
      summary: 'Delete a plant',
      description:
        'Deletes the plant with this id. A second delete of the same id answers 404; the id can then be used again. ' +
        'With `If-Match`, only while the plant is as the client last read it (412 otherwise, nothing deleted); with ' +
        '`If-None-Match`, only while it is not.',
      scope: 'plants:write',
      conditional: { ifMatch: true, ifNoneMatch: true },
      success: {
        status: 204,
        description: 'Plant deleted',
        example: {
          name: 'deleted',
          summary: 'The plant is gone; the answer has no body',
          request: { ...ex.valid, method: 'DELETE', url: '/plants/9007199254740993' },
          given: [ex.SNOWFLAKE],
        },
      },
      errors: {
        400: ex.notAPlantIdAnswer('DELETE'),
        404: {
          description: 'No plant has this id',
          example: {
            name: 'noSuchPlant',
            summary: 'No plant has this id (a second delete answers this)',
            request: { ...ex.valid, method: 'DELETE', url: '/plants/9007199254740993' },
            response: { error: 404, message: 'no plant with id 9007199254740993' },
          },
        },
        412: ex.changedMeanwhileAnswer(request, 'deleted'),
        413: ex.bodyTooLargeAnswer({ ...request, contentType: 'application/json' }),
        415: ex.encodedBodyAnswer(request),
        ...ex.sharedAnswers('plants:write', request, { given: [ex.MONSTERA] }),
      },
    }),
  )
  .input(DeletePlantInputSchema)
  .output(z.void())
  .mutation(async ({ input, ctx }) => {
    if (!(await ctx.store.delete(input.id, preconditionOf(ctx.conditions, input.ifMatch)))) throw new PlantNotFoundError(input.id);
  });
