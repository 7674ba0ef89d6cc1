import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** The workspace packages from their sources (their exports' "@plant-store/source" condition), as tsconfig.json reads them. */
const conditions = ['@plant-store/source', ...defaultServerConditions];

export default defineConfig({
  test: {
    // Most files wait on child processes, sockets and timers more than they compute: two at a
    // time even on two CPUs (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One run, one report: the service's suites and the mongod emulator package's own suites.
    projects: [
      {
        resolve: { conditions },
        ssr: { resolve: { conditions } },
        test: {
          name: 'plant-store',
          // The fast path's differential tests sit beside the files they check (packages/fast-path/src).
          include: ['tests/**/*.test.ts', 'packages/fast-path/src/**/*.test.ts'],
          // One MongoDB for the whole run, chosen by server/dev/mongo-source.ts (real mongod, MONGODB_URI, or the emulator).
          globalSetup: ['tests/setup/mongodb.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      // Its own config and MongoDB (tools/mongod-emulator/vitest.config.ts).
      'tools/mongod-emulator',
    ],
  },
});
