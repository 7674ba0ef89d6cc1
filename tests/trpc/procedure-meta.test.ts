// The procedures' meta is the project's own type (routers/procedure-meta.ts), so AppRouter's
// declarations reference nothing of trpc-to-openapi; trpc-to-openapi must still read it as its own.
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expectTypeOf, it } from 'vitest';
import type { AppRouter } from '../../routers/app.js';
import type { ProcedureMeta } from '../../routers/procedure-meta.js';

it('is a meta trpc-to-openapi reads as its OpenApiMeta, and the router is typed with it', () => {
  expectTypeOf<ProcedureMeta>().toExtend<OpenApiMeta>();
  expectTypeOf<NonNullable<ProcedureMeta['openapi']>>().toExtend<NonNullable<OpenApiMeta['openapi']>>();
  expectTypeOf<AppRouter['_def']['_config']['$types']['meta']>().toEqualTypeOf<ProcedureMeta>();
});
