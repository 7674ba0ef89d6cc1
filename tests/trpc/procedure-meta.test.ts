// The procedures' meta is the project's own type (routers/procedure-meta.ts), so AppRouter's
// declarations reference nothing of trpc-to-openapi; trpc-to-openapi must still read it as its own.
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expect, expectTypeOf, it } from 'vitest';
import type { AppRouter } from '../../routers/app.js';
import { restOperation, type ProcedureMeta } from '../../routers/procedure-meta.js';

it('is a meta trpc-to-openapi reads as its OpenApiMeta, and the router is typed with it', () => {
  expectTypeOf<ProcedureMeta>().toExtend<OpenApiMeta>();
  expectTypeOf<NonNullable<ProcedureMeta['openapi']>>().toExtend<NonNullable<OpenApiMeta['openapi']>>();
  expectTypeOf<AppRouter['_def']['_config']['$types']['meta']>().toEqualTypeOf<ProcedureMeta>();
});

it('refuses, at type-check time, an operation whose answer lacks its example or its description', () => {
  const declaration = {
    method: 'GET',
    path: '/plants',
    operationId: 'listAgain',
    summary: 'List plants again',
    description: 'A declaration for the type checker only.',
    scope: 'plants:read',
    success: {
      status: 200,
      description: 'Plant response',
      example: { name: 'ok', summary: 'ok', request: { method: 'GET', url: '/plants', token: 'valid' } },
    },
  } as const;
  const example = { name: 'missingToken', summary: 'No bearer token', request: { method: 'GET', url: '/plants', token: 'none' } } as const;
  // @ts-expect-error: a 401 without its example
  restOperation({ ...declaration, errors: { 401: { description: 'No token' } } });
  // @ts-expect-error: a 401 without its description
  restOperation({ ...declaration, errors: { 401: { example } } });
  expect(restOperation({ ...declaration, errors: { 401: { description: 'No token', example } } }).openapi?.errorResponses).toEqual({
    401: 'No token',
  });
});
