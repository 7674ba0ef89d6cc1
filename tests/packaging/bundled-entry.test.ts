// The production entry is one bundle with lazily loaded chunks, so that starting the service reads a few files of its
// own rather than every module of Fastify and its kin from node_modules. The MongoDB driver stays installed, loaded by
// Node, where OpenTelemetry's instrumentation can patch it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { killIfRunning, LISTENING, run } from '../helpers/processes.js';

/** The package a module file of node_modules belongs to, scoped ones as @scope/name. */
function packageOf(file: string): string | undefined {
  return /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
}

describe('node dist/server/main.js', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-store-modules-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads Fastify and its kin from its bundle, and from node_modules the MongoDB driver', async () => {
    const preload = join(dir, 'record-modules.cjs');
    const record = join(dir, 'modules.txt');
    await writeFile(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, Object.keys(require.cache).join('\\n')));\n`,
    );
    const service = run('node', ['--require', preload, 'dist/server/main.js'], {
      env: { NODE_ENV: 'production', MONGODB_URI: testMongoUri(), API_TOKENS: 'bundle-token', PORT: '0' },
    });
    try {
      const [, address = ''] = await service.waitFor(LISTENING);
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      service.child.kill('SIGTERM');
      expect(await service.exited).toStrictEqual({ code: 0, signal: null });
    } finally {
      killIfRunning([service.pid]);
    }
    const installed = new Set((await readFile(record, 'utf8')).split('\n').map(packageOf));
    expect(['fastify', 'pino', 'ajv', 'find-my-way', 'avvio', '@fastify/cors'].filter((name) => installed.has(name))).toStrictEqual([]);
    expect(installed).toContain('mongodb');
  });
});
