import type { z } from 'zod';

/**
 * Pins `coerce` off on every number, boolean, bigint and date schema inside an object schema.
 *
 * Why: trpc-to-openapi's REST handler turns on zod coercion by assigning `def.coerce = true`
 * on the procedure's input schemas, in place, on every request. That would make "42" a valid
 * id over REST and, since the schema objects are shared, over tRPC too from the first REST
 * call on. An accessor that always reads `false` and ignores writes keeps the schemas exactly
 * as declared, whoever tries to loosen them.
 */
export function refuseCoercion<T extends z.ZodObject>(schema: T): T {
  pinShape(schema);
  return schema;
}

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

interface SchemaNode {
  _zod: { def: { type: string; innerType?: SchemaNode; shape?: Record<string, SchemaNode>; coerce?: boolean } };
}

function pinShape(schema: SchemaNode): void {
  for (const field of Object.values(schema._zod.def.shape ?? {})) pin(field);
}

function pin(schema: SchemaNode): void {
  const def = schema._zod.def;
  if (WRAPPERS.has(def.type) && def.innerType) {
    pin(def.innerType);
  } else if (def.type === 'object') {
    pinShape(schema);
  } else if (COERCIBLE.has(def.type)) {
    Object.defineProperty(def, 'coerce', { get: () => false, set: () => undefined, enumerable: true });
  }
}
