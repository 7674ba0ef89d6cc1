import * as ex from '../../schemas/examples.js';
import { NewPlantSchema, PlantSchema } from '../../schemas/plant.js';
import { answeredPlant } from '../answered-plant.js';
import { entityTagOf } from '../entity-tags.js';
import { restOperation } from '../procedure-meta.js';
import { protectedProcedure } from '../trpc.js';

const request = { method: 'POST', url: '/plants', ...ex.asJson } as const;

export const createPlant = protectedProcedure
  .meta(
    restOperation({
      method: 'POST',
      path: '/plants',
      operationId: 'createPlant',
      summary: 'Create a plant',
      description: 'Creates a new plant in the store. Safe to retry: sending the same plant again answers 200 with the stored plant.',
      scope: 'plants:write',
      conditional: { entityTag: true },
      success: {
        status: 200,
        description: 'Plant response',
        example: {
          name: 'created',
          summary: 'A new plant is stored and answered',
          request: { ...ex.valid, ...request, body: ex.MONSTERA },
          response: { name: 'Monstera', tag: 'tropical' },
          headers: { etag: entityTagOf(ex.MONSTERA.id, 0, ex.MONSTERA) },
        },
        // Swagger UI reads documents as JavaScript numbers: its example box shows this id rounded, so the words say to type it.
        moreRequests: {
          bigId: {
            summary: 'An id beyond 2^53: int64 ids are exact at any size',
            description:
              'Stored exactly as sent. In /docs, the example box shows this id rounded to 9007199254740992 ' +
              '(the page reads numbers as JavaScript does): type 9007199254740993 in before you execute.',
            body: ex.SNOWFLAKE,
            response: { name: 'Snowflake' },
          },
        },
      },
      errors: {
        400: {
          description: 'Invalid input or malformed JSON, or the request has a query parameter (none is taken)',
          example: {
            name: 'idNotInteger',
            summary: 'The id is not an integer',
            request: { ...ex.valid, ...request, body: { id: 'forty-two', name: 'Monstera' } },
            response: { error: 400, message: 'id must be an integer' },
          },
        },
        409: {
          description: 'A plant with this id exists with a different name or tag',
          example: {
            name: 'idTaken',
            summary: 'The id belongs to a plant with another name',
            request: { ...ex.valid, ...request, body: { id: 42, name: 'Fiddle-leaf fig' } },
            given: [ex.MONSTERA],
            response: { error: 409, message: 'a plant with id 42 already exists with a different name or tag' },
          },
        },
        413: ex.bodyTooLargeAnswer(request, ex.MONSTERA),
        415: {
          description: `The body is not JSON, ${ex.ENCODED_BODY}`,
          example: {
            name: 'notJson',
            summary: 'The body is sent as text, not JSON',
            request: { ...ex.valid, method: 'POST', url: '/plants', contentType: 'text/plain', body: 'id=42 name=Monstera' },
            response: { error: 415, message: 'the body must be JSON: send it with Content-Type: application/json' },
          },
        },
        ...ex.sharedAnswers(
          'plants:write',
          { ...request, body: ex.MONSTERA },
          { unavailableSummary: 'MongoDB does not answer in time; retry after the Retry-After seconds' },
        ),
      },
    }),
  )
  .input(NewPlantSchema)
  .output(PlantSchema)
  .mutation(async ({ input, ctx }) => answeredPlant(ctx, input.id, await ctx.store.create(input)));
