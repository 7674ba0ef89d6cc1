import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { ProfileKind } from './child-protocol.js';

/**
 * A V8 profiler in the server child, over a window the parent chooses (`--cpu-prof` and
 * `--heap-prof` profile the whole process: its start-up, the warm-up and the shutdown would be
 * counted with the requests, and `--heap-prof` keeps only what is still alive at the end, not the
 * per-request garbage this is for). Chrome's DevTools read what it writes, and so do
 * bench/cpu-profile.ts and bench/heap-profile.ts.
 */
export class ChildProfiler {
  private running: { session: Session; kind: ProfileKind } | undefined;

  async start(kind: ProfileKind, interval: number): Promise<void> {
    if (this.running) throw new Error('the profiler is already running');
    const session = new Session();
    session.connect();
    if (kind === 'cpu') {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval });
      await session.post('Profiler.start');
    } else {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: interval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    this.running = { session, kind };
  }

  async stopInto(file: string): Promise<void> {
    const { running } = this;
    if (!running) throw new Error('the profiler is not running');
    this.running = undefined;
    const { session, kind } = running;
    const { profile } = kind === 'cpu' ? await session.post('Profiler.stop') : await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    await writeFile(file, JSON.stringify(profile));
  }
}
