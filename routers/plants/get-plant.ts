import * as ex from '../../schemas/examples.js';
import { PlantIdInputSchema } from '../../schemas/plant-queries.js';
import { StoredPlantSchema } from '../../schemas/plant.js';
import { answeredStoredPlant } from '../answered-plant.js';
import { entityTagOf, failedCondition, preconditionOf } from '../entity-tags.js';
import { PlantNotFoundError, PlantPreconditionFailedError } from '../plant-store.js';
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
      description:
        'Returns the plant with this id, with its ETag. With `If-None-Match` naming that entity tag, answers 304 Not ' +
        'Modified and no body; with `If-Match` naming another, 412.',
      scope: 'plants:read',
      conditional: {
        entityTag: true,
        ifMatch: true,
        ifNoneMatch: {
          description:
            'Not modified: If-None-Match names the entity tag the plant still has (answered only to a request with a valid token). No body',
          example: {
            name: 'notModified',
            summary: 'The plant is as the client last read it',
            request: {
              ...ex.valid,
              method: 'GET',
              url: '/plants/9007199254740993',
              headers: { 'if-none-match': entityTagOf(ex.SNOWFLAKE.id, 0, ex.SNOWFLAKE) },
            },
            given: [ex.SNOWFLAKE],
            headers: { etag: entityTagOf(ex.SNOWFLAKE.id, 0, ex.SNOWFLAKE) },
          },
        },
      },
      success: {
        status: 200,
        description: 'Plant response',
        example: {
          name: 'found',
          summary: 'The plant with this id, exact beyond 2^53',
          request: { ...ex.valid, method: 'GET', url: '/plants/9007199254740993' },
          given: [ex.SNOWFLAKE],
          response: ex.SNOWFLAKE,
          headers: { etag: entityTagOf(ex.SNOWFLAKE.id, 0, ex.SNOWFLAKE) },
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
        412: ex.changedMeanwhileAnswer(request),
        ...ex.sharedAnswers('plants:read', request),
      },
    }),
  )
  .input(PlantIdInputSchema)
  .output(StoredPlantSchema)
  .query(async ({ input, ctx }) => {
    // If-None-Match is the answer's to judge (304); If-Match comes first and refuses the answer.
    const precondition = preconditionOf({ ifMatch: ctx.conditions?.ifMatch });
    const stored = await ctx.store.get(input.id);
    if (stored === undefined) throw new PlantNotFoundError(input.id);
    const plant = answeredStoredPlant(ctx, stored);
    const failed = precondition && ctx.entityTag !== undefined && failedCondition(precondition, ctx.entityTag);
    if (failed) throw new PlantPreconditionFailedError(input.id, failed);
    return plant;
  });
