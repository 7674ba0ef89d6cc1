// Vitest global setup: one MongoDB for the whole run, chosen by server/dev/mongo-source.ts
// (MONGODB_URI, a real mongod, or the emulator), handed to tests through provide/inject.
import type { TestProject } from 'vitest/node';
import { resolveMongo, type MongoSourceKind } from '../../server/dev/mongo-source.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    mongoKind: MongoSourceKind;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const source = await resolveMongo({ uri: process.env.MONGODB_URI, warn: console.warn });
  project.provide('mongoUri', source.uri);
  project.provide('mongoKind', source.kind);
  return () => source.stop();
}
