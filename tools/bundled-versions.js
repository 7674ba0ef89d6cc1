import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The version of each named package whose files esbuild put into a bundle (its metafile's inputs), read from the
 * package's own manifest; undefined for a package none of whose files are in it.
 */
export function bundledVersions(metafile, packageNames, root) {
  const inputs = Object.keys(metafile.inputs);
  return Object.fromEntries(
    packageNames.map((name) => {
      const prefix = `node_modules/${name}/`;
      const input = inputs.find((path) => path.startsWith(prefix) || path.includes(`/${prefix}`));
      if (input === undefined) return [name, undefined];
      const manifest = join(root, input.slice(0, input.lastIndexOf(prefix) + prefix.length), 'package.json');
      return [name, JSON.parse(readFileSync(manifest, 'utf8')).version];
    }),
  );
}

/** Why a bundle must not ship: a package whose internals the fast path reads, bundled at a version it was not tested with. */
export function untestedBundledVersions(bundled, tested) {
  return Object.entries(tested)
    .filter(([name, version]) => bundled[name] !== version)
    .map(([name, version]) => `${name} ${bundled[name] ?? 'is not'} bundled, ${version} tested`);
}
