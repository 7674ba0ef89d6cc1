import { DEFAULT_BODY_LIMIT_BYTES } from './body-limit.js';
import type { ErrorBody } from './error.js';
import type { CREATE_PLANT_ERRORS } from './operation-errors.js';
import type { NewPlant, Plant } from './plant.js';

/**
 * One example per documented status of `POST /plants`: the request that produces it and the
 * exact body the service answers. The OpenAPI document shows them (server/openapi/examples.ts)
 * and tests/openapi/examples.test.ts sends each request to the real app and compares the answer,
 * so the documentation cannot drift from what the service says.
 */

export type CreatePlantStatus = 200 | keyof typeof CREATE_PLANT_ERRORS;

export interface ExampleRequest {
  /** Which Authorization header is sent: an accepted bearer token, none at all, or a wrong one. */
  token: 'valid' | 'none' | 'invalid';
  contentType: 'application/json' | 'text/plain';
  /** JSON bodies are sent serialised; a text/plain body is sent as the string itself. */
  body: unknown;
}

export interface CreatePlantExample {
  /** The example's key in the document, such as `created`. */
  name: string;
  summary: string;
  request: ExampleRequest;
  /** What must hold before the request answers this status, when it is more than the request. */
  given?: string;
  response: Plant | ErrorBody;
}

/** The 500 message carries the request id; the document shows this one in its place. */
export const REQUEST_ID_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

const MONSTERA = { id: 42, name: 'Monstera', tag: 'tropical' } satisfies NewPlant;

const json = (body: unknown, token: ExampleRequest['token'] = 'valid'): ExampleRequest => ({
  token,
  contentType: 'application/json',
  body,
});

export const CREATE_PLANT_EXAMPLES = {
  200: {
    name: 'created',
    summary: 'A new plant is stored and answered',
    request: json(MONSTERA),
    response: { name: 'Monstera', tag: 'tropical' },
  },
  400: {
    name: 'idNotInteger',
    summary: 'The id is not an integer',
    request: json({ id: 'forty-two', name: 'Monstera' }),
    response: { error: 400, message: 'id must be an integer' },
  },
  401: {
    name: 'missingToken',
    summary: 'No bearer token',
    request: json(MONSTERA, 'none'),
    response: { error: 401, message: 'missing bearer token: send the header Authorization: Bearer <token>' },
  },
  409: {
    name: 'idTaken',
    summary: 'The id belongs to a plant with another name',
    request: json({ id: 42, name: 'Fiddle-leaf fig' }),
    given: 'the `created` example has stored plant 42 as Monstera',
    response: { error: 409, message: 'a plant with id 42 already exists with a different name or tag' },
  },
  413: {
    name: 'bodyTooLarge',
    summary: 'The body is larger than BODY_LIMIT_BYTES',
    request: json({ ...MONSTERA, tag: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) }),
    given: 'BODY_LIMIT_BYTES is the default, 16384',
    response: { error: 413, message: `the request body is larger than the limit of ${DEFAULT_BODY_LIMIT_BYTES} bytes` },
  },
  415: {
    name: 'notJson',
    summary: 'The body is sent as text, not JSON',
    request: { token: 'valid', contentType: 'text/plain', body: 'id=42 name=Monstera' },
    response: { error: 415, message: 'the body must be JSON: send it with Content-Type: application/json' },
  },
  500: {
    name: 'unexpected',
    summary: 'An unexpected failure; details are in the log under the request id',
    request: json(MONSTERA),
    given: 'the store fails in a way the service does not expect',
    response: { error: 500, message: `Internal server error (request id ${REQUEST_ID_PLACEHOLDER})` },
  },
  503: {
    name: 'databaseUnavailable',
    summary: 'MongoDB does not answer in time; retry after the Retry-After seconds',
    request: json(MONSTERA),
    given: 'MongoDB cannot be reached within MONGODB_TIMEOUT_MS',
    response: { error: 503, message: 'the plant database is unavailable, try again shortly' },
  },
} satisfies Record<CreatePlantStatus, CreatePlantExample>;

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
    body: { id: 9007199254740993n, name: 'Snowflake' },
    response: { name: 'Snowflake' },
  },
} satisfies Record<string, { summary: string; description: string; body: NewPlant; response: Plant }>;
