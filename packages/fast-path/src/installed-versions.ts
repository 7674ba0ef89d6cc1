import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The versions of the packages whose internals this package reads that it was tested with: it serves only with these.
 * Its exact peer dependencies pin the same (a test holds them equal); a constant, not read from its manifest, so that a
 * bundle of the package carries its pins with it.
 */
export const TESTED_VERSIONS = { '@trpc/server': '11.25.2', 'trpc-to-openapi': '3.3.0' } as const;

export type InternalsPackage = keyof typeof TESTED_VERSIONS;

export const INTERNALS_READ = Object.keys(TESTED_VERSIONS) as InternalsPackage[];

export interface VersionMismatch {
  packageName: InternalsPackage;
  found: string | undefined;
  expected: string;
}

const require = createRequire(import.meta.url);

/** The version installed where this package resolves it: the copy whose internals it reads, or the one a bundle was built from. */
export function installedVersion(packageName: string): string | undefined {
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch {
    return undefined;
  }
  // Not `require.resolve(`${name}/package.json`)`: a package need not export its package.json.
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === packageName && typeof manifest.version === 'string') return manifest.version;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export function versionMismatches(readVersion: (packageName: string) => string | undefined = installedVersion): VersionMismatch[] {
  return INTERNALS_READ.flatMap((packageName) => {
    const found = readVersion(packageName);
    const expected = TESTED_VERSIONS[packageName];
    return found === expected ? [] : [{ packageName, found, expected }];
  });
}

/** The mismatches in words, for a warning. */
export function describeMismatches(mismatches: readonly VersionMismatch[]): string {
  const installed = (packageName: string, found: string | undefined) =>
    found === undefined ? `${packageName} is not installed` : `${packageName} ${found} is installed`;
  return mismatches.map(({ packageName, found, expected }) => `${installed(packageName, found)}, ${expected} expected`).join('; ');
}
