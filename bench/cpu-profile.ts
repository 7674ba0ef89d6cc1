import { readFile } from 'node:fs/promises';
import { keyOfFrame, type CallFrame, type Grouping } from './profile-frames.js';

/** The parts of V8's `.cpuprofile` read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  /** µs since the previous sample (the first: since the profile's start). */
  timeDeltas: number[];
}

export interface SelfTime {
  key: string;
  micros: number;
}

/** Where the profiler parks the time the thread waited for events; not work. */
const IDLE = '(idle)';

/**
 * The profile's self time per package or function, largest first, with its total: the time the
 * thread was busy (JavaScript, V8's own work such as garbage collection, native calls such as
 * the kernel's writes), idle time left out. `projectRoot` shortens our files' paths.
 */
export async function readSelfTimes(file: string, by: Grouping, projectRoot: string): Promise<{ totalMicros: number; rows: SelfTime[] }> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const keyOf = new Map(
    profile.nodes.map((node) => [node.id, node.callFrame.functionName === IDLE ? undefined : keyOfFrame(node.callFrame, by, projectRoot)]),
  );
  const micros = new Map<string, number>();
  let totalMicros = 0;
  profile.samples.forEach((nodeId, index) => {
    const key = keyOf.get(nodeId);
    // A sample lasts until the next one is taken.
    const duration = profile.timeDeltas[index + 1] ?? 0;
    if (key === undefined) return;
    micros.set(key, (micros.get(key) ?? 0) + duration);
    totalMicros += duration;
  });
  const rows = [...micros].map(([key, time]) => ({ key, micros: time })).sort((a, b) => b.micros - a.micros);
  return { totalMicros, rows };
}
