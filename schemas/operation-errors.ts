/** Answers every operation shares. */
const UNAUTHORIZED = 'Missing or invalid bearer token: none sent, or one refused (unknown, expired or not yet valid, from another issuer or for another audience, signed with an unknown key or a refused algorithm, malformed); the message and WWW-Authenticate say which';
const FORBIDDEN = 'The token is valid but does not grant the scope this operation needs (WWW-Authenticate names it)';
const UNAVAILABLE = "The plant database is unavailable, or the identity provider's keys cannot be fetched to check a JWT";

/**
 * The REST statuses each operation answers besides its success, each with the `Error` body, and
 * what they mean. The procedures document them (OpenAPI meta) and schemas/examples.ts gives one
 * example of each.
 */
export const CREATE_PLANT_ERRORS = {
  400: 'Invalid input or malformed JSON',
  401: UNAUTHORIZED,
  403: FORBIDDEN,
  409: 'A plant with this id exists with a different name or tag',
  413: 'Request body too large',
  415: 'The body is not JSON',
  500: 'Unexpected error',
  503: UNAVAILABLE,
} as const;

export const LIST_PLANTS_ERRORS = {
  400: 'A parameter is invalid or unknown',
  401: UNAUTHORIZED,
  403: FORBIDDEN,
  500: 'Unexpected error',
  503: UNAVAILABLE,
} as const;

export const GET_PLANT_ERRORS = {
  400: 'The id is not an int64',
  401: UNAUTHORIZED,
  403: FORBIDDEN,
  404: 'No plant has this id',
  500: 'Unexpected error',
  503: UNAVAILABLE,
} as const;

export const DELETE_PLANT_ERRORS = GET_PLANT_ERRORS;
