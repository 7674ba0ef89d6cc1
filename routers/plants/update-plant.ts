import * as ex from '../../schemas/examples.js';
import { StoredPlantSchema, UpdatePlantInputSchema } from '../../schemas/plant.js';
import { answeredStoredPlant } from '../answered-plant.js';
import { entityTagOf, preconditionOf } from '../entity-tags.js';
import { restOperation } from '../procedure-meta.js';
import { protectedProcedure } from '../trpc.js';

const MERGE_PATCH = 'application/merge-patch+json';
const request = { method: 'PATCH', url: '/plants/42', contentType: MERGE_PATCH } as const;
/** The entity tag MONSTERA has as first stored, so the examples can show a condition that holds. */
const MONSTERA_ETAG = entityTagOf(ex.MONSTERA.id, 0, ex.MONSTERA);
const RENAMED = { ...ex.MONSTERA, name: 'Swiss cheese plant' };

export const updatePlant = protectedProcedure
  .meta(
    restOperation({
      method: 'PATCH',
      path: '/plants/{id}',
      operationId: 'updatePlant',
      summary: 'Change a plant',
      description:
        'Changes the name or tag of the plant with this id with a JSON merge patch (RFC 7396): a field left out stays, ' +
        '`"tag": null` removes the tag, `{}` changes nothing; the id never changes. Answers the plant as stored now, with its ETag. ' +
        'With `If-Match`, the change is made only while the plant is as the client last read it (412 otherwise, nothing changed); ' +
        'with `If-None-Match`, only while it is not.',
      scope: 'plants:write',
      contentTypes: [MERGE_PATCH, 'application/json'],
      conditional: { entityTag: true, ifMatch: true, ifNoneMatch: true },
      success: {
        status: 200,
        description: 'The plant as stored after the change',
        example: {
          name: 'renamed',
          summary: 'The name is changed, while the plant is as last read',
          request: { ...ex.valid, ...request, headers: { 'if-match': MONSTERA_ETAG }, body: { name: RENAMED.name } },
          given: [ex.MONSTERA],
          response: RENAMED,
          headers: { etag: entityTagOf(RENAMED.id, 1, RENAMED) },
        },
      },
      errors: {
        400: {
          description:
            'Invalid change, an id in the body, unknown fields or malformed JSON; the id in the path is not an int64, the ' +
            'request has a query parameter (none is taken), or If-Match or If-None-Match is neither `*` nor entity tags',
          example: {
            name: 'nameNull',
            summary: 'A plant always has a name: null cannot remove it',
            request: { ...ex.valid, ...request, body: { name: null } },
            response: { error: 400, message: 'name must be a string, not null: a plant always has a name' },
          },
        },
        404: {
          description: 'No plant has this id',
          example: {
            name: 'noSuchPlant',
            summary: 'No plant has this id, whatever If-Match says',
            request: { ...ex.valid, ...request, url: '/plants/9007199254740993', headers: { 'if-match': '*' }, body: { tag: null } },
            response: { error: 404, message: 'no plant with id 9007199254740993' },
          },
        },
        412: ex.changedMeanwhileAnswer({ ...request, body: { tag: null } }, 'changed'),
        413: ex.bodyTooLargeAnswer(request),
        415: {
          description: `The body is neither a JSON merge patch nor JSON, ${ex.ENCODED_BODY}`,
          example: {
            name: 'notJson',
            summary: 'The body is sent as text',
            request: { ...ex.valid, ...request, contentType: 'text/plain', body: 'name=Monstera' },
            response: {
              error: 415,
              message: `the body must be a JSON merge patch (RFC 7396): send it with Content-Type: ${MERGE_PATCH} or application/json`,
            },
            headers: { 'accept-patch': `${MERGE_PATCH}, application/json` },
          },
        },
        ...ex.sharedAnswers('plants:write', { ...request, body: { tag: null } }, { given: [ex.MONSTERA] }),
      },
    }),
  )
  .input(UpdatePlantInputSchema)
  .output(StoredPlantSchema)
  .mutation(async ({ input, ctx }) => {
    const { id, name, tag, ifMatch } = input;
    return answeredStoredPlant(ctx, await ctx.store.update(id, { name, tag }, preconditionOf(ctx.conditions, ifMatch)));
  });
