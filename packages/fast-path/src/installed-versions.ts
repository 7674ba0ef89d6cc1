import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The packages whose internals this package reads: it serves only with the versions it was tested with. */
export const INTERNALS_READ = ['@trpc/server', 'trpc-to-openapi'] as const;

export type InternalsPackage = (typeof INTERNALS_READ)[number];

export interface VersionMismatch {
  packageName: InternalsPackage;
  found: string | undefined;
  expected: string;
}

const require = createRequire(import.meta.url);

/** The tested versions: the exact peer dependencies, read from its own manifest so the pins live in one place. */
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

/** The version of the very copy this package's imports resolve, whose internals it would read. */
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
  const tested = testedVersions();
  return INTERNALS_READ.flatMap((packageName) => {
    const found = readVersion(packageName);
    const expected = tested[packageName];
    return found === expected ? [] : [{ packageName, found, expected }];
  });
}

/** The mismatches in words, for a warning. */
export function describeMismatches(mismatches: readonly VersionMismatch[]): string {
  const installed = (packageName: string, found: string | undefined) =>
    found === undefined ? `${packageName} is not installed` : `${packageName} ${found} is installed`;
  return mismatches.map(({ packageName, found, expected }) => `${installed(packageName, found)}, ${expected} expected`).join('; ');
}
