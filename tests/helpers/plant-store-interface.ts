// The Plant Store interface as the tests check the served document against it: the create operation of
// the interface specification, and the list, delete and new-plant webhook of the whole store it was cut
// from. Written in the flattened form the tests compare (allOf merged, $ref resolved), so that a clone of
// the repository holds everything `npm test` needs.
import type { Shape } from './openapi-reading.js';

/** A plant as the store answers it: a name, and a tag if it has one. */
export const PLANT: Shape = { type: 'object', properties: { name: { type: 'string' }, tag: { type: 'string' } }, required: ['name'] };

/** The create operation's body, and the webhook's: every field of a Plant plus its int64 id. */
export const NEW_PLANT: Shape = {
  type: 'object',
  properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' }, tag: { type: 'string' } },
  required: ['id', 'name'],
};

/** Every error body: both fields present. */
export const ERROR: Shape = {
  type: 'object',
  properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
  required: ['error', 'message'],
};

/** The one security scheme, declared for the whole interface. */
export const BEARER_SCHEME = { type: 'http', scheme: 'bearer' } as const;

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  type: string;
  format?: string;
}

export interface ContractOperation {
  method: 'get' | 'post' | 'delete';
  path: string;
  parameters: ContractParameter[];
  /** A required JSON body of this shape, if the operation takes one. */
  requestBody?: Shape;
  /** Each status and the JSON body it carries (undefined: no body). */
  responses: Record<string, Shape | undefined>;
}

/** POST /plants: the only operation of the interface specification. */
export const CREATE_PLANT: ContractOperation = {
  method: 'post',
  path: '/plants',
  parameters: [],
  requestBody: NEW_PLANT,
  responses: { '200': PLANT, '400': ERROR },
};

/** GET /plants of the whole store: an array of Plant, at most `limit` of them. */
export const LIST_PLANTS: ContractOperation = {
  method: 'get',
  path: '/plants',
  parameters: [{ name: 'limit', in: 'query', required: false, type: 'integer', format: 'int32' }],
  responses: { '200': { type: 'array' }, '400': ERROR },
};

/** DELETE /plants/{id} of the whole store: 204 with no body. */
export const DELETE_PLANT: ContractOperation = {
  method: 'delete',
  path: '/plants/{id}',
  parameters: [{ name: 'id', in: 'path', required: true, type: 'integer', format: 'int64' }],
  responses: { '204': undefined, '400': ERROR },
};

/** Each item of GET /plants' array, in the whole store. */
export const LISTED_PLANT = PLANT;

/** The operations of the whole Plant Store. */
export const WHOLE_STORE_OPERATIONS: readonly ContractOperation[] = [LIST_PLANTS, CREATE_PLANT, DELETE_PLANT];

/** The webhook the whole store sends when a plant is added: a NewPlant as JSON, answered with 200. */
export const NEW_PLANT_WEBHOOK = { name: '/plant/webhook', method: 'post', body: NEW_PLANT, responses: ['200'] } as const;
