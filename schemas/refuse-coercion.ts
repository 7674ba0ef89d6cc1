import type { z } from 'zod';

/**
 * trpc-to-openapi's REST handler sets `def.coerce = true` in place on every request, which would make "42" a valid
 * id, over tRPC too since schemas are shared: an accessor pins `coerce` to false.
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
