/**
 * Each operation of the plant API as a request over REST and over /trpc (raw fetch, so that
 * statuses and headers can be read), for the tests that run the same call every way.
 */
import { expect } from 'vitest';

export type OperationName = 'createPlant' | 'listPlants' | 'getPlant' | 'deletePlant';

export interface PlantOperation {
  name: OperationName;
  scope: 'plants:read' | 'plants:write';
  /** The status of success over REST. */
  restSuccess: number;
  /** Whether the call needs the plant `id` stored first (get, delete). */
  needsPlant: boolean;
}

export const PLANT_OPERATIONS: readonly PlantOperation[] = [
  { name: 'createPlant', scope: 'plants:write', restSuccess: 200, needsPlant: false },
  { name: 'listPlants', scope: 'plants:read', restSuccess: 200, needsPlant: false },
  { name: 'getPlant', scope: 'plants:read', restSuccess: 200, needsPlant: true },
  { name: 'deletePlant', scope: 'plants:write', restSuccess: 204, needsPlant: true },
];

export type Transport = 'REST' | '/trpc';

const bearer = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

/** The operation on plant `id`, over `transport`, with `token` (none: no Authorization header). */
export function callOperation(
  base: string,
  transport: Transport,
  operation: OperationName,
  id: number,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<Response> {
  const auth = { ...bearer(token), ...headers };
  const json = { ...auth, 'content-type': 'application/json' };
  if (transport === 'REST') {
    switch (operation) {
      case 'createPlant':
        return fetch(`${base}/plants`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: `Plant ${id}` }) });
      case 'listPlants':
        return fetch(`${base}/plants?limit=1`, { headers: auth });
      case 'getPlant':
        return fetch(`${base}/plants/${id}`, { headers: auth });
      case 'deletePlant':
        return fetch(`${base}/plants/${id}`, { method: 'DELETE', headers: auth });
    }
  }
  switch (operation) {
    case 'createPlant':
      return fetch(`${base}/trpc/createPlant`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: `Plant ${id}` }) });
    case 'listPlants':
      return fetch(`${base}/trpc/listPlants?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`, { headers: auth });
    case 'getPlant':
      return fetch(`${base}/trpc/getPlant?input=${encodeURIComponent(JSON.stringify({ id }))}`, { headers: auth });
    case 'deletePlant':
      return fetch(`${base}/trpc/deletePlant`, { method: 'POST', headers: json, body: JSON.stringify({ id }) });
  }
}

/** What a refusal says, over either transport: the status, the message and the tRPC code (undefined on REST). */
export async function refusalOf(response: Response): Promise<{ status: number; message: string; code: string | undefined }> {
  const body = (await response.json()) as {
    error: number | { message: string; data: { code: string; httpStatus: number } };
    message?: string;
  };
  if (typeof body.error === 'number') {
    expect(body.error).toBe(response.status);
    return { status: response.status, message: body.message ?? '', code: undefined };
  }
  expect(body.error.data.httpStatus).toBe(response.status);
  return { status: response.status, message: body.error.message, code: body.error.data.code };
}
