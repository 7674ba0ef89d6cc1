import type { Long } from 'mongodb';

export interface PlantAsRead {
  _id: Long | bigint | number;
  name: string;
  tag?: string;
}

/** The id is written from the stored Int64 as decimal digits, so it stays exact whatever its size. */
export function newPlantBody(plant: PlantAsRead): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${idDigits(plant._id)},"name":${JSON.stringify(plant.name)}${tag}}`;
}

export function idDigits(id: Long | bigint | number): string {
  if (typeof id === 'number' && !Number.isSafeInteger(id)) throw new Error(`plant id ${id} was read back rounded`);
  return id.toString();
}

/** A Standard Webhooks change event: its type, when the change was made, and the plant (or only its id, for a delete). */
export function changeEventBody(
  type: string,
  at: Date,
  id: Long | bigint | number,
  plant: { name: string; tag?: string } | undefined,
): string {
  const data = plant ? newPlantBody({ _id: id, ...plant }) : `{"id":${idDigits(id)}}`;
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(at.toISOString())},"data":${data}}`;
}
