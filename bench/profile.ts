/**
 * `npm run bench:profile -- --operation delete --contender 1`: one contender of `npm run bench`
 * alone, on the no-op store (`--store mongo` for MongoDB's), at a fixed request rate, with V8's CPU profiler running in its server
 * child for exactly the measured window; prints the server's CPU per request and the profile's
 * self time per request by package (`--by function` for functions). With `--heap`, V8's sampling
 * heap profiler instead, garbage included: the bytes allocated per request, by package or function.
 * Without `--contender`, lists the operation's contenders.
 *
 * Why a fixed rate: at saturation, the same code costs more or less CPU per request depending on
 * how its event loop batches the work, so two contenders are compared here doing the same number of
 * requests per second, below what either can do. This is how bench/README.md's profiles were taken.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkAnswers, OPERATIONS } from './contenders.js';
import { readSelfTimes } from './cpu-profile.js';
import { readAllocations } from './heap-profile.js';
import { runRound } from './load-round.js';
import type { Grouping } from './profile-frames.js';
import { BenchDatabase } from './bench-database.js';
import { ServerProcess } from './server-process.js';
import { openMongo, storeEnv, storePreparation } from './store-preparation.js';

const { values: args } = parseArgs({
  options: {
    operation: { type: 'string', default: 'create' },
    store: { type: 'string', default: 'noop' },
    contender: { type: 'string' },
    rate: { type: 'string', default: '8000' },
    seconds: { type: 'string', default: '10' },
    by: { type: 'string', default: 'package' },
    top: { type: 'string', default: '25' },
    'interval-us': { type: 'string', default: '100' },
    heap: { type: 'boolean', default: false },
    'interval-bytes': { type: 'string', default: '1024' },
  },
});

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = `bench-${randomBytes(12).toString('base64url')}`;
const CONNECTIONS = 20;
const WARMUP_SECONDS = 2;

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, not ${String(text)}`);
  return value;
}

const operation = OPERATIONS.find(({ name }) => name === args.operation);
if (operation === undefined) throw new Error(`--operation must be one of ${OPERATIONS.map(({ name }) => name).join(', ')}`);
if (args.store !== 'noop' && args.store !== 'mongo') throw new Error('--store must be noop or mongo');
const store = args.store;
if (args.by !== 'package' && args.by !== 'function') throw new Error('--by must be package or function');
const by: Grouping = args.by;
const rate = positive('rate', args.rate);
const seconds = positive('seconds', args.seconds);
const top = positive('top', args.top);
const intervalMicros = positive('interval-us', args['interval-us']);
const intervalBytes = positive('interval-bytes', args['interval-bytes']);

const contender = args.contender === undefined ? undefined : operation.contenders[Number(args.contender)];
if (contender === undefined) {
  console.log(`Contenders of ${operation.name} (pass --contender <number>):`);
  operation.contenders.forEach(({ label }, index) => {
    console.log(`  ${index}  ${label}`);
  });
  process.exit(args.contender === undefined ? 0 : 1);
}

const mongo = store === 'mongo' ? await openMongo() : undefined;
const db = mongo ? await BenchDatabase.open(mongo.uri) : undefined;
const preparation = storePreparation(operation, db);
const server = await ServerProcess.start({
  server: contender.server,
  store,
  env: storeEnv(TOKEN, db?.uri ?? 'mongodb://127.0.0.1:9/unused'),
});
try {
  await preparation.beforeOperation();
  await preparation.beforeRound({ seconds: WARMUP_SECONDS, rate }, { seconds, rate });
  await checkAnswers(contender, server.url, TOKEN);
  const round = {
    url: server.url,
    requests: [contender.request(TOKEN)],
    connections: CONNECTIONS,
    rate,
    status: contender.expected.status,
  };
  await runRound({ ...round, durationSeconds: WARMUP_SECONDS });
  const kind = args.heap ? 'heap' : 'cpu';
  const file = join(await mkdtemp(join(tmpdir(), 'plant-store-profile-')), `${operation.name}-${args.contender ?? ''}.${kind}profile`);
  const before = await server.usage();
  await server.startProfile(kind, kind === 'heap' ? intervalBytes : intervalMicros);
  const { requests, requestsPerSecond } = await runRound({ ...round, durationSeconds: seconds });
  await server.stopProfile(file);
  const after = await server.usage();

  console.log(`${operation.name}: ${contender.label}`);
  console.log(
    `${requests.toLocaleString('en-US')} requests at ${Math.round(requestsPerSecond).toLocaleString('en-US')} req/s (asked: ${rate.toLocaleString('en-US')}), ${CONNECTIONS} connections, ${seconds} s`,
  );
  console.log(`server CPU ${((after.cpuMicros - before.cpuMicros) / requests).toFixed(1)} µs/request, profiler included`);
  console.log(`profile: ${file}`);
  const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1).padStart(5)}%`;
  if (kind === 'cpu') {
    const { totalMicros, rows } = await readSelfTimes(file, by, PROJECT_ROOT);
    const perRequest = (micros: number) => (micros / requests).toFixed(2).padStart(7);
    console.log(`busy (not idle) ${perRequest(totalMicros)} µs/request (sampled every ${intervalMicros} µs), self time by ${by}:`);
    for (const { key, micros } of rows.slice(0, top)) console.log(`${perRequest(micros)} µs  ${share(micros, totalMicros)}  ${key}`);
  } else {
    const { totalBytes, rows } = await readAllocations(file, by, PROJECT_ROOT);
    const perRequest = (bytes: number) =>
      Math.round(bytes / requests)
        .toLocaleString('en-US')
        .padStart(7);
    console.log(
      `allocated, garbage included, ${perRequest(totalBytes)} bytes/request (sampled about every ${intervalBytes} bytes), by ${by}:`,
    );
    for (const { key, bytes } of rows.slice(0, top)) console.log(`${perRequest(bytes)} B  ${share(bytes, totalBytes)}  ${key}`);
  }
} finally {
  await server.stop();
  await db?.drop();
  await mongo?.stop();
}
