// The two-stage production install the README describes: `dist/` built in the development tree,
// then a second copy with only the production dependencies, started with `node dist/server/main.js`.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { readmeText } from '../helpers/readme.js';
import { killIfRunning, LISTENING, PROJECT_ROOT, run, runToEnd } from '../helpers/processes.js';

const TOKEN = 'production-token';
/**
 * What a production tree must not hold: the embedded MongoDB, the build, the tests and the dev tools.
 * Not `@types/node`: protobufjs, under the OpenTelemetry OTLP exporter, depends on it.
 */
const DEV_ONLY = [
  'mongodb-memory-server',
  'mongodb-memory-server-core',
  'typescript',
  'vitest',
  'vite',
  'tsx',
  'esbuild',
  'pino-pretty',
  'playwright-core',
  'eslint',
  'autocannon',
  'hono',
  '@orpc/server',
];
const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];

/** The production install command of README's Production section, as its arguments after `npm`. */
function readmeProductionInstall(): string[] {
  const readme = readmeText();
  const section = readme.slice(readme.indexOf('## Production'));
  const command = /npm (ci --omit=dev[^\n]*)/.exec(section)?.[1];
  if (command === undefined) throw new Error('README.md has no npm ci --omit=dev in its Production section');
  return command.trim().split(/\s+/);
}

/** What the README says to ship: package.json, package-lock.json and the built dist/, and the fast path's package.json and dist/. */
const SHIPPED = ['package.json', 'package-lock.json', 'dist', 'packages/fast-path/package.json', 'packages/fast-path/dist'];

/** A copy of what the README says to ship. */
async function productionCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-production-'));
  for (const entry of SHIPPED) await cp(join(PROJECT_ROOT, entry), join(dir, entry), { recursive: true });
  return dir;
}

/** What the copy command of README's Production section names: it must be what this test ships. */
function readmeProductionCopy(): string[] {
  const readme = readmeText();
  const section = readme.slice(readme.indexOf('## Production'));
  const command = /tar -cf - ([^|\n]*) \| tar -xf - -C \.\.\/plant-store-production/.exec(section)?.[1];
  if (command === undefined)
    throw new Error('README.md has no tar -cf - ... | tar -xf - -C ../plant-store-production in its Production section');
  return command.trim().split(/\s+/);
}

/** The packages in node_modules, scoped ones as @scope/name. */
async function installedPackages(dir: string): Promise<string[]> {
  const top = await readdir(join(dir, 'node_modules'));
  const scoped = await Promise.all(
    top
      .filter((name) => name.startsWith('@'))
      .map(async (scope) => (await readdir(join(dir, 'node_modules', scope))).map((name) => `${scope}/${name}`)),
  );
  return [...top.filter((name) => !name.startsWith('@')), ...scoped.flat()];
}

