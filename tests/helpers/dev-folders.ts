// Development folders (PLANT_STORE_DEV_DIR) for the tests of `npm start` and `npm run dev`, so that
// they never touch the project's own .dev/; and what those commands print about the token kept there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The token banner: the file it is kept in, the token, and the service's address. */
export const DEV_TOKEN_BANNER =
  /accepts the development token kept in (\S+)\.\n\s+token: (\S+)\n.*\n\s+curl -s -X POST (http:\/\/\S+)\/plants/;

/** A maker of new, empty development folders, all removed after the file's tests. */
export function useDevFolders(): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plant-store-dev-'));
    made.push(dir);
    return dir;
  };
}
