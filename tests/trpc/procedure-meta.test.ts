// The procedures' meta is the project's own type (routers/procedure-meta.ts), so AppRouter's
// declarations reference nothing of trpc-to-openapi; trpc-to-openapi must still read it as its own.
import { restOperations } from '@plant-store/fast-path';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expect, expectTypeOf, it } from 'vitest';
import { appRouter, type AppRouter } from '../../routers/app.js';
import { restOperation, type ProcedureMeta } from '../../routers/procedure-meta.js';

it('is a meta trpc-to-openapi reads as its OpenApiMeta, and the router is typed with it', () => {
  expectTypeOf<ProcedureMeta>().toExtend<OpenApiMeta>();
  expectTypeOf<NonNullable<ProcedureMeta['openapi']>>().toExtend<NonNullable<OpenApiMeta['openapi']>>();
  expectTypeOf<AppRouter['_def']['_config']['$types']['meta']>().toEqualTypeOf<ProcedureMeta>();
});

it('refuses, at type-check time, an operation whose answer lacks its example or its description, or that leaves out an answer its method can get', () => {
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
  const answer = (description: string) => ({ description, example });
  const everyOperation = {
    400: answer('Bad'),
    401: answer('No token'),
    403: answer('No scope'),
    500: answer('Failed'),
    503: answer('Away'),
  };
  // @ts-expect-error: a 401 without its example
  restOperation({ ...declaration, errors: { ...everyOperation, 401: { description: 'No token' } } });
  // @ts-expect-error: a 401 without its description
  restOperation({ ...declaration, errors: { ...everyOperation, 401: { example } } });
  const withoutRefusal = { 401: everyOperation[401], 403: everyOperation[403], 500: everyOperation[500], 503: everyOperation[503] };
  // @ts-expect-error: no 400, which every operation's input can answer
  restOperation({ ...declaration, errors: withoutRefusal });
  // @ts-expect-error: no 413, which a PATCH's body can get
  restOperation({ ...declaration, method: 'PATCH', path: '/plants/{id}', errors: everyOperation });
  restOperation({ ...declaration, method: 'PATCH', path: '/plants/{id}', errors: { ...everyOperation, 413: answer('Too large') } });
  const eitherMethod = (method: 'GET' | 'DELETE') =>
    // @ts-expect-error: no 413, which a method that may be DELETE can get
    restOperation({ ...declaration, method, errors: everyOperation });
  eitherMethod('DELETE');
  expect(restOperation({ ...declaration, errors: everyOperation }).openapi?.errorResponses).toEqual({
    400: 'Bad',
    401: 'No token',
    403: 'No scope',
    500: 'Failed',
    503: 'Away',
  });
});

it("declares no REST path that an earlier operation of the same method would take: trpc-to-openapi tries them in the router's order", () => {
  const operations = restOperations(appRouter);
  // Each parameter as a name no literal segment uses, so that a template matches another's only where it would take it.
  const sampleUrl = (path: string) => path.replaceAll(/\{\w+\}/g, 'parameter-value');
  const taken = operations.flatMap((later, index) =>
    operations
      .slice(0, index)
      .filter((earlier) => earlier.method === later.method && earlier.matchesUrl(sampleUrl(later.path)))
      .map((earlier) => `${later.method} ${later.path} is taken by ${earlier.path}: list it before that operation`),
  );
  expect(operations.length).toBeGreaterThanOrEqual(5);
  expect(taken).toStrictEqual([]);
});
