// The package a separate TypeScript app installs: `npm pack` of this project, installed in a fresh
// app, whose snippets in docs/clients.md (read from the page, so the docs cannot drift) compile and run.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testMongoUri, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { documentBlocks, documentedOutput, documentText } from '../helpers/readme.js';
import { PROJECT_ROOT, run, runToEnd } from '../helpers/processes.js';
import { writeStrictTsconfig } from '../helpers/strict-tsconfig.js';

const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];
/** The fast path, a workspace package, travels in the tarball as a bundled dependency. */
const FAST_PATH = 'node_modules/@plant-store/fast-path';
/** What an app using the package must not get: the embedded MongoDB, the build and test tools. */
const DEV_ONLY = [
  'mongodb-memory-server',
  'mongodb-memory-server-core',
  'vitest',
  'vite',
  'tsx',
  'esbuild',
  'pino-pretty',
  'playwright-core',
  'fast-check',
  'eslint',
];

/** The version of a package installed here, so the app's install is served from the npm cache. */
const versionHere = (name: string) =>
  (createRequire(join(PROJECT_ROOT, 'package.json'))(`${name}/package.json`) as { version: string }).version;

describe('the packed package, in a TypeScript app of its own', () => {
  // ```ts blocks are whole programs on this package; programs of other stacks (REST clients, webhook receivers) are fenced ```typescript.
  const snippets = documentBlocks('docs/clients.md', 'ts');
  let app = '';
  let packedFiles: string[] = [];
  let tarball = '';
  let service: TestApp | undefined;

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'plant-store-app-'));
    // `npm test` built dist/ already; the scripts would rebuild it under the other tests' feet.
    const { stdout } = await runToEnd('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', app]);
    const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    packedFiles = packed.files.map((file) => file.path);
    tarball = packed.filename;

    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'plant-app', private: true, type: 'module' }));
    await writeStrictTsconfig(app, ['src'], { skipLibCheck: true, outDir: 'out' });
    const dependencies = [
      `./${packed.filename}`,
      `mongodb@${versionHere('mongodb')}`,
      `typescript@${versionHere('typescript')}`,
      `@types/node@${versionHere('@types/node')}`,
    ];
    const { ms } = await runToEnd('npm', ['install', ...NPM_FLAGS, ...dependencies], { cwd: app });
    console.log(`npm install of the packed tarball in a fresh app: ${(ms / 1000).toFixed(1)} s`);
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await rm(app, { recursive: true, force: true });
  });

  it('holds the built dist/, the README and the pages of docs/, the fast path bundled, built, and no sources, tests, bench or tools', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/client/create-client.js',
        'dist/client/create-client.d.ts',
        'dist/server/main.js',
      ]),
    );
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        `${FAST_PATH}/package.json`,
        `${FAST_PATH}/README.md`,
        `${FAST_PATH}/dist/index.js`,
        `${FAST_PATH}/dist/index.d.ts`,
      ]),
    );
    const own = (path: string) =>
      path.startsWith('dist/') || path.startsWith('docs/') || ['README.md', 'LICENSE', 'package.json'].includes(path);
    const bundled = (path: string) =>
      path.startsWith(`${FAST_PATH}/dist/`) || path === `${FAST_PATH}/README.md` || path === `${FAST_PATH}/package.json`;
    expect(packedFiles.filter((path) => !own(path) && !bundled(path))).toStrictEqual([]);
    expect(packedFiles.filter((path) => path.endsWith('.map') || (path.endsWith('.ts') && !path.endsWith('.d.ts')))).toStrictEqual([]);
  });

  it('is the tarball docs/clients.md says to install', () => {
    const [, installed = ''] = /^npm install \S*\/(\S+\.tgz)/m.exec(documentText('docs/clients.md')) ?? [];
    expect(installed).toBe(tarball);
  });

  it('holds every page of docs/ that the README links to', () => {
    const linked = [...readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').matchAll(/\]\((docs\/[^)#]+)/g)].map(([, path]) => path ?? '');
    expect(linked.length).toBeGreaterThan(5);
    expect(linked.filter((path) => !packedFiles.includes(path))).toStrictEqual([]);
  });

  it('brings the app no embedded MongoDB and no build or test tools', async () => {
    const installed = await readdir(join(app, 'node_modules'));
    expect(installed).toContain('plant-store');
    expect(installed.filter((name) => DEV_ONLY.includes(name) || name.includes('emulator'))).toStrictEqual([]);
  });

  it('compiles the snippets of docs/clients.md (strict, with a check that the client is typed) and runs them against a live service: each prints what the page says and exits by itself', async () => {
    expect(snippets).toHaveLength(2);
    await mkdir(join(app, 'src'), { recursive: true });
    await Promise.all(snippets.map((snippet, index) => writeFile(join(app, 'src', `snippet-${index + 1}.ts`), snippet)));
    // The client is typed by AppRouter, not `any`: a wrong input must not compile.
    await writeFile(
      join(app, 'src', 'types.ts'),
      [
        "import { createPlantStoreClient } from 'plant-store/client';",
        "import type { NewPlant, Plant } from 'plant-store';",
        "const store = createPlantStoreClient({ url: 'http://127.0.0.1:1', token: 't' });",
        'export const created: Promise<Plant> = store.createPlant.mutate({ id: 1, name: "Fern" } satisfies NewPlant);',
        '// @ts-expect-error the id is a number',
        "export const refused = store.createPlant.mutate({ id: '1', name: 'Fern' });",
        '',
      ].join('\n'),
    );
    await runToEnd('node', [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app });

    service = await startTestApp();
    const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
    const env = { PLANT_STORE_URL: address, PLANT_STORE_TOKEN: TEST_TOKEN, MONGODB_URI: testMongoUri() };
    for (const [index, snippet] of snippets.entries()) {
      expect(documentedOutput(snippet).length, `snippet ${index + 1} documents no output`).toBeGreaterThan(0);
      const started = performance.now();
      const snippetRun = run('node', [join('out', `snippet-${index + 1}.js`)], { cwd: app, env });
      const timer = setTimeout(() => snippetRun.child.kill('SIGKILL'), 15_000);
      const exit = await snippetRun.exited;
      clearTimeout(timer);
      expect(exit, `snippet ${index + 1} did not exit by itself:\n${snippetRun.output()}`).toStrictEqual({ code: 0, signal: null });
      expect(snippetRun.output().trimEnd().split('\n')).toStrictEqual(documentedOutput(snippet));
      expect(performance.now() - started).toBeLessThan(15_000);
    }
  }, 90_000);
});
