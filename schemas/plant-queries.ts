import { z } from 'zod';
import { int64Parameter, writtenOtherwise } from './int64.js';
import { isWellFormed, MAX_TAG_LENGTH, notAnObject } from './plant.js';

// Over REST these arrive as text: "10" is read as 10, nothing else is coerced, and an unknown parameter is refused.

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

const limitMessage = `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`;

const limitProblem = (input: unknown): string =>
  (typeof input === 'string' && writtenOtherwise('limit', input, (value) => value >= 1n && value <= MAX_LIST_LIMIT)) || limitMessage;

function toLimit(value: unknown): number | undefined {
  const limit = typeof value === 'string' && /^[1-9]\d{0,3}$/.test(value) ? Number(value) : value;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIST_LIMIT ? limit : undefined;
}

const limit = z
  .custom<number | string>((value) => toLimit(value) !== undefined, {
    // A query that repeats it arrives as an array.
    error: (failure) => (Array.isArray(failure.input) ? 'limit may be given once' : limitProblem(failure.input)),
  })
  .meta({
    description: `The maximum number of plants to return (default ${DEFAULT_LIST_LIMIT})`,
    override: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT },
  })
  .transform((value) => toLimit(value) as number);

function parameters<T extends z.core.$ZodShape>(operation: string, shape: T) {
  const names = Object.keys(shape);
  const known = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}` : names.join('');
  return z.strictObject(shape, {
    error: (failure) => {
      if (failure.code !== 'unrecognized_keys') return notAnObject(failure.input, shape);
      const names = failure.keys.map((key) => JSON.stringify(key)).join(', ');
      return `unknown parameter${failure.keys.length > 1 ? 's' : ''} ${names}: ${operation} takes only ${known}`;
    },
  });
}

/** One tag, matched exactly; a query that repeats it arrives as an array. */
const tagFilter = z
  .string({
    error: (failure) =>
      Array.isArray(failure.input) ? 'tag may be given once: plants are listed by one tag at a time' : 'tag must be a string',
  })
  .max(MAX_TAG_LENGTH, { error: `tag must be at most ${MAX_TAG_LENGTH} characters: no plant has a longer one` })
  .refine(isWellFormed, { error: 'tag must be valid Unicode text: no plant has a tag that is not' })
  .meta({ description: 'Return only the plants with exactly this tag', examples: ['tropical'] });

export const ListPlantsInputSchema = parameters('listing plants', {
  limit: limit.optional(),
  tag: tagFilter.optional(),
  after: int64Parameter('after', 'Return the plants after this id (the last id of the previous page)').optional(),
});

export const PlantIdInputSchema = parameters('this operation', {
  id: int64Parameter('id', 'Identification number of the plant'),
});

/** Over REST the condition comes from the If-Match header; /trpc and in-process callers give it as `ifMatch`. */
export const DeletePlantInputSchema = parameters('deleting a plant', {
  id: int64Parameter('id', 'Identification number of the plant'),
  ifMatch: z
    .string({ error: 'ifMatch must be a string' })
    .meta({ description: 'The If-Match condition: `*`, or entity tags as ETag answers them, comma-separated' })
    .optional(),
});

export type ListPlantsInput = z.input<typeof ListPlantsInputSchema>;
