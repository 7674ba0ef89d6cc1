// The journal in process: a flush past the size limit checkpoints and starts a new journal, and what
// was written before and after the last checkpoint loads again, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int32 } from 'bson';
import { afterAll, describe, expect, it } from 'vitest';
import { DurableStore, journalGeneration } from '../../src/storage/durable-store.js';
import { Store } from '../../src/store.js';

const dbpath = mkdtempSync(join(tmpdir(), 'emulator-journal-'));
afterAll(() => {
  rmSync(dbpath, { recursive: true, force: true });
});

describe('the journal', () => {
  it('checkpoints once it outgrows its limit, and loads every write again after it', async () => {
    const store = new Store();
    const { durable } = await DurableStore.open(store, dbpath, { lockWaitMs: 0, checkpointBytes: 1_000 });
    expect(journalGeneration(dbpath)).toBe(0);
    const { collection } = store.ensureCollection('store', 'plants');
    for (let id = 0; id < 40; id += 1) {
      collection.insert({ _id: new Int32(id), name: `plant ${String(id)}` });
      durable.flush();
    }
    // About 40 bytes a record: several checkpoints, each starting the next journal.
    expect(journalGeneration(dbpath)).toBeGreaterThan(1);
    durable.checkpoint();
    collection.insert({ _id: new Int32(40), name: 'plant 40' });
    durable.flush();

    // Opened again without closing, as after a crash (the lock is this process's own): the checkpoint, then the journal.
    const loaded = new Store();
    const reopened = await DurableStore.open(loaded, dbpath, { lockWaitMs: 0 });
    expect(
      loaded
        .collection('store', 'plants')
        ?.all()
        .map((doc) => doc.name),
    ).toStrictEqual(Array.from({ length: 41 }, (_, id) => `plant ${String(id)}`));
    expect(reopened.recovery).toStrictEqual({ replayed: 1, tornBytes: 0 });
    reopened.durable.close();
  });
});
