import { z } from 'zod';
import * as ex from '../../schemas/examples.js';
import { DEFAULT_LIST_LIMIT, ListPlantsInputSchema } from '../../schemas/plant-queries.js';
import { StoredPlantSchema } from '../../schemas/plant.js';
import { restOperation } from '../procedure-meta.js';
import { protectedProcedure } from '../trpc.js';

const request = { method: 'GET', url: '/plants' } as const;

export const listPlants = protectedProcedure
  .meta(
    restOperation({
      method: 'GET',
      path: '/plants',
      operationId: 'listPlants',
      summary: 'List plants',
      description:
        'Returns the plants in ascending id order, `limit` at a time. To page, pass the last id you got as `after`; ' +
        'while more plants follow, the `Link` header gives the next page\'s URL (`rel="next"`). With `tag`, only the ' +
        'plants with exactly that tag.',
      scope: 'plants:read',
      success: {
        status: 200,
        description: 'Plant response',
        example: {
          name: 'firstPage',
          summary: 'A page of plants in ascending id order, ids exact beyond 2^53; the Link header asks for the next',
          request: { ...ex.valid, method: 'GET', url: '/plants?limit=2' },
          given: [ex.FERN, ex.SNOWFLAKE, ex.SEQUOIA],
          response: [ex.FERN, ex.SNOWFLAKE],
          headers: { link: '</plants?limit=2&after=9007199254740993>; rel="next"' },
        },
      },
      errors: {
        400: {
          description: 'A parameter is invalid or unknown',
          example: {
            name: 'limitTooLarge',
            summary: 'limit is out of range',
            request: { ...ex.valid, method: 'GET', url: '/plants?limit=5000' },
            response: { error: 400, message: 'limit must be an integer from 1 to 1000' },
          },
        },
        ...ex.sharedAnswers('plants:read', request),
      },
    }),
  )
  // Optional, as over REST: `listPlants()` lists the first page.
  .input(ListPlantsInputSchema.optional())
  .output(z.array(StoredPlantSchema))
  // A page is the one answer worth stopping for when its client has gone: the largest to read, check and write.
  .query(async ({ input = {}, ctx, signal }) => {
    const limit = input.limit ?? DEFAULT_LIST_LIMIT;
    const { plants, more } = await ctx.store.list({ limit, after: input.after, tag: input.tag, signal });
    signal?.throwIfAborted();
    const last = plants.at(-1);
    if (more && last) ctx.nextPage = { limit: String(limit), after: String(last.id) };
    return plants;
  });
