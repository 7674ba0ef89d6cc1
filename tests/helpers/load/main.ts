/**
 * Load check: `npm run load [-- --plants 20000 --concurrency 64 --webhooks]`.
 *
 * Runs the built service (dist/server/main.js; the npm script builds first) as a child process on
 * the MongoDB that server/dev/mongo-source.ts picks (MONGODB_URI, a real mongod, or the emulator),
 * creates distinct plants from concurrent clients, stops the service with SIGTERM and reads the
 * database back. Exits 1 unless there were no 5xx, nothing missing and no duplicates. With
 * --webhooks, a receiver on loopback must also get every acknowledged plant's event, once, verified.
 */
import { parseArgs } from 'node:util';
import { resolveMongo } from '../../../server/dev/mongo-source.js';
import { formatLoadReport, loadFailures } from './load-report.js';
import { runLoad } from './run-load.js';

const { values } = parseArgs({
  options: {
    plants: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
    webhooks: { type: 'boolean', default: false },
  },
});
const plants = Number(values.plants);
const concurrency = Number(values.concurrency);
if (!Number.isSafeInteger(plants) || plants < 1 || !Number.isSafeInteger(concurrency) || concurrency < 1) {
  console.error('--plants and --concurrency must be positive integers');
  process.exit(2);
}

const mongo = await resolveMongo({
  uri: process.env.MONGODB_URI,
  warn: (message) => {
    console.warn(message);
  },
});
console.log(`MongoDB: ${mongo.description}`);
try {
  const report = await runLoad({ plants, concurrency, mongoUri: mongo.uri, webhooks: values.webhooks });
  console.log(formatLoadReport(report));
  const failures = loadFailures(report);
  if (failures.length > 0) {
    console.error(`FAILED:\n  ${failures.join('\n  ')}\nservice output:\n${report.serviceOutput.slice(-4000)}`);
    process.exitCode = 1;
  } else {
    console.log('held: no 5xx, nothing missing, no duplicates');
  }
} finally {
  await mongo.stop();
}
