import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/** The workspace packages from their sources (their exports' "@plant-store/source" condition), as tsconfig.json reads them. */
const conditions = ['@plant-store/source', ...defaultServerConditions];

/** The files that load the service themselves and measure how it holds up. */
const LOAD_TESTS = ['tests/reliability/load.test.ts', 'tests/reliability/never-reading-clients.test.ts'];

/** A project of the service's tests: one MongoDB for the whole run, chosen as the service would (real mongod, MONGODB_URI, or the emulator). */
function service(test: NonNullable<TestProjectInlineConfiguration['test']>): TestProjectInlineConfiguration {
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: { globalSetup: ['tests/helpers/mongodb-setup.ts'], testTimeout: 20_000, hookTimeout: 60_000, ...test },
  };
}

export default defineConfig({
  test: {
    // Most files wait on child processes, sockets and timers more than they compute: two at a
    // time even on two CPUs (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One run, one report: the service's suites and the mongod emulator package's own suites.
    projects: [
      service({
        name: 'plant-store',
        // The fast path package keeps its own tests beside its sources.
        include: ['tests/**/*.test.ts', 'packages/fast-path/src/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...LOAD_TESTS],
      }),
      // Last and one file at a time: these judge the service under a load of their own (memory, stalls,
      // /healthz throughout), which another file's work on the same CPUs would distort.
      service({ name: 'plant-store-under-load', include: LOAD_TESTS, sequence: { groupOrder: 1 }, fileParallelism: false }),
      // Its own config and MongoDB (tools/mongod-emulator/vitest.config.ts).
      'tools/mongod-emulator',
      // The benchmark's own arithmetic: no service, no MongoDB.
      { test: { name: 'bench', include: ['bench/**/*.test.ts'] } },
    ],
  },
});
