import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One MongoDB for the whole run, chosen by server/db/mongo-source.ts (real mongod, MONGODB_URI, or the emulator).
    globalSetup: ['tests/setup/mongodb.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
