import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'mongod-emulator',
    include: ['test/**/*.test.ts'],
    // The driver-level suite's MongoDB: MONGODB_URI when set, else the emulator started here.
    globalSetup: ['test/setup/mongodb.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
