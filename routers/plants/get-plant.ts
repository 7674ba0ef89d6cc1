import * as ex from '../../schemas/examples.js';
import { PlantIdInputSchema } from '../../schemas/plant-queries.js';
import { StoredPlantSchema } from '../../schemas/plant.js';
import { PlantNotFoundError } from '../plant-store.js';
import { restOperation } from '../procedure-meta.js';
import { protectedProcedure } from '../trpc.js';

const request = { method: 'GET', url: '/plants/42' } as const;

export const getPlant = protectedProcedure
  .meta(
    restOperation({
      method: 'GET',
      path: '/plants/{id}',
      operationId: 'getPlant',
      summary: 'Get a plant',
      description: 'Returns the plant with this id.',
      scope: 'plants:read',
      success: {
        status: 200,
        description: 'Plant response',
        example: {
          name: 'found',
          summary: 'The plant with this id, exact beyond 2^53',
          request: { ...ex.valid, method: 'GET', url: '/plants/9007199254740993' },
          given: [ex.SNOWFLAKE],
          response: ex.SNOWFLAKE,
        },
      },
      errors: {
        400: ex.notAPlantIdAnswer('GET'),
        404: {
          description: 'No plant has this id',
          example: {
            name: 'noSuchPlant',
            summary: 'No plant has this id',
            request: { ...ex.valid, method: 'GET', url: '/plants/404' },
            response: { error: 404, message: 'no plant with id 404' },
          },
        },
        ...ex.sharedAnswers('plants:read', request),
      },
    }),
  )
  .input(PlantIdInputSchema)
  .output(StoredPlantSchema)
  .query(async ({ input, ctx }) => {
    const plant = await ctx.store.get(input.id);
    if (plant === undefined) throw new PlantNotFoundError(input.id);
    return plant;
  });
