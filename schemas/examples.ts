import { DEFAULT_BODY_LIMIT_BYTES } from './body-limit.js';
import type { ErrorBody } from './error.js';
import type { NewPlant, Plant, StoredPlant } from './plant.js';

/**
 * One example per documented status of each operation: the request that produces it, what
 * must be stored first, and the exact body the service answers. The OpenAPI document shows them
 * (server/openapi/examples.ts) and tests/openapi/examples.test.ts sends each request to the real
 * app, on a database holding just `given`, and compares the answer, so the documentation cannot
 * drift from what the service says.
 */

export interface ExampleRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path with its query string, such as `/plants?limit=2`. */
  url: string;
  /**
   * Which Authorization header is sent: an accepted bearer token, none at all, a wrong one, or a
   * valid JWT access token granting one scope only (`plants:read` or `plants:write`).
   */
  token: 'valid' | 'none' | 'invalid' | 'readOnly' | 'writeOnly';
  contentType?: 'application/json' | 'text/plain';
  /** JSON bodies are sent serialised (int64 exactly); a text/plain body is sent as the string itself. */
  body?: unknown;
}

export interface OperationExample {
  /** The example's key in the document, such as `created`. */
  name: string;
  summary: string;
  request: ExampleRequest;
  /** Plants stored before the request. */
  given?: NewPlant[];
  /**
   * What else must hold, in words, for the statuses no request alone produces: the service
   * configured or failing so (tests/openapi/examples.test.ts arranges each).
   */
  condition?: string;
  /** The answer's body; none for 204. */
  response?: Plant | StoredPlant | StoredPlant[] | ErrorBody;
  /** The answer's headers worth showing (the `Link` of a page). */
  headers?: Record<string, string>;
}

/** The 500 message carries the request id; the document shows this one in its place. */
export const REQUEST_ID_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

const MONSTERA = { id: 42, name: 'Monstera', tag: 'tropical' } satisfies NewPlant;
const FERN = { id: 7, name: 'Fern' } satisfies NewPlant;
/** Ids beyond 2^53: a client must read and write them exactly (the schemas' descriptions say how). */
const SNOWFLAKE = { id: 9007199254740993n, name: 'Snowflake' } satisfies NewPlant;
const SEQUOIA = { id: 9223372036854775807n, name: 'Giant sequoia' } satisfies NewPlant;

const valid = { token: 'valid' } as const;
const asJson = { contentType: 'application/json' } as const;

const MISSING_TOKEN: ErrorBody = { error: 401, message: 'missing bearer token: send the header Authorization: Bearer <token>' };
const readOnly = { token: 'readOnly' } as const;
const writeOnly = { token: 'writeOnly' } as const;
const insufficientScope = (scope: string): ErrorBody => ({ error: 403, message: `insufficient scope: this operation needs the scope ${scope}, which the token does not grant` });
const READ_ONLY_SUMMARY = 'The token grants plants:read only; creating and deleting need plants:write';
const WRITE_ONLY_SUMMARY = 'The token grants plants:write only; reading needs plants:read';
const UNEXPECTED: ErrorBody = { error: 500, message: `Internal server error (request id ${REQUEST_ID_PLACEHOLDER})` };
const UNAVAILABLE: ErrorBody = { error: 503, message: 'the plant database is unavailable, try again shortly' };
const STORE_FAILS = 'the store fails in a way the service does not expect';
const DATABASE_AWAY = 'MongoDB cannot be reached within MONGODB_TIMEOUT_MS';

