// `npm run dev`: the service restarted on every change by `tsx watch`. This process starts the MongoDB once, so data and
// token survive restarts; the service still logs JSON, and this process prints it readably.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { acceptsAnyone } from '../auth/auth-config.js';
import { loadConfig } from '../config.js';
import { assertDataFree, devFolder, forgetMongoUri, keptDevToken, recordMongoUri } from './dev-folder.js';
import { startEmbeddedMongo, type EmbeddedMongo } from './embedded-mongo.js';
import { prettyLogLine } from './pretty-log.js';
import { devTokenBanner } from './token-banner.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STOP_GRACE_MS = 12_000;

async function main(): Promise<void> {
  // A configuration mistake ends here, with the same message as the service's.
  const config = loadConfig(process.env);
  const folder = devFolder(config.devDir);
  const running: { mongo?: EmbeddedMongo; child?: ChildProcess; stopping: boolean } = { stopping: false };
  const stop = async (code: number) => {
    if (running.stopping) return;
    running.stopping = true;
    if (running.child) await stopChild(running.child);
    await running.mongo?.stop();
    if (running.mongo) await forgetMongoUri(folder, running.mongo.uri);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const token = acceptsAnyone(config) ? undefined : await keptDevToken(folder);
  let mongoUri = config.mongodb.uri;
  if (mongoUri === undefined) {
    await assertDataFree(folder);
    const mongo = await startEmbeddedMongo({ warn: console.warn, dbPath: folder.mongodData, dbName: config.mongodb.dbName });
    running.mongo = mongo;
    mongoUri = mongo.uri;
    await recordMongoUri(folder, mongo.uri);
    console.log(
      `dev: MongoDB: ${mongo.uri} (${mongo.description}), data kept in ${folder.mongodData}; to start empty, stop npm ` +
        `run dev and remove ${folder.path}`,
    );
  }
  if (running.stopping) return;

  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  // Its own process group: a Ctrl-C reaches only this process, which then stops the service once, gracefully.
  // The workspace packages from their sources too (their exports' "@plant-store/source" condition), watched like the service's.
  const child = spawn(
    process.execPath,
    [tsx, 'watch', '--clear-screen=false', '--conditions=@plant-store/source', join(ROOT, 'server', 'main.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: mongoUri, ...(token && { API_TOKENS: `development ${token}` }) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  running.child = child;
  // Once its output is read to the end: 'exit' may come before the last lines do.
  child.on('close', () => void stop(1));
  // Return restarts the service (tsx reads it from its stdin).
  child.stdin.on('error', () => undefined);
  process.stdin.pipe(child.stdin);

  const pretty = prettyLogLine(process.stdout.isTTY);
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${pretty(line)}\n`);
    const address = token && listeningAddress(line);
    if (token && address) process.stdout.write(`${devTokenBanner(address, token, folder.tokenFile)}\n`);
  });
  // A failure to start is written to stderr, as a log line like the others.
  const prettyError = prettyLogLine(process.stderr.isTTY);
  createInterface({ input: child.stderr }).on('line', (line) => {
    process.stderr.write(`${prettyError(line)}\n`);
  });
}

/** tsx passes SIGTERM on to the service and exits once the service has; SIGKILL if that takes too long. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function listeningAddress(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown };
    return typeof entry.msg === 'string' ? /^plant store listening on (\S+)$/.exec(entry.msg)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

await main().catch((error: unknown) => {
  console.error(`npm run dev failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
