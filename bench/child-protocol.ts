/** Messages between the benchmark and a server child, over the IPC channel the launcher opens. */

/**
 * Which server a child runs: the plain-Fastify yardstick (in the service's app), the same again in
 * processes of its own (`baseline-copy`: what the spread between processes of one code is), the same
 * route in a bare Fastify app (for reference), the service from `buildApp` (also with metrics, or
 * tracing, on: bench/observed-service.ts), or a peer stack doing the same work (bench/peers/).
 */
export type ServerKind = 'baseline' | 'baseline-copy' | 'bare' | ServiceKind | PeerKind;
export type ServiceKind = 'service' | 'service-metrics' | 'service-tracing';
export type PeerKind = 'peer-fastify-zod' | 'peer-hono' | 'peer-orpc';
export type StoreKind = 'noop' | 'mongo';

/**
 * Which of V8's sampling profilers the child runs (child-profiler.ts): `cpu`, every `interval` µs,
 * written as a `.cpuprofile`; `heap`, about every `interval` bytes allocated, garbage included,
 * written as a `.heapprofile`.
 */
export type ProfileKind = 'cpu' | 'heap';

/**
 * `usage`: the child's RSS and V8 heap in use, in bytes, and the CPU time (user + system) it has
 * used, in µs. Asked with `collectGarbage`, a child started with `--expose-gc` runs a full garbage
 * collection first, so the figures are what it retains.
 * `profile-start` / `profile-stop`: one of V8's sampling profilers, CPU or heap (child-profiler.ts),
 * over exactly the window between them (bench/profile.ts), the profile written to `file`.
 */
export type ChildMessage =
  | { type: 'usage'; rss: number; heapUsed: number; cpuMicros: number }
  | { type: 'profile-started' }
  | { type: 'profile-written'; file: string };
export type ParentMessage =
  | { type: 'usage'; collectGarbage?: boolean }
  | { type: 'profile-start'; kind: ProfileKind; interval: number }
  | { type: 'profile-stop'; file: string };

/** Environment variables that tell a child what to run (the rest is the service's own config). */
export const SERVER_KIND_ENV = 'BENCH_SERVER';
export const STORE_KIND_ENV = 'BENCH_STORE';

const CHILD_MESSAGE_TYPES: ReadonlySet<unknown> = new Set<ChildMessage['type']>(['usage', 'profile-started', 'profile-written']);

export function isChildMessage(message: unknown): message is ChildMessage {
  return typeof message === 'object' && message !== null && 'type' in message && CHILD_MESSAGE_TYPES.has(message.type);
}
