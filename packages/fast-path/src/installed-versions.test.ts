import { initTRPC } from '@trpc/server';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { createFastHandlers } from './fast-handlers.js';
import { describeMismatches, installedVersion, INTERNALS_READ, TESTED_VERSIONS, versionMismatches } from './installed-versions.js';

/**
 * The fast path reads internals of @trpc/server and trpc-to-openapi, so it serves only with the
 * versions it was tested with: its exact peer dependencies. Any other installed version (an
 * override, a dedupe, an app's own pin) leaves it off.
 */
const require = createRequire(import.meta.url);
const manifestVersion = (name: string) =>
  (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;

describe('the installed versions', () => {
  it("are read from the package.json of the copy this package's imports resolve, even where it exports none", () => {
    expect(installedVersion('@trpc/server')).toBe(manifestVersion('@trpc/server'));
    // trpc-to-openapi's exports have no ./package.json: read by walking up from its entry.
    expect(() => require.resolve('trpc-to-openapi/package.json')).toThrow();
    expect(installedVersion('trpc-to-openapi')).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installedVersion('no-such-package-here')).toBeUndefined();
  });

  it("match the versions this package was tested with, which are its exact peer dependencies and the service's pins", () => {
    expect(versionMismatches()).toEqual([]);
    const manifest = (path: string) =>
      JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Record<string, Record<string, string>>;
    const pinned = (dependencies: Record<string, string> | undefined) =>
      Object.fromEntries(INTERNALS_READ.map((name) => [name, dependencies?.[name]]));
    expect(pinned(manifest('../package.json').peerDependencies)).toEqual(TESTED_VERSIONS);
    expect(pinned(manifest('../../../package.json').dependencies)).toEqual(TESTED_VERSIONS);
  });

  it('that differ are each named, with the version found and the one expected', () => {
    const mismatches = versionMismatches((name) => (name === 'trpc-to-openapi' ? '3.4.0' : undefined));
    expect(mismatches).toEqual([
      { packageName: '@trpc/server', found: undefined, expected: TESTED_VERSIONS['@trpc/server'] },
      { packageName: 'trpc-to-openapi', found: '3.4.0', expected: TESTED_VERSIONS['trpc-to-openapi'] },
    ]);
    expect(describeMismatches(mismatches)).toBe(
      `@trpc/server is not installed, ${TESTED_VERSIONS['@trpc/server']} expected; trpc-to-openapi 3.4.0 is installed, ${TESTED_VERSIONS['trpc-to-openapi']} expected`,
    );
  });
});

describe('createFastHandlers', () => {
  const t = initTRPC.meta<OpenApiMeta>().create();
  const router = t.router({ ping: t.procedure.meta({ openapi: { method: 'GET', path: '/ping' } }).query(() => 'pong') });
  const options = {
    router,
    createContext: () => ({}),
    rest: { onError: () => undefined, responseMeta: () => ({}) },
    trpc: { errorHeaders: () => ({}), onError: () => undefined },
  };

  it('gives handlers when the installed versions are the tested ones', () => {
    const fastPath = createFastHandlers({
      ...options,
      installedVersion: (name) => TESTED_VERSIONS[name as keyof typeof TESTED_VERSIONS],
    });
    expect(fastPath.mismatches).toBeUndefined();
    expect(typeof fastPath.handlers?.tryTrpcCall).toBe('function');
  });

  it('gives no handlers, only the mismatches, when one is not', () => {
    const fastPath = createFastHandlers({
      ...options,
      installedVersion: (name) => (name === '@trpc/server' ? '11.99.0' : TESTED_VERSIONS['trpc-to-openapi']),
    });
    expect(fastPath.handlers).toBeUndefined();
    expect(fastPath.mismatches).toEqual([{ packageName: '@trpc/server', found: '11.99.0', expected: TESTED_VERSIONS['@trpc/server'] }]);
  });
});
