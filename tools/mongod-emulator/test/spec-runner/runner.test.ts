// The unified-format spec runner (spec-runner/main.ts) as its users run it, on small test files of
// our own written to a temporary folder: what it counts as passed, failed and skipped, the reasons it
// prints, and its exit code.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const folders: string[] = [];

const entities = [
  { client: { id: 'client0', observeEvents: ['commandStartedEvent'] } },
  { database: { id: 'database0', client: 'client0', databaseName: 'spec-runner' } },
  { collection: { id: 'collection0', database: 'database0', collectionName: 'plants' } },
];
const initialData = [{ collectionName: 'plants', databaseName: 'spec-runner', documents: [{ _id: 1, name: 'fern' }] }];

function specFile(tests: unknown[]): string {
  return JSON.stringify({ description: 'runner', schemaVersion: '1.0', createEntities: entities, initialData, tests });
}

const passing = {
  description: 'inserts and finds',
  operations: [
    {
      name: 'insertOne',
      object: 'collection0',
      arguments: { document: { _id: 2, name: 'moss' } },
      expectResult: { $$unsetOrMatches: { insertedId: { $$unsetOrMatches: 2 } } },
    },
    {
      name: 'find',
      object: 'collection0',
      arguments: { filter: {}, sort: { _id: -1 }, limit: 1 },
      expectResult: [{ _id: 2, name: 'moss' }],
    },
  ],
  expectEvents: [
    {
      client: 'client0',
      events: [
        { commandStartedEvent: { command: { insert: 'plants' } } },
        { commandStartedEvent: { command: { find: 'plants', limit: 1 } } },
      ],
    },
  ],
  outcome: [
    {
      collectionName: 'plants',
      databaseName: 'spec-runner',
      documents: [
        { _id: 1, name: 'fern' },
        { _id: 2, name: 'moss' },
      ],
    },
  ],
};
const failPoint = {
  description: 'sees an injected error',
  operations: [
    {
      name: 'failPoint',
      object: 'testRunner',
      arguments: {
        client: 'client0',
        failPoint: { configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['delete'], errorCode: 8 } },
      },
    },
    { name: 'deleteOne', object: 'collection0', arguments: { filter: { _id: 1 } }, expectError: { errorCode: 8, isClientError: false } },
  ],
  outcome: [{ collectionName: 'plants', databaseName: 'spec-runner', documents: [{ _id: 1, name: 'fern' }] }],
};
const oldServersOnly = { description: 'needs an old server', runOnRequirements: [{ maxServerVersion: '4.99' }], operations: [] };
const refused = {
  description: 'uses a collation',
  operations: [
    {
      name: 'find',
      object: 'collection0',
      arguments: { filter: {}, collation: { locale: 'en' } },
      expectResult: [{ _id: 1, name: 'fern' }],
    },
  ],
};
const unknownOperation = { description: 'watches', operations: [{ name: 'watch', object: 'collection0', arguments: {} }] };
const wrongResult = {
  description: 'expects another document',
  operations: [{ name: 'findOne', object: 'collection0', arguments: { filter: { _id: 1 } }, expectResult: { _id: 1, name: 'palm' } }],
};

async function runSpecs(files: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'spec-runner-'));
  folders.push(folder);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  // The runner is what is under test: it always runs against the emulator it starts itself.
  const env = { ...process.env };
  delete env.MONGODB_URI;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'spec-runner/main.ts', folder], {
      cwd: packageDir,
      env,
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('the spec runner', () => {
  it('passes what holds, skips with a reason what it cannot judge, and exits 0', async () => {
    const { code, stdout } = await runSpecs({
      'a.json': specFile([passing, failPoint]),
      'b.json': specFile([oldServersOnly, refused, unknownOperation]),
    });
    expect(stdout).toContain('against the mongod emulator (MongoDB 8.0.4, single)');
    expect(stdout).toContain('a.json: 2 passed, 0 failed, 0 skipped');
    expect(stdout).toContain('b.json: 0 passed, 0 failed, 3 skipped');
    expect(stdout).toContain('skipped: needs an old server: needs server <= 4.99 (server is 8.0.4, single)');
    expect(stdout).toContain(
      "skipped: uses a collation: the server refuses a feature it does not implement: the emulator does not implement the 'collation' option of find",
    );
    expect(stdout).toContain('skipped: watches: the runner does not implement the collection operation watch');
    expect(stdout).toContain('total: 2 passed, 0 failed, 3 skipped (2 files)');
    expect(code).toBe(0);
  });

  it('reports a failed expectation with its reason and exits 1', async () => {
    const { code, stdout } = await runSpecs({ 'c.json': specFile([passing, wrongResult]) });
    expect(stdout).toContain('c.json: 1 passed, 1 failed, 0 skipped');
    expect(stdout).toContain('FAILED: expects another document: findOne: name: expected "palm", got "fern"');
    expect(stdout).toContain('total: 1 passed, 1 failed, 0 skipped (1 files)');
    expect(code).toBe(1);
  });
});
