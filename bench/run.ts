/**
 * `npm run bench`: how close the REST routes (trpc-to-openapi) and /trpc come to plain Fastify
 * routes doing the same work, and how they compare with peer stacks doing it too (bench/peers/),
 * for create, list and delete, with a no-op store and with the
 * MongoDB store; then the service's memory after 10× more requests, and its start-up time.
 * `--quick` for a short run. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase } from './bench-database.js';
import type { ServerKind, StoreKind } from './child-protocol.js';
import { CREATE, OPERATIONS, UPDATE, checkAnswers, type Contender, type Operation } from './contenders.js';
import { cpuWindows, processCounts, windowTurns } from './cpu-windows.js';
import { runRound } from './load-round.js';
import { describeMachine } from './machine.js';
import { observedServiceEnv, startCollectorStub } from './observed-service.js';
import { median } from './paired-ratios.js';
import {
  formatCostCeilings,
  formatCpuAgainstBaseline,
  formatCpuRate,
  formatPeerTargets,
  formatTable,
  formatTargets,
  megabytes,
  verdict,
  type ContenderSummary,
  type MeasuredRound,
  type Target,
} from './report.js';
import { formatResultsSection, type MeasuredOperation } from './results-table.js';
import { ServerProcess, STEADY_HEAP_FLAGS } from './server-process.js';
import { measureStartup } from './startup-time.js';
import { LIST_SEED, openMongo, storeEnv, storePreparation } from './store-preparation.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    store: { type: 'string', default: 'both' }, // noop | mongo | both
    operations: { type: 'string', default: 'create,list,list-by-tag,update,delete' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});

/**
 * `processes`: the child processes each server runs in at least, its rounds taken by each in turn. The same code runs
 * 1–3 µs per request faster or slower in one process than in another (bench/README.md), so a figure from one process
 * is a sample of one; the median over rounds from two is steadier. `--quick` gives two to a server whose routes share a
 * CPU window (processCounts).
 */
const plan = args.quick
  ? { rounds: 2, seconds: 2, warmupSeconds: 1, processes: 1, memoryCheckpoints: [1_000, 10_000], startups: 1 }
  : { rounds: 6, seconds: 3, warmupSeconds: 2, processes: 2, memoryCheckpoints: [10_000, 100_000], startups: 3 };
const CONNECTIONS = 50;
const TOKEN = `bench-${randomBytes(12).toString('base64url')}`;
const PROFILE_DIR = join(tmpdir(), 'plant-store-bench-profiles');
/** The no-op runs never connect; the config still wants a connection string. */
const UNUSED_MONGODB_URI = 'mongodb://127.0.0.1:9/unused';
const serverEnv = (mongodbUri: string) => storeEnv(TOKEN, mongodbUri);

/**
 * Server CPU per request is measured in windows of two contenders under load at once, each at half the slowest one's
 * warm-up rate (rounded down to hundreds): each contender beside the baseline, and each route beside every yardstick
 * it is judged against (bench/cpu-windows.ts). Taken one after the other, the same code's CPU per request moved by up
 * to 2× from one window to the next on this shared machine; two at once meet the same moment of it (bench/README.md).
 * At saturation the load generator and the servers share the two CPUs and each slows the others, so req/s and latency
 * come from rounds at saturation, one contender at a time.
 */
const CPU_RATE_SHARE = 0.5;

/**
 * Before each CPU window, both its contenders run a second at saturation, unmeasured. A child that has been idle for
 * a while costs more per request: in a trial whose windows followed the round's turns at saturation without it, the
 * bare route read 1.05 × the baseline (which ran in every window) where it reads about 0.85 when both are warm.
 */
const LEAD_IN_SECONDS = 1;

function steadyRate(warmUpRates: readonly number[]): number {
  return Math.max(100, Math.floor((CPU_RATE_SHARE * Math.min(...warmUpRates)) / 100) * 100);
}

interface MeasuredComparison {
  /** The rate each contender's server CPU per request was measured at, beside another at the same rate. */
  cpuRate: number;
  summaries: ContenderSummary[];
}

