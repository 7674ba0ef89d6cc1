import type { Request } from 'autocannon';

/**
 * Every request the benchmark sends creates a plant no one has sent before, so the MongoDB runs
 * store a document each time (a repeated id would take the cheaper "already stored" path).
 * Ids start from the clock, in thousandths of a millisecond, so runs against a database that
 * persists never reuse an earlier run's ids; they stay far below 2^53.
 */
let nextId = Date.now() * 1000;

export const PLANT_NAME = 'Monstera';
export const PLANT_TAG = 'tropical';

export function newPlantBody(): string {
  nextId += 1;
  return `{"id":${nextId},"name":"${PLANT_NAME}","tag":"${PLANT_TAG}"}`;
}

/** An autocannon request to `path` whose body is a new plant each time it is sent. */
export function createPlantRequest(path: string, token: string): Request {
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    setupRequest: (request) => ({ ...request, body: newPlantBody() }),
  };
}
