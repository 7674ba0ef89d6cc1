import type { Request } from 'autocannon';

/**
 * Every create the benchmark sends is a plant no one has sent before, so the MongoDB runs
 * store a document each time (a repeated id would take the cheaper "already stored" path).
 * Ids start from the clock, in thousandths of a millisecond, so runs against a database that
 * persists never reuse an earlier run's ids; they stay far below 2^53.
 */
let nextId = Date.now() * 1000;

export const PLANT_NAME = 'Monstera';
export const PLANT_TAG = 'tropical';
/** The page size of the list rounds. */
export const LIST_LIMIT = 20;

export function newPlantBody(): string {
  nextId += 1;
  return `{"id":${nextId},"name":"${PLANT_NAME}","tag":"${PLANT_TAG}"}`;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonWithBearer = (token: string) => ({ 'content-type': 'application/json', ...bearer(token) });

/** An autocannon request to `path` whose body is a new plant each time it is sent. */
export function createPlantRequest(path: string, token: string): Request {
  return { method: 'POST', path, headers: jsonWithBearer(token), setupRequest: (request) => ({ ...request, body: newPlantBody() }) };
}

/** The same GET each time: a page of the list. */
export function getRequest(path: string, token: string): Request {
  return { method: 'GET', path, headers: bearer(token) };
}

/**
 * The ids delete requests name, in order. With the MongoDB store each round first stores the
 * plants it will delete and restarts the sequence at the first of them (bench/bench-database.ts);
 * the no-op store deletes any id.
 */
export class IdSequence {
  private next = 1;

  restart(first: number): void {
    this.next = first;
  }

  take(): number {
    return this.next++;
  }
}

export const deleteIds = new IdSequence();
/** The ids update requests name: with MongoDB, a pool stored before each round, each changed once. */
export const updateIds = new IdSequence();
/** The name every update gives: each changes a plant named PLANT_NAME, so every one is a real change. */
export const CHANGED_NAME = 'Variegated monstera';

/** `DELETE <path>/<id>`, a new id from `deleteIds` each time. */
export function deleteByPathRequest(path: string, token: string): Request {
  return {
    method: 'DELETE',
    path,
    headers: bearer(token),
    setupRequest: (request) => ({ ...request, path: `${path}/${deleteIds.take()}` }),
  };
}

/** `POST <path>` with `{"id": <id>}`, a new id from `deleteIds` each time. */
export function deleteByBodyRequest(path: string, token: string): Request {
  return {
    method: 'POST',
    path,
    headers: jsonWithBearer(token),
    setupRequest: (request) => ({ ...request, body: `{"id":${deleteIds.take()}}` }),
  };
}

/**
 * `PATCH <path>/<id>` renaming the plant, a new id from `updateIds` each time: as a merge patch, or as JSON
 * (which the service takes too) for the baseline route, outside the service's REST routes that read merge patches.
 */
export function updateRequest(path: string, token: string, contentType = 'application/merge-patch+json'): Request {
  return {
    method: 'PATCH',
    path,
    headers: { 'content-type': contentType, ...bearer(token) },
    body: `{"name":"${CHANGED_NAME}"}`,
    setupRequest: (request) => ({ ...request, path: `${path}/${updateIds.take()}` }),
  };
}

/** `POST <path>` with tRPC's `{"id": <id>, "name": …}`, a new id from `updateIds` each time. */
export function updateByBodyRequest(path: string, token: string): Request {
  return {
    method: 'POST',
    path,
    headers: jsonWithBearer(token),
    setupRequest: (request) => ({ ...request, body: `{"id":${updateIds.take()},"name":"${CHANGED_NAME}"}` }),
  };
}