/**
 * Runs each operation's contenders in interleaved rounds (A B C, A B C...) at saturation, then its CPU windows at a set
 * rate, so drift hits all alike; each operation's figures go to `onMeasured` as soon as it is done, so that a later
 * failure loses none of them.
 */
async function compare(
  store: StoreKind,
  mongodbUri: string,
  operations: readonly Operation[],
  db: BenchDatabase | undefined,
  onMeasured: (operation: Operation, comparison: MeasuredComparison) => void,
): Promise<void> {
  const env = serverEnv(mongodbUri);
  const nodeFlags = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const servers = new Map<ServerKind, ServerProcess[]>();
  /** The child of the contender's server whose turn it is (a round's number, or a warm-up's). */
  const serverOf = (contender: Contender, turn: number): ServerProcess => {
    const processes = servers.get(contender.server) ?? [];
    const server = processes[turn % processes.length];
    if (!server) throw new Error(`no ${contender.server} server started`);
    return server;
  };
  const counts = processCounts(operations, plan.processes);
  const collector = counts.has('service-tracing') ? await startCollectorStub() : undefined;
  try {
    for (const [kind, count] of counts) {
      const processes: ServerProcess[] = [];
      servers.set(kind, processes);
      const kindEnv = { ...env, ...observedServiceEnv(kind, collector) };
      for (let index = 0; index < count; index += 1)
        processes.push(await ServerProcess.start({ server: kind, store, env: kindEnv, nodeFlags }));
    }
    const load = async (server: ServerProcess, contender: Contender, seconds: number, rate?: number): Promise<MeasuredRound> => {
      const before = await server.usage();
      const round = await runRound({
        url: server.url,
        requests: [contender.request(TOKEN)],
        connections: CONNECTIONS,
        durationSeconds: seconds,
        status: contender.expected.status,
        rate,
      });
      const after = await server.usage();
      return { ...round, cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / round.requests };
    };
    for (const operation of operations) {
      const { contenders } = operation;
      const preparation = storePreparation(operation, db);
      await preparation.beforeOperation();
      const warmUpRates: number[] = [];
      for (const contender of contenders) {
        for (const server of servers.get(contender.server) ?? []) {
          await preparation.beforeRound({ seconds: plan.warmupSeconds });
          await checkAnswers(contender, server.url, TOKEN);
          warmUpRates.push((await load(server, contender, plan.warmupSeconds)).requestsPerSecond);
        }
      }
      const cpuRate = steadyRate(warmUpRates);
      const pairs = cpuWindows(contenders);
      const rounds = new Map<Contender, MeasuredRound[]>(contenders.map((contender) => [contender, []]));
      for (let round = 0; round < plan.rounds; round += 1) {
        const saturated = new Map<Contender, MeasuredRound>();
        const cpu = new Map<Contender, { measured: MeasuredRound[]; against: Record<string, number> }>(
          contenders.map((contender) => [contender, { measured: [], against: {} }]),
        );
        const record = (contender: Contender, measured: MeasuredRound, other: Contender, otherMeasured: MeasuredRound) => {
          const figures = cpu.get(contender);
          if (!figures) return;
          figures.measured.push(measured);
          figures.against[other.label] = measured.cpuMicrosPerRequest / otherMeasured.cpuMicrosPerRequest;
        };
        // The order turns round every other round, so that no contender always runs first after the store's
        // preparation or last before the next sweep.
        const inTurn = <T>(list: readonly T[]) => (round % 2 === 0 ? list : [...list].reverse());
        for (const contender of inTurn(contenders)) {
          await preparation.beforeRound({ seconds: plan.seconds });
          saturated.set(contender, await load(serverOf(contender, round), contender, plan.seconds));
        }
        for (const pair of inTurn(pairs)) {
          const leadIn = { seconds: LEAD_IN_SECONDS };
          const window = { seconds: plan.seconds, rate: cpuRate };
          await preparation.beforeRound(leadIn, leadIn, window, window);
          const [first, second] = pair;
          const [firstTurn, secondTurn] = windowTurns(pair, round);
          const [firstChild, secondChild] = [serverOf(first, firstTurn), serverOf(second, secondTurn)];
          await Promise.all([load(firstChild, first, LEAD_IN_SECONDS), load(secondChild, second, LEAD_IN_SECONDS)]);
          const [firstCpu, secondCpu] = await Promise.all([
            load(firstChild, first, plan.seconds, cpuRate),
            load(secondChild, second, plan.seconds, cpuRate),
          ]);
          record(first, firstCpu, second, secondCpu);
          record(second, secondCpu, first, firstCpu);
        }
        for (const contender of contenders) {
          const atSaturation = saturated.get(contender);
          const figures = cpu.get(contender);
          if (!atSaturation || !figures) throw new Error(`${contender.label}: round ${round} not measured`);
          rounds.get(contender)?.push({
            ...atSaturation,
            cpuMicrosPerRequest: median(figures.measured.map((window) => window.cpuMicrosPerRequest)),
            cpuRequestsPerSecond: Math.min(...figures.measured.map((window) => window.requestsPerSecond)),
            cpuAgainst: figures.against,
          });
        }
      }
      onMeasured(operation, {
        cpuRate,
        summaries: contenders.map((contender) => ({
          label: contender.label,
          row: contender.row,
          reference: contender.reference ?? false,
          peer: contender.peer ?? false,
          judgedAgainst: contender.judgedAgainst,
          costCeiling: contender.costCeiling,
          rounds: rounds.get(contender) ?? [],
        })),
      });
    }
  } finally {
    await Promise.all([...servers.values()].flat().map((server) => server.stop()));
    await collector?.close();
  }
}

