import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of V8's `.cpuprofile` read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  /** µs since the previous sample (the first: since the profile's start). */
  timeDeltas: number[];
}

/** Self time by npm package (or Node module, or our file), or by function. */
export type Grouping = 'package' | 'function';

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
  const keyOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName === IDLE ? undefined : keyOfFrame(node.callFrame, by, projectRoot)]));
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

function keyOfFrame({ functionName, url, lineNumber }: CpuProfile['nodes'][number]['callFrame'], by: Grouping, projectRoot: string): string {
  const place = url.startsWith('file://') ? relative(projectRoot, fileURLToPath(url)) : url;
  if (by === 'function') return `${functionName || '(anonymous)'} ${place === '' ? '(native)' : `${place}:${lineNumber + 1}`}`;
  // V8's own entries are named in parentheses: (garbage collector), (program); others are native calls.
  if (place === '') return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(place);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  // Node's own modules: node:events, node:_http_server; node:internal/streams and the like.
  if (place.startsWith('node:')) return place.split('/').slice(0, place.startsWith('node:internal/') ? 2 : 1).join('/');
  return place;
}
