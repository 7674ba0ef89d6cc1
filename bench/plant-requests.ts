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

/** `DELETE <path>/<id>`, a new id from `deleteIds` each time. */
export function deleteByPathRequest(path: string, token: string): Request {
  return { method: 'DELETE', path, headers: bearer(token), setupRequest: (request) => ({ ...request, path: `${path}/${deleteIds.take()}` }) };
}

/** `POST <path>` with `{"id": <id>}`, a new id from `deleteIds` each time. */
export function deleteByBodyRequest(path: string, token: string): Request {
  return { method: 'POST', path, headers: jsonWithBearer(token), setupRequest: (request) => ({ ...request, body: `{"id":${deleteIds.take()}}` }) };
}