interface MemoryReading {
  /** RSS read straight after the requests, wherever V8 is in its collection cycle. */
  rssBeforeGc: number;
  /** RSS and heap in use after a full garbage collection: what the service retains. */
  rss: number;
  heapUsed: number;
}

/**
 * Memory of a fresh service child after each checkpoint of the operation's requests, half REST and half tRPC (the
 * service's own routes, not the references).
 */
async function measureMemory(store: StoreKind, mongodbUri: string, operation: Operation): Promise<MemoryReading[]> {
  const server = await ServerProcess.start({ server: 'service', store, env: serverEnv(mongodbUri), nodeFlags: ['--expose-gc'] });
  try {
    const requests = operation.contenders
      .filter((contender) => contender.server === 'service' && contender.reference !== true)
      .map((contender) => contender.request(TOKEN));
    const readings: MemoryReading[] = [];
    let sent = 0;
    for (const checkpoint of plan.memoryCheckpoints) {
      await runRound({ url: server.url, requests, connections: CONNECTIONS, amount: checkpoint - sent });
      sent = checkpoint;
      const rssBeforeGc = (await server.usage()).rss;
      const { rss, heapUsed } = await server.usage({ collectGarbage: true });
      readings.push({ rssBeforeGc, rss, heapUsed });
    }
    return readings;
  } finally {
    await server.stop();
  }
}

/** Prints the memory readings of one operation's long run, and its target line; answers the results section's sentence. */
async function reportMemory(operation: Operation, store: StoreKind, mongodbUri: string): Promise<string | undefined> {
  const [first, last] = await measureMemory(store, mongodbUri, operation);
  const [fewer = 0, more = 0] = plan.memoryCheckpoints.map((count) => count.toLocaleString('en'));
  if (!first || !last) return undefined;
  const growth = (from: number, to: number) => (to - from) / from;
  const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
  const rssGrowth = growth(first.rss, last.rss);
  const storeName = store === 'mongo' ? 'MongoDB' : 'no-op';
  console.log(`\nMemory over ${operation.name}s (service, ${storeName} store, half REST half tRPC), after ${fewer} and ${more} requests:`);
  console.log(
    `  RSS after a full GC ${megabytes(first.rss)} → ${megabytes(last.rss)} (${percent(rssGrowth)}); heap in use after it ${megabytes(first.heapUsed)} → ${megabytes(last.heapUsed)} (${percent(growth(first.heapUsed, last.heapUsed))})`,
  );
  console.log(
    `  RSS read straight after the requests, before that GC ${megabytes(first.rssBeforeGc)} → ${megabytes(last.rssBeforeGc)} (${percent(growth(first.rssBeforeGc, last.rssBeforeGc))})`,
  );
  // The target is about 10,000 → 100,000 requests; --quick's shorter run includes the warm-up.
  if (!args.quick)
    printTargets(
      `  ${verdict(rssGrowth <= MAX_RSS_GROWTH)} RSS growth over ${operation.name}s after a full GC (target ≤ ${MAX_RSS_GROWTH * 100}%)`,
    );
  return (
    `Over ${operation.name}s with the ${storeName} store, RSS after a full GC went from ${megabytes(first.rss)} to ${megabytes(last.rss)} ` +
    `between ${fewer} and ${more} requests (${percent(rssGrowth)}).`
  );
}

