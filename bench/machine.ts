import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

/** One line naming the machine a run's figures belong to. */
export function describeMachine(): string {
  return `${availableParallelism()} CPUs (${cpuModel()}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('model name'));
    return line?.split(':')[1]?.trim() ?? 'unknown CPU';
  } catch {
    return 'unknown CPU';
  }
}
