// Vitest global setup: the MongoDB the driver-level suite (test/driver) runs against, handed to the
// tests through provide/inject. MONGODB_URI, when set, points the same assertions at any MongoDB
// (a real mongod checks the suite itself); otherwise this package's emulator runs for the whole run.
import type { TestProject } from 'vitest/node';
import { startEmulator } from '../helpers/emulator-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    mongoKind: 'uri' | 'emulator';
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const uri = process.env.MONGODB_URI;
  if (uri) {
    project.provide('mongoUri', uri);
    project.provide('mongoKind', 'uri');
    return () => Promise.resolve();
  }
  const emulator = await startEmulator();
  project.provide('mongoUri', `mongodb://127.0.0.1:${emulator.port}/`);
  project.provide('mongoKind', 'emulator');
  return () => emulator.stop();
}
