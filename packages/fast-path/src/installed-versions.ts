import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The packages whose internals this package reads: it serves only with the versions it was tested with. */
export const INTERNALS_READ = ['@trpc/server', 'trpc-to-openapi'] as const;

export type InternalsPackage = (typeof INTERNALS_READ)[number];

/** An installed package that is not the version this package was tested with (found: undefined when it is not installed). */
export interface VersionMismatch {
  packageName: InternalsPackage;
  found: string | undefined;
  expected: string;
}

const require = createRequire(import.meta.url);

/**
 * The versions this package was tested with: its exact peer dependencies, read from its own
 * package.json so the pins live in one place.
 */
export function testedVersions(): Record<InternalsPackage, string> {
  const { peerDependencies = {} } = require('../package.json') as { peerDependencies?: Record<string, string> };
  const pinOf = (name: InternalsPackage) => {
    const pin = peerDependencies[name];
    if (pin === undefined || !/^\d+\.\d+\.\d+$/.test(pin))
      throw new Error(`@plant-store/fast-path: its package.json must pin ${name} to an exact version`);
    return pin;
  };
  return { '@trpc/server': pinOf('@trpc/server'), 'trpc-to-openapi': pinOf('trpc-to-openapi') };
}

/**
 * The version of a package installed where this package's own imports resolve it (so the very
 * copy whose internals it would read), from the package.json at the root of that copy; undefined
 * when the package is not found.
 */
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

/** The packages whose installed version is not the one this package was tested with; none when all match. */
export function versionMismatches(readVersion: (packageName: string) => string | undefined = installedVersion): VersionMismatch[] {
  const tested = testedVersions();
  return INTERNALS_READ.flatMap((packageName) => {
    const found = readVersion(packageName);
    const expected = tested[packageName];
    return found === expected ? [] : [{ packageName, found, expected }];
  });
}

/** The mismatches in words, for a warning: `trpc-to-openapi 3.4.0 is installed, 3.3.0 expected`. */
export function describeMismatches(mismatches: readonly VersionMismatch[]): string {
  const installed = (packageName: string, found: string | undefined) =>
    found === undefined ? `${packageName} is not installed` : `${packageName} ${found} is installed`;
  return mismatches.map(({ packageName, found, expected }) => `${installed(packageName, found)}, ${expected} expected`).join('; ');
}
