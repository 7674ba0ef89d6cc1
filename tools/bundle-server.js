// Builds dist/server/main.js, the production entry, as one bundle with a few lazily loaded chunks: starting the service
// then reads a handful of files instead of hundreds of modules. Why, and what stays out: docs/decisions/bundled-entry.md.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';
import { TESTED_VERSIONS } from '@plant-store/fast-path';
import { bundledVersions, untestedBundledVersions } from './bundled-versions.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Loaded by Node from node_modules, as installed. */
const external = [
  // OpenTelemetry's instrumentation patches the driver as Node loads it.
  'mongodb',
  // The SDK and its instrumentations hook Node's module loading; kept whole with the API they share.
  '@opentelemetry/*',
  '@fastify/otel',
  // They read files of their own package (Swagger UI's assets, their package.json) from where it is installed.
  '@fastify/swagger',
  '@fastify/swagger-ui',
  // Development only (the embedded MongoDB): not installed in production, where importing them fails as designed.
  'mongodb-memory-server',
  '@plant-store/mongod-emulator',
];

const { metafile, outputFiles } = await build({
  absWorkingDir: root,
  tsconfig: 'tsconfig.build.json',
  entryPoints: { main: 'server/main.ts' },
  outdir: 'dist/server',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  external,
  // The CommonJS packages inside call `require`, which an ES module has only when it makes one.
  banner: {
    js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
  // Written below, once checked.
  write: false,
});

// The fast path reads internals of the tRPC inside the bundle, but checks the versions of the copies installed beside it.
const untested = untestedBundledVersions(bundledVersions(metafile, Object.keys(TESTED_VERSIONS), root), TESTED_VERSIONS);
if (untested.length > 0) throw new Error(`the bundle holds untested versions: ${untested.join('; ')}`);

// Chunks are named by their content: those of an earlier build would stay beside the new ones.
rmSync(new URL('../dist/server/chunks', import.meta.url), { recursive: true, force: true });
for (const { path, contents } of outputFiles) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, contents);
}