export const OPERATION_EXAMPLES = {
  createPlant: {
    200: { name: 'created', summary: 'A new plant is stored and answered', request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: MONSTERA }, response: { name: 'Monstera', tag: 'tropical' } },
    400: {
      name: 'idNotInteger',
      summary: 'The id is not an integer',
      request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: { id: 'forty-two', name: 'Monstera' } },
      response: { error: 400, message: 'id must be an integer' },
    },
    401: { name: 'missingToken', summary: 'No bearer token', request: { token: 'none', ...asJson, method: 'POST', url: '/plants', body: MONSTERA }, response: MISSING_TOKEN },
    403: { name: 'readOnlyToken', summary: READ_ONLY_SUMMARY, request: { ...readOnly, ...asJson, method: 'POST', url: '/plants', body: MONSTERA }, response: insufficientScope('plants:write') },
    409: {
      name: 'idTaken',
      summary: 'The id belongs to a plant with another name',
      request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: { id: 42, name: 'Fiddle-leaf fig' } },
      given: [MONSTERA],
      response: { error: 409, message: 'a plant with id 42 already exists with a different name or tag' },
    },
    413: {
      name: 'bodyTooLarge',
      summary: 'The body is larger than BODY_LIMIT_BYTES',
      request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: { ...MONSTERA, tag: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) } },
      condition: 'BODY_LIMIT_BYTES is the default, 16384',
      response: { error: 413, message: `the request body is larger than the limit of ${DEFAULT_BODY_LIMIT_BYTES} bytes` },
    },
    415: {
      name: 'notJson',
      summary: 'The body is sent as text, not JSON',
      request: { ...valid, method: 'POST', url: '/plants', contentType: 'text/plain', body: 'id=42 name=Monstera' },
      response: { error: 415, message: 'the body must be JSON: send it with Content-Type: application/json' },
    },
    500: { name: 'unexpected', summary: 'An unexpected failure; details are in the log under the request id', request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: MONSTERA }, condition: STORE_FAILS, response: UNEXPECTED },
    503: {
      name: 'databaseUnavailable',
      summary: 'MongoDB does not answer in time; retry after the Retry-After seconds',
      request: { ...valid, ...asJson, method: 'POST', url: '/plants', body: MONSTERA },
      condition: DATABASE_AWAY,
      response: UNAVAILABLE,
    },
  },
  listPlants: {
    200: {
      name: 'firstPage',
      summary: 'A page of plants in ascending id order, ids exact beyond 2^53; the Link header asks for the next',
      request: { ...valid, method: 'GET', url: '/plants?limit=2' },
      given: [FERN, SNOWFLAKE, SEQUOIA],
      response: [FERN, SNOWFLAKE],
      headers: { link: '</plants?limit=2&after=9007199254740993>; rel="next"' },
    },
    400: { name: 'limitTooLarge', summary: 'limit is out of range', request: { ...valid, method: 'GET', url: '/plants?limit=5000' }, response: { error: 400, message: 'limit must be an integer from 1 to 1000' } },
    401: { name: 'missingToken', summary: 'No bearer token', request: { token: 'none', method: 'GET', url: '/plants' }, response: MISSING_TOKEN },
    403: { name: 'writeOnlyToken', summary: WRITE_ONLY_SUMMARY, request: { ...writeOnly, method: 'GET', url: '/plants' }, response: insufficientScope('plants:read') },
    500: { name: 'unexpected', summary: 'An unexpected failure; details are in the log under the request id', request: { ...valid, method: 'GET', url: '/plants' }, condition: STORE_FAILS, response: UNEXPECTED },
    503: { name: 'databaseUnavailable', summary: 'MongoDB does not answer in time', request: { ...valid, method: 'GET', url: '/plants' }, condition: DATABASE_AWAY, response: UNAVAILABLE },
  },
  getPlant: {
    200: { name: 'found', summary: 'The plant with this id, exact beyond 2^53', request: { ...valid, method: 'GET', url: '/plants/9007199254740993' }, given: [SNOWFLAKE], response: SNOWFLAKE },
    400: {
      name: 'idNotInteger',
      summary: 'The id is not an int64',
      request: { ...valid, method: 'GET', url: '/plants/fern' },
      response: { error: 400, message: 'id must be an integer from -9223372036854775808 to 9223372036854775807' },
    },
    401: { name: 'missingToken', summary: 'No bearer token', request: { token: 'none', method: 'GET', url: '/plants/42' }, response: MISSING_TOKEN },
    403: { name: 'writeOnlyToken', summary: WRITE_ONLY_SUMMARY, request: { ...writeOnly, method: 'GET', url: '/plants/42' }, response: insufficientScope('plants:read') },
    404: { name: 'noSuchPlant', summary: 'No plant has this id', request: { ...valid, method: 'GET', url: '/plants/404' }, response: { error: 404, message: 'no plant with id 404' } },
    500: { name: 'unexpected', summary: 'An unexpected failure; details are in the log under the request id', request: { ...valid, method: 'GET', url: '/plants/42' }, condition: STORE_FAILS, response: UNEXPECTED },
    503: { name: 'databaseUnavailable', summary: 'MongoDB does not answer in time', request: { ...valid, method: 'GET', url: '/plants/42' }, condition: DATABASE_AWAY, response: UNAVAILABLE },
  },
  deletePlant: {
    204: { name: 'deleted', summary: 'The plant is gone; the answer has no body', request: { ...valid, method: 'DELETE', url: '/plants/9007199254740993' }, given: [SNOWFLAKE] },
    400: {
      name: 'idNotInteger',
      summary: 'The id is not an int64',
      request: { ...valid, method: 'DELETE', url: '/plants/fern' },
      response: { error: 400, message: 'id must be an integer from -9223372036854775808 to 9223372036854775807' },
    },
    401: { name: 'missingToken', summary: 'No bearer token', request: { token: 'none', method: 'DELETE', url: '/plants/42' }, response: MISSING_TOKEN },
    403: { name: 'readOnlyToken', summary: READ_ONLY_SUMMARY, request: { ...readOnly, method: 'DELETE', url: '/plants/42' }, given: [MONSTERA], response: insufficientScope('plants:write') },
    404: {
      name: 'noSuchPlant',
      summary: 'No plant has this id (a second delete answers this)',
      request: { ...valid, method: 'DELETE', url: '/plants/9007199254740993' },
      response: { error: 404, message: 'no plant with id 9007199254740993' },
    },
    500: { name: 'unexpected', summary: 'An unexpected failure; details are in the log under the request id', request: { ...valid, method: 'DELETE', url: '/plants/42' }, condition: STORE_FAILS, response: UNEXPECTED },
    503: { name: 'databaseUnavailable', summary: 'MongoDB does not answer in time', request: { ...valid, method: 'DELETE', url: '/plants/42' }, condition: DATABASE_AWAY, response: UNAVAILABLE },
  },
} satisfies Record<string, Record<number, OperationExample>>;

