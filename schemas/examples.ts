import { DEFAULT_BODY_LIMIT_BYTES } from './body-limit.js';
import type { ErrorBody } from './error.js';
import type { NewPlant } from './plant.js';

/**
 * Each operation's documented answers with their examples: the tests send every request to the real app and
 * compare the answer, so the documentation cannot drift from what the service says.
 */

export interface ExampleRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  token: 'valid' | 'none' | 'invalid' | 'readOnly' | 'writeOnly';
  contentType?: 'application/json' | 'application/merge-patch+json' | 'text/plain';
  headers?: Record<string, string>;
  /** int64 is sent exactly; a text/plain body is sent as the string itself. */
  body?: unknown;
}

export interface OperationExample {
  name: string;
  summary: string;
  request: ExampleRequest;
  given?: NewPlant[];
  /** For statuses no request alone produces: the configuration or failure the tests arrange. */
  condition?: string;
  /** Its shape is held where it counts: the tests compare it with the real answer. */
  response?: ExampleJson;
  headers?: Record<string, string>;
}

/** An answer's body: JSON, an int64 beyond 2^53 as a bigint. */
export type ExampleJson =
  string | number | bigint | boolean | null | readonly ExampleJson[] | { readonly [key: string]: ExampleJson | undefined };

/** The 500 message carries the request id; the document shows this one in its place. */
export const REQUEST_ID_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

export const MONSTERA = { id: 42, name: 'Monstera', tag: 'tropical' } satisfies NewPlant;
export const FERN = { id: 7, name: 'Fern' } satisfies NewPlant;
/** Ids beyond 2^53: a client must read and write them exactly. */
export const SNOWFLAKE = { id: 9007199254740993n, name: 'Snowflake' } satisfies NewPlant;
export const SEQUOIA = { id: 9223372036854775807n, name: 'Giant sequoia' } satisfies NewPlant;

export const valid = { token: 'valid' } as const;
export const asJson = { contentType: 'application/json' } as const;

const MISSING_TOKEN: ErrorBody = { error: 401, message: 'missing bearer token: send the header Authorization: Bearer <token>' };
const insufficientScope = (scope: string): ErrorBody => ({
  error: 403,
  message: `insufficient scope: this operation needs the scope ${scope}, which the token does not grant`,
});
const READ_ONLY_SUMMARY = 'The token grants plants:read only; creating, changing and deleting need plants:write';
const WRITE_ONLY_SUMMARY = 'The token grants plants:write only; reading needs plants:read';
const UNEXPECTED: ErrorBody = { error: 500, message: `Internal server error (request id ${REQUEST_ID_PLACEHOLDER})` };
const UNAVAILABLE: ErrorBody = { error: 503, message: 'the plant database is unavailable, try again shortly' };
const STORE_FAILS = 'the store fails in a way the service does not expect';
const DATABASE_AWAY = 'MongoDB cannot be reached within MONGODB_TIMEOUT_MS';

export interface RequestExample {
  summary: string;
  description: string;
  body: unknown;
  response: unknown;
}

/** A small id first: tools that fill parameters in take the first example. */
export const ID_PARAMETER_EXAMPLES = {
  small: { summary: 'A small id: 42', value: 42 },
  beyond2to53: {
    summary: 'An id beyond 2^53: 9007199254740993',
    description:
      'Sent and answered exactly. In /docs the drop-down shows it rounded (the page reads the document as JavaScript ' +
      'numbers): type 9007199254740993 in.',
    value: 9007199254740993n,
  },
} satisfies Record<string, { summary: string; description?: string; value: number | bigint }>;

export interface HttpLayerExample {
  name: string;
  summary: string;
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
  417: {
    name: 'expectationFailed',
    summary: 'The Expect header asks for something other than 100-continue',
    condition: 'the request carries an Expect header other than 100-continue',
    response: { error: 417, message: 'the Expect header asks for what this service does not do: only 100-continue is understood' },
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
    response: {
      error: 431,
      message:
        'the request line and headers are too large: a long query (such as a tRPC batch of many calls) goes in a POST ' +
        'body, or in several requests',
    },
  },
} satisfies Record<number, HttpLayerExample>;

const SHARED_ANSWERS = {
  unauthorized:
    'Missing or invalid bearer token: none sent, or one refused (unknown, expired or not yet valid, from another issuer or for ' +
    'another audience, signed with an unknown key or a refused algorithm, malformed); the message and WWW-Authenticate say which',
  forbidden: 'The token is valid but does not grant the scope this operation needs (WWW-Authenticate names it)',
  unexpected: 'Unexpected error',
  unavailable:
    "The plant database is unavailable, the identity provider's keys cannot be fetched to check a JWT, or (for a change) " +
    'the plant already has WEBHOOK_CHANGE_QUEUE_LIMIT change events waiting for delivery',
} as const;

