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
          // The fast path package keeps its own tests beside its sources.
          include: ['tests/**/*.test.ts', 'packages/fast-path/src/**/*.test.ts'],
          // One MongoDB for the whole run, chosen by the development MongoDB source (real mongod, MONGODB_URI, or the emulator).
          globalSetup: ['tests/helpers/mongodb-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      // Its own config and MongoDB (tools/mongod-emulator/vitest.config.ts).
      'tools/mongod-emulator',
    ],
  },
});