export type OperationId = keyof typeof OPERATION_EXAMPLES;

/**
 * More requests offered to try out on `POST /plants`, each answered 200 with its plant. The
 * document writes the id exactly; Swagger UI at /docs reads documents as JavaScript numbers, so
 * its example box shows an id beyond 2^53 rounded, and the description says to type it.
 */
export const MORE_CREATE_PLANT_REQUESTS = {
  bigId: {
    summary: 'An id beyond 2^53: int64 ids are exact at any size',
    description:
      'Stored exactly as sent. In /docs, the example box shows this id rounded to 9007199254740992 ' +
      '(the page reads numbers as JavaScript does): type 9007199254740993 in before you execute.',
    body: SNOWFLAKE,
    response: { name: 'Snowflake' },
  },
} satisfies Record<string, { summary: string; description: string; body: NewPlant; response: Plant }>;

/**
 * Examples of an `{id}` path parameter: a small id first (what tools that fill parameters in take), then one
 * beyond 2^53, which a client must send exactly.
 */
export const ID_PARAMETER_EXAMPLES = {
  small: { summary: 'A small id: 42', value: 42 },
  beyond2to53: {
    summary: 'An id beyond 2^53: 9007199254740993',
    description: 'Sent and answered exactly. In /docs the drop-down shows it rounded (the page reads the document as JavaScript numbers): type 9007199254740993 in.',
    value: 9007199254740993n,
  },
} satisfies Record<string, { summary: string; description?: string; value: number | bigint }>;

/** An answer the HTTP layer gives before any operation runs, for every operation alike. */
export interface HttpLayerExample {
  name: string;
  summary: string;
  /** When it is answered. */
  condition: string;
  response: ErrorBody;
}

export const HTTP_LAYER_EXAMPLES = {
  408: {
    name: 'requestTimeout',
    summary: 'The request took too long to arrive',
    condition: 'the client has not sent the whole request within REQUEST_TIMEOUT_MS',
    response: { error: 408, message: 'the request took too long to arrive' },
  },
  429: {
    name: 'tooManyFailedAuthentications',
    summary: 'Only with AUTH_FAILURE_LIMIT set: retry after the Retry-After seconds',
    condition: 'this client address failed authentication AUTH_FAILURE_LIMIT times within AUTH_FAILURE_WINDOW_MS (60000 here)',
    response: { error: 429, message: 'too many failed authentications from this address: try again in 60 s' },
  },
  431: {
    name: 'headersTooLarge',
    summary: 'The request headers are too large',
    condition: "the request's headers are larger than Node's limit (16 KiB by default)",
    response: { error: 431, message: 'the request headers are too large' },
  },
} satisfies Record<number, HttpLayerExample>;
