import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { entityTagOf, failedCondition, PlantPreconditionFailedError } from '../index.js';
import { preconditionOf } from '../routers/entity-tags.js';

/** What a TypeScript app gets from the built package (`npm test` builds before vitest). */
const importNames = (specifier: string): string[] => {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)));`;
  const root = fileURLToPath(new URL('..', import.meta.url));
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as string[];
};

it('exports the router, createCaller, the context factory, the client helper and the schemas, the change events among them', () => {
  expect(importNames('plant-store')).toEqual(
    expect.arrayContaining([
      // What a store of one's own needs to implement PlantStore as the MongoDB one does.
      'entityTagOf',
      'failedCondition',
      'ChangeQueueFullError',
      'PlantPreconditionFailedError',
      'appRouter',
      'createCaller',
      'createContextFactory',
      'createPlantStoreClient',
      'createTokenVerifier',
      'MongoPlantStore',
      'NewPlantSchema',
      'PlantSchema',
      'ErrorSchema',
      'PlantChangeEventSchema',
    ]),
  );
});

it('exports the client and its int64 link pieces alone at plant-store/client, without server code', () => {
  expect(importNames('plant-store/client')).toEqual([
    'createPlantStoreClient',
    'exactIntegerFetch',
    'int64Transformer',
    'isPlantStoreError',
    'trpcUrl',
  ]);
});

it('lets a store of its own tell a failed condition, and the header it failed on, as the MongoDB store does', () => {
  const etag = entityTagOf(1, 0, { name: 'Fern' });
  const told = (ifMatch?: string, ifMatchInput?: string, ifNoneMatch?: string) => {
    const precondition = preconditionOf({ ifMatch, ifNoneMatch }, ifMatchInput);
    const failed = precondition && failedCondition(precondition, etag);
    return failed && new PlantPreconditionFailedError(1, failed);
  };
  expect(told(etag)).toBeUndefined();
  expect(told('"stale"')).toMatchObject({ condition: 'If-Match', header: 'If-Match' });
  expect(told(`W/${etag}`)).toMatchObject({ condition: 'weakIfMatch', header: 'If-Match' });
  expect(told(', ')).toMatchObject({ condition: 'emptyIfMatch', header: 'If-Match' });
  // Two that share no tag: each named one.
  expect(told(etag, '"stale"')).toMatchObject({ condition: 'If-Match', header: 'If-Match' });
  expect(told('', etag)).toMatchObject({ condition: 'emptyIfMatch', header: 'If-Match' });
  // A precondition a store builds itself reads as one preconditionOf makes.
  expect(failedCondition({ ifMatch: { any: false, tags: [] } }, etag)).toBe('emptyIfMatch');
  expect(told(undefined, undefined, '')).toBeUndefined();
  expect(told(undefined, undefined, etag)).toMatchObject({ condition: 'If-None-Match', header: 'If-None-Match' });
});
