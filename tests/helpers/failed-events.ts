import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Long, type Collection } from 'mongodb';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import type { MissedDocument } from '../../server/webhooks/missed-changes.js';

const CLI = fileURLToPath(new URL('../../dist/server/webhooks-failed.js', import.meta.url));

/** Runs the built CLI as `npm run webhooks:failed` does, with only MONGODB_URI set (and `env`); stdout and stderr as one. */
export async function runCli(
  mongoUri: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', MONGODB_URI: mongoUri, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

/** Polls plant `id`'s document until `predicate` holds. */
export async function waitForDocument(
  plants: Collection<PlantDocument>,
  id: number,
  predicate: (document: PlantDocument | null) => boolean,
): Promise<PlantDocument | null> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const document = await plants.findOne({ _id: Long.fromNumber(id) });
    if (predicate(document)) return document;
    if (Date.now() > deadline) throw new Error(`plant ${id} did not reach the expected state: ${JSON.stringify(document)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Missed, and the queue that missed it done: what the release left. */
export const missedAndDone = (type: string) => (document: PlantDocument | null) =>
  document?.changes === undefined && (document as MissedDocument | null)?.missedChanges?.[0]?.type === type;

/** `collection`, running `between` once, after the first read through it and before the write that follows. */
export function racedBy<T extends object>(collection: Collection<T>, between: () => Promise<void>): Collection<T> {
  let raced = false;
  const racing = Object.create(collection) as Collection<T>;
  racing.findOne = (async (...args: Parameters<typeof collection.findOne>) => {
    const read = await collection.findOne(...args);
    if (!raced) {
      raced = true;
      await between();
    }
    return read;
  }) as typeof collection.findOne;
  return racing;
}
