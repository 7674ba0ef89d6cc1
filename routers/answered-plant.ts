import type { Int64 } from '../schemas/int64.js';
import type { Plant, StoredPlant } from '../schemas/plant.js';
import type { Context } from './context.js';
import { entityTagOf } from './entity-tags.js';
import type { Revised } from './plant-store.js';

/** The plant a create answers, without the store's revision; its entity tag goes to the context, for `ETag`. */
export function answeredPlant(ctx: Context, id: Int64, { name, tag, revision = 0 }: Revised<Plant>): Plant {
  const plant = tag === undefined ? { name } : { name, tag };
  ctx.entityTag = entityTagOf(id, revision, plant);
  return plant;
}

/** The same for an answer that names the plant. */
export function answeredStoredPlant(ctx: Context, { id, name, tag, revision = 0 }: Revised<StoredPlant>): StoredPlant {
  const plant = tag === undefined ? { id, name } : { id, name, tag };
  ctx.entityTag = entityTagOf(id, revision, plant);
  return plant;
}
