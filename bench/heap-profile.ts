import { readFile } from 'node:fs/promises';
import { keyOfFrame, type CallFrame, type Grouping } from './profile-frames.js';

/** The parts of V8's `.heapprofile` (a tree of call sites) read here. */
interface HeapProfileNode {
  callFrame: CallFrame;
  /** Bytes allocated at this very site, as the sampling estimates them (not in its callees). */
  selfSize: number;
  children: HeapProfileNode[];
}

export interface Allocation {
  key: string;
  bytes: number;
}

/**
 * The bytes allocated per package or function, largest first, with their total, from a profile
 * of V8's sampling heap profiler taken with garbage included (child-profiler.ts): what the code
 * allocated over the window, most of it short-lived, which is what the young generation's
 * collections pay for. `projectRoot` shortens our files' paths.
 */
export async function readAllocations(
  file: string,
  by: Grouping,
  projectRoot: string,
): Promise<{ totalBytes: number; rows: Allocation[] }> {
  const { head } = JSON.parse(await readFile(file, 'utf8')) as { head: HeapProfileNode };
  const bytes = new Map<string, number>();
  let totalBytes = 0;
  const pending = [head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.selfSize > 0) {
      const key = keyOfFrame(node.callFrame, by, projectRoot);
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
      totalBytes += node.selfSize;
    }
    pending.push(...node.children);
  }
  const rows = [...bytes].map(([key, size]) => ({ key, bytes: size })).sort((a, b) => b.bytes - a.bytes);
  return { totalBytes, rows };
}