describe("a production install as README's Production section makes it, plus dist/", () => {
  let dir = '';
  beforeAll(async () => {
    dir = await productionCopy();
    const install = readmeProductionInstall();
    const { ms } = await runToEnd('npm', [...install, ...NPM_FLAGS], { cwd: dir });
    console.log(`npm ${install.join(' ')}: ${(ms / 1000).toFixed(1)} s`);
  }, 180_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('ships what the README copies', () => {
    expect(readmeProductionCopy()).toStrictEqual(SHIPPED);
  });

  it('holds none of the development packages and no emulator', async () => {
    const installed = await installedPackages(dir);
    expect(installed).toContain('fastify');
    expect(installed.filter((name) => DEV_ONLY.includes(name) || name.includes('emulator'))).toStrictEqual([]);
    expect(existsSync(join(dir, 'tools'))).toBe(false);
  });

  it('serves with node dist/server/main.js and MONGODB_URI: /healthz and POST /plants answer 200, SIGTERM exits 0', async () => {
    const service = run('node', ['dist/server/main.js'], {
      cwd: dir,
      env: { NODE_ENV: 'production', MONGODB_URI: testMongoUri(), API_TOKENS: TOKEN, PORT: '0' },
    });
    try {
      const [, address = ''] = await service.waitFor(LISTENING);
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      const created = await fetch(`${address}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'Monstera', tag: 'tropical' }),
      });
      expect(created.status).toBe(200);
      expect(await created.json()).toStrictEqual({ name: 'Monstera', tag: 'tropical' });
      // The fast path, bundled in the entry, finds the versions it was tested with installed and serves: no warning that it is off.
      expect(service.output()).not.toContain('fast path off');
      service.child.kill('SIGTERM');
      expect(await service.exited).toStrictEqual({ code: 0, signal: null });
    } finally {
      killIfRunning([service.pid]);
    }
  });

  it('refuses to start without MONGODB_URI when NODE_ENV=production, saying so in one line', async () => {
    const service = run('node', ['dist/server/main.js'], { cwd: dir, env: { NODE_ENV: 'production', API_TOKENS: TOKEN } });
    expect(await service.exited).toStrictEqual({ code: 1, signal: null });
    expect(service.output()).toMatch(/^\{.*\}\n$/);
    expect(JSON.parse(service.output())).toMatchObject({
      level: 60,
      msg: 'Invalid configuration:\n  MONGODB_URI must be set when NODE_ENV=production',
    });
  });

  it('refuses to start without MONGODB_URI when NODE_ENV is unset: no embedded MongoDB here, set MONGODB_URI', async () => {
    const service = run('node', ['dist/server/main.js'], { cwd: dir, env: { API_TOKENS: TOKEN } });
    expect(await service.exited).toStrictEqual({ code: 1, signal: null });
    expect(service.output()).toMatch(/^\{.*\}\n$/);
    expect((JSON.parse(service.output()) as { msg: string }).msg).toMatch(
      /^plant store failed to start: MONGODB_URI is not set, .*embedded MongoDB.* not installed.*: set MONGODB_URI=mongodb:\/\/\S+$/,
    );
  });
});

/** What a clone of this tree holds: the files git tracks, and new ones it does not ignore, as they are now. */
async function cloneOfThisTree(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-clone-'));
  const { stdout } = await runToEnd('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PROJECT_ROOT });
  const files = stdout.split('\0').filter((file) => file !== '' && existsSync(join(PROJECT_ROOT, file)));
  for (const file of files) await cp(join(PROJECT_ROOT, file), join(dir, file));
  return dir;
}

describe('git clone, then npm ci --omit=dev', () => {
  let dir = '';
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // TypeScript is installed here too, as a peer of tRPC: `prepare` must still not build without the dev dependencies.
  it('installs the production dependencies without building, and prints no install script to review', async () => {
    dir = await cloneOfThisTree();
    expect(existsSync(join(dir, 'tsconfig.build.json'))).toBe(true);
    const { stdout } = await runToEnd('npm', ['ci', '--omit=dev', ...NPM_FLAGS], { cwd: dir });
    expect(existsSync(join(dir, 'node_modules', 'typescript'))).toBe(true);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    const installed = await installedPackages(dir);
    expect(installed.filter((name) => DEV_ONLY.includes(name) && name !== 'typescript')).toStrictEqual([]);
    expect(stdout).not.toMatch(/install scripts|allowScripts/);
  }, 180_000);
});

describe('npm ci --omit=dev alone', () => {
  let dir = '';
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // `prepare` builds only where the sources are: TypeScript comes in here as a peer of tRPC, but no build runs.
  it('installs without building, and without the embedded MongoDB or the test tools', async () => {
    dir = await productionCopy();
    await runToEnd('npm', ['ci', '--omit=dev', ...NPM_FLAGS], { cwd: dir });
    const installed = await installedPackages(dir);
    expect(
      installed.filter((name) => ['mongodb-memory-server', 'mongodb-memory-server-core', 'vitest', 'tsx'].includes(name)),
    ).toStrictEqual([]);
  }, 180_000);
});