export function sharedAnswers(
  scope: 'plants:read' | 'plants:write',
  request: Omit<ExampleRequest, 'token'>,
  { given, unavailableSummary = 'MongoDB does not answer in time' }: { given?: NewPlant[]; unavailableSummary?: string } = {},
) {
  const lacking =
    scope === 'plants:write'
      ? { name: 'readOnlyToken', summary: READ_ONLY_SUMMARY, token: 'readOnly' }
      : { name: 'writeOnlyToken', summary: WRITE_ONLY_SUMMARY, token: 'writeOnly' };
  const forbidden: OperationExample = {
    name: lacking.name,
    summary: lacking.summary,
    request: { ...request, token: lacking.token as 'readOnly' | 'writeOnly' },
    ...(given && { given }),
    response: insufficientScope(scope),
  };
  return {
    401: {
      description: SHARED_ANSWERS.unauthorized,
      example: { name: 'missingToken', summary: 'No bearer token', request: { ...request, token: 'none' }, response: MISSING_TOKEN },
    },
    403: { description: SHARED_ANSWERS.forbidden, example: forbidden },
    500: {
      description: SHARED_ANSWERS.unexpected,
      example: {
        name: 'unexpected',
        summary: 'An unexpected failure; details are in the log under the request id',
        request: { ...request, token: 'valid' },
        condition: STORE_FAILS,
        response: UNEXPECTED,
      },
    },
    503: {
      description: SHARED_ANSWERS.unavailable,
      example: {
        name: 'databaseUnavailable',
        summary: unavailableSummary,
        request: { ...request, token: 'valid' },
        condition: DATABASE_AWAY,
        response: UNAVAILABLE,
      },
    },
  } satisfies Record<number, { description: string; example: OperationExample }>;
}

/** Every 400 a read or a delete can get, in its description; the example is the likeliest. */
const NOT_A_PLANT_ID = {
  GET: 'The id is not an int64, the request has a query parameter (none is taken), or If-Match is neither `*` nor entity tags',
  DELETE:
    'The id is not an int64, the request has a query parameter (none is taken) or a body, or If-Match or If-None-Match ' +
    'is neither `*` nor entity tags',
} as const;

export function notAPlantIdAnswer(method: keyof typeof NOT_A_PLANT_ID) {
  return {
    description: NOT_A_PLANT_ID[method],
    example: {
      name: 'idNotInteger',
      summary: 'The id is not an int64',
      request: {
        token: 'valid',
        method,
        url: '/plants/fern',
      },
      response: { error: 400, message: 'id must be an integer from -9223372036854775808 to 9223372036854775807' },
    },
  } satisfies { description: string; example: OperationExample };
}

/** 413 to any request whose JSON body is over the limit: a DELETE's too, though it takes none. Its body: `fields` and a long tag. */
export function bodyTooLargeAnswer(request: Omit<ExampleRequest, 'token' | 'body'>, fields: Partial<NewPlant> = {}) {
  return {
    description: 'The request body is larger than BODY_LIMIT_BYTES',
    example: {
      name: 'bodyTooLarge',
      summary: 'The body is larger than BODY_LIMIT_BYTES',
      request: { token: 'valid', ...request, body: { ...fields, tag: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) } },
      condition: `BODY_LIMIT_BYTES is the default, ${DEFAULT_BODY_LIMIT_BYTES}`,
      response: { error: 413, message: `the request body is larger than the limit of ${DEFAULT_BODY_LIMIT_BYTES} bytes` },
    },
  } satisfies { description: string; example: OperationExample };
}

/** Why a JSON body of any operation is refused 415 before it is read. */
export const ENCODED_BODY = 'or is encoded (a Content-Encoding other than identity)';

/** 415 to a DELETE whose JSON body is encoded: a body it would refuse anyway, refused as any encoded JSON body is. */
export function encodedBodyAnswer(request: Omit<ExampleRequest, 'token' | 'body' | 'contentType' | 'headers'>) {
  return {
    description: `The JSON body is encoded (a Content-Encoding other than identity); a ${request.method} takes none anyway`,
    example: {
      name: 'encodedBody',
      summary: 'The body is sent compressed',
      request: { token: 'valid', ...request, contentType: 'application/json', headers: { 'content-encoding': 'gzip' }, body: {} },
      response: {
        error: 415,
        message: 'the request body must not be encoded: send it without Content-Encoding (gzip, br and the like are not accepted)',
      },
      headers: { 'accept-encoding': 'identity' },
    },
  } satisfies { description: string; example: OperationExample };
}

/** 412 to a read (`nothing` undefined), or to a change or delete, which If-None-Match refuses too. */
export function changedMeanwhileAnswer(request: Omit<ExampleRequest, 'token' | 'headers'>, nothing?: 'changed' | 'deleted') {
  return {
    description:
      nothing === undefined
        ? 'The plant has changed since it was read: its entity tag matches none of If-Match (compared strongly: a weak `W/` ' +
          'tag never matches), so it is not answered'
        : 'The plant has changed since it was read: its entity tag matches none of If-Match (compared strongly: a weak `W/` ' +
          `tag never matches), or is one If-None-Match names (\`*\` names any); nothing was ${nothing}`,
    example: {
      name: 'changedMeanwhile',
      summary: 'If-Match names an entity tag the plant no longer has',
      request: { token: 'valid', ...request, headers: { 'if-match': '"an-earlier-version"' } },
      given: [MONSTERA],
      response: {
        error: 412,
        message: 'the plant with id 42 has changed: its entity tag matches none of If-Match; read it again and retry',
      },
    },
  } satisfies { description: string; example: OperationExample };
}
