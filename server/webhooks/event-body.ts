import type { Long } from 'mongodb';

/** The stored plant as the worker reads it back: its Int64 `_id`, name and tag. */
export interface PlantAsRead {
  _id: Long | bigint | number;
  name: string;
  tag?: string;
}

/**
 * The event's body: the `NewPlant` as stored, `{"id", "name", "tag"?}`. The id is written from the
 * document's Int64 as decimal digits, so it stays exact whatever its size.
 */
export function newPlantBody(plant: PlantAsRead): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${idDigits(plant._id)},"name":${JSON.stringify(plant.name)}${tag}}`;
}

/** The one place that turns a stored id into JSON digits. */
export function idDigits(id: Long | bigint | number): string {
  if (typeof id === 'number' && !Number.isSafeInteger(id)) throw new Error(`plant id ${id} was read back rounded`);
  return id.toString();
}
