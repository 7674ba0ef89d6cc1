import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_KIND_ENV, STORE_KIND_ENV, isChildMessage, type ChildMessage, type ParentMessage, type ServerKind, type StoreKind } from './child-protocol.js';

/**
 * The child runs compiled, as the service runs in production (`node dist/...`): under tsx, esbuild
 * would wrap every function the server creates per request in a `__name` helper, a cost
 * production does not pay (it showed up at 3% of a request). `npm run bench` compiles it first.
 */
const CHILD_SCRIPT = fileURLToPath(new URL('../dist/bench/server-child.js', import.meta.url));
const START_TIMEOUT_MS = 30_000;

export interface ServerProcessOptions {
  server: ServerKind;
  store: StoreKind;
  /** Environment of the service (MONGODB_URI, API_TOKENS...), on top of production defaults. */
  env: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeFlags?: string[];
}

/** A server child (bench/server-child.ts), started and ready to take load. */
export class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start({ server, store, env, nodeFlags = [] }: ServerProcessOptions): Promise<ServerProcess> {
    const child = fork(CHILD_SCRIPT, {
      execArgv: nodeFlags,
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env, [SERVER_KIND_ENV]: server, [STORE_KIND_ENV]: store },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await nextMessage(child, 'ready', START_TIMEOUT_MS);
    return new ServerProcess(child, ready.port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * The child's resident set size and heap in use (bytes) and CPU time used so far (µs), as the
   * child reports them; after a full garbage collection if asked (the child needs `--expose-gc`).
   */
  async usage({ collectGarbage = false } = {}): Promise<{ rss: number; heapUsed: number; cpuMicros: number }> {
    const reply = nextMessage(this.child, 'usage', 5_000);
    this.child.send({ type: 'usage', collectGarbage } satisfies ParentMessage);
    const { rss, heapUsed, cpuMicros } = await reply;
    return { rss, heapUsed, cpuMicros };
  }

  /** Closes the IPC channel, on which the child closes its server and exits. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.disconnect();
    await exited;
  }
}

function nextMessage<T extends ChildMessage['type']>(child: ChildProcess, type: T, timeoutMs: number): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (isChildMessage(message) && message.type === type) {
        cleanup();
        resolve(message as Extract<ChildMessage, { type: T }>);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server child exited (code ${code}) before sending "${type}"`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server child sent no "${type}" within ${timeoutMs} ms`));
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
