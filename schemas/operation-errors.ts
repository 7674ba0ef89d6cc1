/**
 * The REST statuses each operation answers besides its success, each with the `Error` body, and
 * what they mean. The procedures document them (OpenAPI meta) and schemas/examples.ts gives one
 * example of each.
 */
export const CREATE_PLANT_ERRORS = {
  400: 'Invalid input or malformed JSON',
  401: 'Missing or invalid bearer token',
  409: 'A plant with this id exists with a different name or tag',
  413: 'Request body too large',
  415: 'The body is not JSON',
  500: 'Unexpected error',
  503: 'The plant database is unavailable',
} as const;

export const LIST_PLANTS_ERRORS = {
  400: 'A parameter is invalid or unknown',
  401: 'Missing or invalid bearer token',
  500: 'Unexpected error',
  503: 'The plant database is unavailable',
} as const;

export const GET_PLANT_ERRORS = {
  400: 'The id is not an int64',
  401: 'Missing or invalid bearer token',
  404: 'No plant has this id',
  500: 'Unexpected error',
  503: 'The plant database is unavailable',
} as const;

export const DELETE_PLANT_ERRORS = GET_PLANT_ERRORS;