/** Against the baseline, the same for every operation: no-op store, ≥ 0.5× its req/s and p99 ≤ 2×; MongoDB store, ≥ 0.8×. */
const TARGETS: Record<StoreKind, Target> = { noop: { minRatio: 0.5, maxP99Ratio: 2 }, mongo: { minRatio: 0.8 } };
/** RSS after 10× the requests within 20% of the first reading; ready within 1 s of launch. */
const MAX_RSS_GROWTH = 0.2;
const MAX_STARTUP_MS = 1000;

/**
 * Against the other stacks: no-op store, server CPU per request within 5% of the best peer's (the
 * spread between processes of the same code), or of the reference a route is judged against;
 * MongoDB store, ≥ 0.9× the baseline's req/s.
 */
const PEER_TARGETS = { noop: { maxCpuRatio: 1.05 }, mongo: { minRatio: 0.9 } } as const;

/**
 * An update costs no more server CPU per request than a create on the same store. Both run at once, in the service's
 * two children, which they swap from round to round, so the process-to-process spread the peer lines allow for
 * cancels out over the rounds: the paired ratio is held to 1.
 */
const MAX_COST_CEILING_RATIO = 1;

/** Every target line the run printed, for the results section's verdict. */
const targetLines: string[] = [];

function printTargets(lines: string): void {
  if (lines === '') return;
  console.log(lines);
  targetLines.push(...lines.split('\n').filter((line) => line.startsWith(`  ${verdict(true)}`) || line.startsWith(`  ${verdict(false)}`)));
}

function printComparison(title: string, summaries: ContenderSummary[], store: StoreKind, cpuRate: number): void {
  console.log(`\n${title}`);
  console.log(formatTable(summaries));
  console.log(formatCpuRate(summaries, cpuRate));
  console.log(formatCpuAgainstBaseline(summaries));
  printTargets(formatTargets(summaries, TARGETS[store]));
  printTargets(formatPeerTargets(summaries, PEER_TARGETS[store]));
  printTargets(formatCostCeilings(summaries, MAX_COST_CEILING_RATIO));
}

