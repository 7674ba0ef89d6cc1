// The package's entry: where the emulator's launcher is, so callers need not search the file system.
// Plain JavaScript so it loads before the TypeScript build, and can say when that build is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';

/** Absolute path of bin/mongod, the launcher that runs the emulator like a mongod binary. */
export const mongodBinaryPath = fileURLToPath(new URL('./bin/mongod', import.meta.url));

const builtEntry = fileURLToPath(new URL('./dist/main.js', import.meta.url));

/** mongodBinaryPath once the emulator is built; otherwise throws an Error saying how to build it. */
export function ensureBuilt() {
  if (!existsSync(builtEntry)) {
    throw new Error(`The mongod emulator is not built (${builtEntry} is missing): run npm run build`);
  }
  return mongodBinaryPath;
}
