import { fileURLToPath } from 'node:url';
import { startService, type ServiceProcess } from '@plant-store/service-launcher';
import {
  SERVER_KIND_ENV,
  STORE_KIND_ENV,
  isChildMessage,
  type ChildMessage,
  type ParentMessage,
  type ProfileKind,
  type ServerKind,
  type StoreKind,
} from './child-protocol.js';

/**
 * The child runs compiled by tsc (`node dist/...`), not under tsx: there esbuild would wrap every
 * function the server creates per request in a `__name` helper, a cost production does not pay.
 * `npm run bench` compiles it first.
 */
const CHILD_SCRIPT = fileURLToPath(new URL('../dist/bench/server-child.js', import.meta.url));

/**
 * Every server child, the service's and the peers' alike, runs without V8's allocation-site
 * pretenuring. With it, V8 sometimes decides during start-up that objects from some allocation
 * site live long, then allocates that site's per-request objects straight in the old generation
 * for the life of the process: young collections slow down and full ones come every second. It is
 * a lottery per process: of 4 baseline processes started alike, 3 took 25–46 µs of CPU per
 * delete and 1 took 19–26; with this flag all 4 took 18–25 (bench/README.md). Without it, one
 * contender's unlucky process decided a comparison.
 */
export const STEADY_HEAP_FLAGS = ['--no-allocation-site-pretenuring'];

export interface ServerProcessOptions {
  server: ServerKind;
  store: StoreKind;
  /** Environment of the service (MONGODB_URI, API_TOKENS...), on top of production defaults. */
  env: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeFlags?: string[];
}

/**
 * A server child (bench/server-child.ts), started by the tests' launcher and ready to take load,
 * with an IPC channel for its usage figures.
 */
export class ServerProcess {
  private constructor(private readonly service: ServiceProcess) {}

  static async start({ server, store, env, nodeFlags = [] }: ServerProcessOptions): Promise<ServerProcess> {
    // The caller's environment passes through, so `FAST_PATH=off npm run bench` measures the stock adapters.
    const service = await startService(
      { NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env, [SERVER_KIND_ENV]: server, [STORE_KIND_ENV]: store },
      { script: CHILD_SCRIPT, nodeFlags: [...STEADY_HEAP_FLAGS, ...nodeFlags], inheritEnv: true, ipc: true, echo: true },
    );
    return new ServerProcess(service);
  }

  get url(): string {
    return this.service.url;
  }

  /**
   * The child's resident set size and heap in use (bytes) and CPU time used so far (µs), as the
   * child reports them; after a full garbage collection if asked (the child needs `--expose-gc`).
   */
  async usage({ collectGarbage = false } = {}): Promise<{ rss: number; heapUsed: number; cpuMicros: number }> {
    const { rss, heapUsed, cpuMicros } = await this.ask({ type: 'usage', collectGarbage }, 'usage');
    return { rss, heapUsed, cpuMicros };
  }

  /** Starts one of V8's sampling profilers in the child (child-profiler.ts), every `interval` µs or bytes. */
  async startProfile(kind: ProfileKind, interval: number): Promise<void> {
    await this.ask({ type: 'profile-start', kind, interval }, 'profile-started');
  }

  /** Stops the child's profiler; the profile is in `file` when this returns. */
  async stopProfile(file: string): Promise<void> {
    await this.ask({ type: 'profile-stop', file }, 'profile-written', 30_000);
  }

  private async ask<T extends ChildMessage['type']>(
    message: ParentMessage,
    answer: T,
    timeoutMs = 5_000,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    const { child } = this.service;
    const reply = nextMessage(child, answer, timeoutMs);
    child.send(message);
    return reply;
  }

  /** Closes the IPC channel, on which the child closes its server and exits (writing any --cpu-prof). */
  async stop(): Promise<void> {
    const { child, exited } = this.service;
    if (child.connected) child.disconnect();
    await exited();
  }
}

/** The child's next message of this type, or an error if it exits or stays silent first. */
function nextMessage<T extends ChildMessage['type']>(
  child: ServiceProcess['child'],
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (isChildMessage(message) && message.type === type) {
        cleanup();
        resolve(message as Extract<ChildMessage, { type: T }>);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server child exited (code ${code}) before answering ${type}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server child sent no ${type} within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
