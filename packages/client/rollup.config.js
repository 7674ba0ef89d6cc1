// The package is the service's client/ folder, bundled: its JavaScript and its declarations,
// each one file, from the root's build (dist/client/), with the int64 code and AppRouter's
// types it uses inlined. docs/decisions/client-package.md says why.
import { dts } from 'rollup-plugin-dts';

const BUILT = '../../dist/client/index';
/** What the bundle may import: @trpc/client at run time; @trpc/server's types (a peer of @trpc/client) in the declarations. */
const DEPENDENCIES = ['@trpc/client', '@trpc/server'];
const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/');

/** Fails the build when the bundle imports a package it does not depend on (zod, say, through a module it reaches). */
const onlyDependencies = {
  name: 'only-dependencies',
  generateBundle(_options, bundle) {
    for (const chunk of Object.values(bundle)) {
      const stray =
        chunk.type === 'chunk' ? chunk.imports.filter((id) => !DEPENDENCIES.some((name) => id === name || id.startsWith(`${name}/`))) : [];
      if (stray.length > 0) this.error(`${chunk.fileName} imports ${stray.join(', ')}, which the package does not depend on`);
    }
  },
};

export default [
  {
    input: `${BUILT}.js`,
    external: isPackage,
    // A package's import that nothing of the bundle uses is dropped, not kept for its side effects.
    treeshake: { moduleSideEffects: 'no-external' },
    output: { file: 'dist/index.js', format: 'es' },
    plugins: [onlyDependencies],
  },
  {
    input: `${BUILT}.d.ts`,
    external: isPackage,
    output: { file: 'dist/index.d.ts', format: 'es' },
    plugins: [dts(), onlyDependencies],
  },
];
