import { z } from 'zod';
import { int64Field } from './int64.js';
import { StoredPlantSchema } from './plant.js';

/**
 * The change events a WEBHOOK_CHANGE_URLS receiver gets, Standard Webhooks style: `type` names what happened,
 * `timestamp` when, `data` the plant as stored after the change, or only its id once it is gone.
 */

const changedAt = z.iso.datetime({ offset: true, error: 'timestamp must be an RFC 3339 date-time' }).meta({
  description: 'When the change was made (RFC 3339), not when this attempt was sent',
  examples: ['2026-01-01T12:00:00.000Z'],
  // `format: date-time` says it; zod's own pattern for it would be unreadable in the document.
  override: ({ jsonSchema }) => {
    delete jsonSchema.pattern;
  },
});

const eventOf = <Type extends string, Data extends z.ZodType>(type: Type, data: Data, meta: { id: string; description: string }) =>
  z.strictObject({ type: z.literal(type).meta({ description: 'What happened to the plant' }), timestamp: changedAt, data }).meta(meta);

export const PlantCreatedEventSchema = eventOf('plant.created', StoredPlantSchema, {
  id: 'PlantCreatedEvent',
  description: 'A plant was added to the store; `data` is the plant as stored',
});

export const PlantUpdatedEventSchema = eventOf('plant.updated', StoredPlantSchema, {
  id: 'PlantUpdatedEvent',
  description: 'A plant was changed; `data` is the whole plant as stored after the change (without `tag` when it has none)',
});

export const DeletedPlantSchema = z
  .strictObject({ id: int64Field('id', { description: 'Identification number of the deleted plant', examples: [42] }) })
  .meta({ id: 'DeletedPlant', description: 'The plant that was deleted: its id alone' });

export const PlantDeletedEventSchema = eventOf('plant.deleted', DeletedPlantSchema, {
  id: 'PlantDeletedEvent',
  description: 'A plant was deleted; `data` holds its id',
});

/** Every body a change receiver gets, told apart by `type`. */
export const PlantChangeEventSchema = z.discriminatedUnion('type', [
  PlantCreatedEventSchema,
  PlantUpdatedEventSchema,
  PlantDeletedEventSchema,
]);

export type PlantChangeEvent = z.infer<typeof PlantChangeEventSchema>;
export type PlantChangeType = PlantChangeEvent['type'];
