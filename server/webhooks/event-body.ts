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
