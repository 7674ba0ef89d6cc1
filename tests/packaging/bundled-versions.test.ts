// The build refuses a bundle whose tRPC or trpc-to-openapi is not the version the fast path was tested with.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledVersions, untestedBundledVersions } from '../../tools/bundled-versions.js';

describe('the versions in the bundle', () => {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'plant-store-bundled-'));
    const manifest = async (dir: string, name: string, version: string) => {
      await mkdir(join(root, dir), { recursive: true });
      await writeFile(join(root, dir, 'package.json'), JSON.stringify({ name, version }));
    };
    await manifest('node_modules/@trpc/server', '@trpc/server', '11.0.0');
    await manifest('node_modules/other/node_modules/@trpc/server', '@trpc/server', '11.25.2');
    await manifest('node_modules/other/node_modules/trpc-to-openapi', 'trpc-to-openapi', '3.3.0');
    await manifest('node_modules/not-trpc-to-openapi', 'not-trpc-to-openapi', '9.9.9');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const metafile = {
    inputs: {
      'server/main.ts': {},
      'node_modules/@trpc/server/dist/unstable-core-do-not-import.mjs': {},
      'node_modules/@trpc/server/dist/index.mjs': {},
      'node_modules/other/node_modules/@trpc/server/dist/index.mjs': {},
      'node_modules/other/node_modules/trpc-to-openapi/dist/index.mjs': {},
      'node_modules/not-trpc-to-openapi/index.js': {},
    },
  };

  it("reads the version of every bundled copy of a package from that copy's manifest, nested ones too", () => {
    expect(bundledVersions(metafile, ['@trpc/server', 'trpc-to-openapi', 'zod'], root)).toStrictEqual({
      '@trpc/server': ['11.0.0', '11.25.2'],
      'trpc-to-openapi': ['3.3.0'],
      zod: [],
    });
  });

  it('names every copy bundled at another version than tested, and a package not bundled', () => {
    const bundled = bundledVersions(metafile, ['@trpc/server', 'trpc-to-openapi', 'zod'], root);
    expect(untestedBundledVersions(bundled, { '@trpc/server': '11.25.2', 'trpc-to-openapi': '3.3.0', zod: '4.0.0' })).toStrictEqual([
      '@trpc/server 11.0.0 bundled, 11.25.2 tested',
      'zod is not bundled, 4.0.0 tested',
    ]);
  });
});
