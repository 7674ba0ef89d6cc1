import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The versions of each named package whose files esbuild put into a bundle (its metafile's inputs), read from each
 * copy's own manifest: a nested copy may be another version.
 */
export function bundledVersions(metafile, packageNames, root) {
  const inputs = Object.keys(metafile.inputs);
  return Object.fromEntries(
    packageNames.map((name) => {
      const folder = `node_modules/${name}/`;
      const copies = new Set(
        inputs.flatMap((path) => {
          const at = path.lastIndexOf(folder);
          return at === 0 || (at > 0 && path[at - 1] === '/') ? [path.slice(0, at + folder.length)] : [];
        }),
      );
      const versions = [...copies].map((copy) => JSON.parse(readFileSync(join(root, copy, 'package.json'), 'utf8')).version);
      return [name, [...new Set(versions)].sort()];
    }),
  );
}

/** Why a bundle must not ship: a package whose internals the fast path reads, bundled at a version it was not tested with. */
export function untestedBundledVersions(bundled, tested) {
  return Object.entries(tested).flatMap(([name, version]) => {
    const found = bundled[name] ?? [];
    if (found.length === 0) return [`${name} is not bundled, ${version} tested`];
    return found.filter((other) => other !== version).map((other) => `${name} ${other} bundled, ${version} tested`);
  });
}
