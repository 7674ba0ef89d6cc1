import { z } from 'zod';
import { int64Field, int64Parameter } from './int64.js';
import { refuseCoercion } from './refuse-coercion.js';

/**
 * Bounds the interface leaves open: an id is a JSON integer ("42" is refused, not coerced), text must be well-formed
 * Unicode (a lone surrogate cannot be stored as UTF-8), and unknown fields are refused rather than silently dropped.
 */

export const MAX_NAME_LENGTH = 200;
export const MAX_TAG_LENGTH = 100;

/** Whether the text can be stored as UTF-8: no lone surrogate. */
export const isWellFormed = (value: string) => value.isWellFormed();

/** `whenNull` words the refusal of a null: in a merge patch, null would remove the name. */
const nameSchema = (whenNull = 'name must be a string') =>
  z
    .string({
      error: (failure) => (failure.input === undefined ? 'name is required' : failure.input === null ? whenNull : 'name must be a string'),
    })
    .min(1, { error: 'name must not be empty' })
    .max(MAX_NAME_LENGTH, { error: `name must be at most ${MAX_NAME_LENGTH} characters` })
    .refine(isWellFormed, { error: 'name must be valid Unicode text' })
    .meta({ description: 'The name of the plant', examples: ['Monstera'] });

const plantName = nameSchema();

/** `notAString` words the refusal of another type: in a merge patch, null is allowed too. */
const tagSchema = (notAString = 'tag must be a string') =>
  z
    .string({ error: notAString })
    .max(MAX_TAG_LENGTH, { error: `tag must be at most ${MAX_TAG_LENGTH} characters` })
    .refine(isWellFormed, { error: 'tag must be valid Unicode text' })
    .meta({ description: 'Tag that specifies the type of the plant', examples: ['tropical'] });

const plantTag = tagSchema();

const plantId = int64Field('id', { description: 'Identification number of the plant', examples: [42] });

/** An input that is no object, named with the fields it takes: REST refuses such a body before any schema reads it. */
export function notAnObject(input: unknown, shape: z.core.$ZodShape): string {
  const fields = Object.entries(shape).map(([name, field]) => (z.safeParse(field, undefined).success ? `${name}?` : name));
  return `${input === undefined ? 'the input is missing' : 'the input must be a JSON object'}: it is { ${fields.join(', ')} }`;
}

function unknownFields(keys: readonly string[], fields: string): string {
  return `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((key) => JSON.stringify(key)).join(', ')}: ${fields}`;
}

export const PlantSchema = z
  .strictObject({ name: plantName, tag: plantTag.optional() })
  .meta({ id: 'Plant', description: 'A plant in the store' });

const newPlantShape = { id: plantId, name: plantName, tag: plantTag.optional() };

export const NewPlantSchema = refuseCoercion(
  z
    .strictObject(newPlantShape, {
      error: (failure) =>
        failure.code === 'unrecognized_keys'
          ? unknownFields(failure.keys, 'a NewPlant has only id, name and tag')
          : notAnObject(failure.input, newPlantShape),
    })
    .meta({ id: 'NewPlant', description: 'A plant to add to the store, with its identifier' }),
);

export type Plant = z.infer<typeof PlantSchema>;
export type NewPlant = z.infer<typeof NewPlantSchema>;

export const StoredPlantSchema = z
  .strictObject({ id: plantId, name: plantName, tag: plantTag.optional() })
  .meta({ id: 'StoredPlant', description: 'A plant in the store, with its identifier' });

export type StoredPlant = z.infer<typeof StoredPlantSchema>;

/**
 * A JSON merge patch (RFC 7396): a field left out stays, `tag: null` removes the tag.
 * Over REST `id` and `ifMatch` come from the path and the If-Match header.
 */
const updatePlantShape = {
  id: int64Parameter('id', 'Identification number of the plant'),
  name: nameSchema('name must be a string, not null: a plant always has a name').optional(),
  tag: tagSchema('tag must be a string, or null to remove the tag')
    .nullable()
    .meta({ description: 'Tag that specifies the type of the plant; null removes it', examples: ['tropical'] })
    .optional(),
  ifMatch: z
    .string({ error: 'ifMatch must be a string' })
    .meta({ description: 'The If-Match condition: `*`, or entity tags as ETag answers them, comma-separated' })
    .optional(),
};

export const UpdatePlantInputSchema = z.strictObject(updatePlantShape, {
  error: (failure) =>
    failure.code === 'unrecognized_keys'
      ? unknownFields(failure.keys, 'a change has only name and tag')
      : notAnObject(failure.input, updatePlantShape),
});

export type UpdatePlantInput = z.infer<typeof UpdatePlantInputSchema>;
export type PlantPatch = Pick<UpdatePlantInput, 'name' | 'tag'>;
