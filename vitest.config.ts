import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The fast path's differential tests sit beside the files they check (server/fast-path).
    include: ['tests/**/*.test.ts', 'server/**/*.test.ts'],
    // One MongoDB for the whole run, chosen by server/db/mongo-source.ts (real mongod, MONGODB_URI, or the emulator).
    globalSetup: ['tests/setup/mongodb.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
