import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../dist/server/main.js', import.meta.url));
const POLL_INTERVAL_MS = 2;
const GIVE_UP_MS = 15_000;

/**
 * Milliseconds from spawning the built service (`node dist/server/main.js`, production mode,
 * against the MongoDB at `mongodbUri`) to its first 200 on /healthz.
 */
export async function measureStartup({ mongodbUri, token }: { mongodbUri: string; token: string }): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), MONGODB_URI: mongodbUri, API_TOKENS: token },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => { reject(new Error(`the service exited with code ${code} before answering /healthz`)); }));
  exited.catch(() => undefined); // Our own SIGTERM below ends it too; only the race should see this.
  try {
    await Promise.race([untilHealthy(port, started), exited]);
    return performance.now() - started;
  } finally {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
}

async function untilHealthy(port: number, started: number): Promise<void> {
  while (performance.now() - started < GIVE_UP_MS) {
    if ((await healthStatus(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  throw new Error(`the service did not answer /healthz within ${GIVE_UP_MS} ms`);
}

/** node:http rather than fetch: its first call costs nothing to set up, so it does not skew the time. */
function healthStatus(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once('error', () => { resolve(undefined); });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('expected a TCP address'));
        else resolve(address.port);
      });
    });
  });
}
