import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * V8's sampling CPU profiler in the server child, over a window the parent chooses (`--cpu-prof`
 * profiles the whole process: its start-up, the warm-up and the shutdown would be counted with
 * the requests). Written as a `.cpuprofile`, which Chrome's DevTools and bench/cpu-profile.ts read.
 */
export class ChildProfiler {
  private session: Session | undefined;

  async start(intervalMicros: number): Promise<void> {
    if (this.session) throw new Error('the profiler is already running');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
    await session.post('Profiler.start');
    this.session = session;
  }

  async stopInto(file: string): Promise<void> {
    const { session } = this;
    if (!session) throw new Error('the profiler is not running');
    this.session = undefined;
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await writeFile(file, JSON.stringify(profile));
  }
}
