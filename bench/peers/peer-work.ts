import { z } from 'zod';
import {
  createTokenVerifier,
  DEFAULT_LIST_LIMIT,
  entityTagOf,
  StoredPlantSchema,
  type AppConfig,
  type Int64,
  type Plant,
  type PlantStore,
  type Revised,
  type StoredPlant,
} from '../../index.js';

/**
 * What every peer stack shares, so each does exactly the service's work and differs only in
 * the framework: the same token check, the same schemas, the same store, the same error shape.
 */

/** listPlants' output schema, as its procedure declares it. */
export const PlantListSchema = z.array(StoredPlantSchema);

/** A peer server, listening on the config's host and port. */
export interface PeerServer {
  close: () => Promise<void>;
}

export type StartPeer = (config: AppConfig, store: PlantStore) => Promise<PeerServer>;

export type TokenVerifier = ReturnType<typeof createTokenVerifier>;

/** The service's REST error body. */
export const errorBody = (status: number, message: string) => ({ error: status, message });

export const UNAUTHORIZED = errorBody(401, 'unauthorized');

/** zod's messages for each failed check, as one line (the schemas word each for a user). */
export const issuesMessage = (error: { issues: readonly { message?: string }[] }): string =>
  error.issues.map((failure) => failure.message).join('; ');

/** A create's answer as the service gives it: the plant without the store's revision, and its entity tag for `ETag`. */
export function createdPlant(id: Int64, { name, tag, revision = 0 }: Revised<Plant>): { plant: Plant; entityTag: string } {
  const plant = tag === undefined ? { name } : { name, tag };
  return { plant, entityTag: entityTagOf(id, revision, plant) };
}

export const noPlant = (id: unknown) => errorBody(404, `no plant with id ${String(id)}`);

/** The page's limit, as the service fills it in when the query has none. */
export const pageLimit = (limit: number | undefined): number => limit ?? DEFAULT_LIST_LIMIT;

/**
 * The service's `Link` to the next page while plants follow; undefined on the last page. Built
 * from the validated input: the strict query schema admits only `limit` and `after`.
 */
export function nextPageLink(path: string, limit: number, page: readonly StoredPlant[], more: boolean): string | undefined {
  const last = page.at(-1);
  if (!more || !last) return undefined;
  return `<${path}?limit=${limit}&after=${String(last.id)}>; rel="next"`;
}
