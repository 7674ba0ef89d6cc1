// `npm run test:spec -w @plant-store/mongod-emulator -- <folder>`: runs MongoDB's unified-format spec
// test files (*.json) found in <folder> against this emulator, started here with test commands
// enabled, or against MONGODB_URI when it is set. Prints passed/failed/skipped per file (with the
// reason of each failure and skip) and in total; exits non-zero when any test failed.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmulator } from '../test/helpers/emulator-process.js';
import { serverFacts } from './requirements.js';
import { runFile, type TestReport } from './run-file.js';

interface Target {
  uri: string;
  label: string;
  stop(): Promise<void>;
}

async function target(): Promise<Target> {
  const uri = process.env.MONGODB_URI;
  if (uri) return { uri, label: 'MONGODB_URI', stop: () => Promise.resolve() };
  const emulator = await startEmulator(['--setParameter', 'enableTestCommands=1']);
  return { uri: `mongodb://127.0.0.1:${emulator.port}/`, label: 'the mongod emulator', stop: () => emulator.stop() };
}

function count(reports: readonly TestReport[], status: 'passed' | 'failed' | 'skipped'): number {
  return reports.filter((report) => report.verdict.status === status).length;
}

function summary(reports: readonly TestReport[]): string {
  return `${count(reports, 'passed')} passed, ${count(reports, 'failed')} failed, ${count(reports, 'skipped')} skipped`;
}

async function main(): Promise<number> {
  const [argument] = process.argv.slice(2);
  if (argument === undefined) {
    process.stderr.write('usage: npm run test:spec -w @plant-store/mongod-emulator -- <folder of unified-format *.json spec tests>\n');
    return 2;
  }
  // npm runs workspace scripts in the package folder; a relative folder means the caller's one.
  const folder = resolve(process.env.INIT_CWD ?? process.cwd(), argument);
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort();
  if (files.length === 0) {
    process.stderr.write(`no *.json spec test files in ${folder}\n`);
    return 2;
  }
  const server = await target();
  const internal = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
  const all: TestReport[] = [];
  try {
    await internal.connect();
    const facts = await serverFacts(internal);
    process.stdout.write(`unified spec tests from ${folder} against ${server.label} (MongoDB ${facts.version}, ${facts.topology})\n`);
    for (const file of files) {
      const reports = await runFile(join(folder, file), { uri: server.uri, internal, server: facts });
      all.push(...reports);
      process.stdout.write(`${file}: ${summary(reports)}\n`);
      for (const { description, verdict } of reports) {
        if (verdict.status !== 'passed')
          process.stdout.write(`  ${verdict.status === 'failed' ? 'FAILED' : 'skipped'}: ${description}: ${verdict.reason}\n`);
      }
    }
  } finally {
    await internal.close();
    await server.stop();
  }
  process.stdout.write(`total: ${summary(all)} (${files.length} files)\n`);
  return count(all, 'failed') > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`spec runner failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