/** How this run was started, as the results section names it. */
function command(): string {
  const fastPath = process.env.FAST_PATH === undefined ? '' : `FAST_PATH=${process.env.FAST_PATH} `;
  const argv = process.argv.slice(2);
  return `${fastPath}npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
}

async function main(): Promise<void> {
  console.log(`Plant store benchmark${args.quick ? ' (--quick)' : ''}: ${describeMachine()}`);
  console.log(
    `autocannon on loopback, ${CONNECTIONS} connections; ${plan.rounds} interleaved rounds of ${plan.seconds} s per contender at saturation, ` +
      `then server CPU in windows of two contenders at once at a set rate, after ${LEAD_IN_SECONDS} s of both at saturation; ` +
      `each server in ${plan.processes < 2 ? 'one process (two where two of its routes share a window)' : `${plan.processes} processes`} taken in turn, ` +
      `after a ${plan.warmupSeconds} s warm-up in each;`,
  );
  console.log(
    `servers in child processes with NODE_ENV=production, LOG_LEVEL=warn and node ${STEADY_HEAP_FLAGS.join(' ')} (bench/server-process.ts); each create stores a new plant, each list reads the first page of ${LIST_SEED.toLocaleString('en')} (MongoDB), ` +
      'each delete removes a stored plant (MongoDB: stored before each round); absolute figures are medians over the rounds, ' +
      'server CPU per request taken two contenders at once, at one set rate per operation; ratios the median over rounds of contender ÷ yardstick in the same round, CPU ratios within the window both shared.',
  );
  if (args['cpu-prof']) console.log(`CPU profiles of the server children: ${PROFILE_DIR}`);

  const stores: StoreKind[] = args.store === 'both' ? ['noop', 'mongo'] : [args.store === 'mongo' ? 'mongo' : 'noop'];
  const operations = selectedOperations(args.operations);
  const mongo = stores.includes('mongo') ? await openMongo() : undefined;
  const db = mongo ? await BenchDatabase.open(mongo.uri) : undefined;
  const measured: MeasuredOperation[] = [];
  let memorySentence: string | undefined;
  let startupSentence: string | undefined;
  try {
    if (mongo) {
      const emulated = mongo.kind === 'emulator' ? ' — the in-memory mongod emulator (tools/mongod-emulator), not a real mongod' : '';
      console.log(`MongoDB: ${mongo.description} [${mongo.kind}]${emulated}`);
    }
    for (const store of stores) {
      const storeTitle = store === 'noop' ? 'No-op store (HTTP and RPC layers alone)' : `MongoDB store (${mongo?.kind ?? '?'})`;
      const uri = store === 'mongo' && db ? db.uri : UNUSED_MONGODB_URI;
      await compare(store, uri, operations, store === 'mongo' ? db : undefined, (operation, { cpuRate, summaries }) => {
        printComparison(`${storeTitle}, ${operation.title}:`, summaries, store, cpuRate);
        measured.push({ store, operation: operation.name, summaries });
      });
    }

    // Creates store a plant each (MongoDB when there is one); updates rename any id, which only the no-op store takes
    // without a stored pool: the service's own request path is what must stay flat.
    const memorySentences = [
      await reportMemory(CREATE, mongo ? 'mongo' : 'noop', db?.uri ?? UNUSED_MONGODB_URI),
      await reportMemory(UPDATE, 'noop', UNUSED_MONGODB_URI),
    ];
    memorySentence = memorySentences.filter((sentence) => sentence !== undefined).join(' ') || undefined;

    if (mongo) {
      const times: number[] = [];
      for (let run = 0; run < plan.startups; run += 1) times.push(await measureStartup({ mongodbUri: mongo.uri, token: TOKEN }));
      console.log(
        `Start-up (node dist/server/main.js, MONGODB_URI set, spawn to first 200 on /healthz): ${times.map((ms) => `${Math.round(ms)} ms`).join(', ')}`,
      );
      printTargets(`  ${verdict(Math.max(...times) <= MAX_STARTUP_MS)} slowest start-up (target ≤ ${MAX_STARTUP_MS} ms)`);
      startupSentence = `Start-up took ${times.map((ms) => `${Math.round(ms)}`).join(', ')} ms.`;
    }
  } finally {
    await db?.drop();
    await mongo?.stop();
  }
  const today = new Date().toISOString().slice(0, 10);
  console.log('\nFor bench/README.md (its results section, replaced whole):\n');
  console.log(
    formatResultsSection(measured, {
      machine: describeMachine(),
      date: today,
      command: command(),
      mongodb: mongo && (mongo.kind === 'emulator' ? 'the mongod emulator' : mongo.description),
      memory: memorySentence,
      startup: startupSentence,
      targetLines,
    }),
  );
}

function selectedOperations(names: string): Operation[] {
  const wanted = names.split(',').map((name) => name.trim());
  const unknown = wanted.filter((name) => !OPERATIONS.some((operation) => operation.name === name));
  if (unknown.length > 0)
    throw new Error(`--operations: unknown ${unknown.join(', ')} (known: ${OPERATIONS.map((operation) => operation.name).join(', ')})`);
  return OPERATIONS.filter((operation) => wanted.includes(operation.name));
}

await main();
