// The client package as an app installs it: `npm pack` of @plant-store/client (and of the
// service's own package, for its `plant-store/client` export), installed from the tarballs in a
// fresh app whose tsconfig is strict with no skipLibCheck, compiled, and run against the service
// as a process of its own (dist/server/main.js) with ids beyond 2^53.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { documentBlocks, documentText } from '../helpers/readme.js';
import { killIfRunning, LISTENING, PROJECT_ROOT, run, runToEnd, type Command } from '../helpers/processes.js';
import { writeStrictTsconfig } from '../helpers/strict-tsconfig.js';

const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline'];
const TOKEN = 'client-package-token';
/** What a client-only install must not hold: the server, its database driver, its docs UI. */
const SERVER_ONLY = ['fastify', 'mongodb', 'bson', '@fastify/swagger-ui', '@fastify/swagger', 'trpc-to-openapi', 'zod', 'plant-store'];

const versionHere = (name: string) =>
  (createRequire(join(PROJECT_ROOT, 'package.json'))(`${name}/package.json`) as { version: string }).version;

/** `npm pack` of the project, or of one of its workspaces, into `destination`: the tarball's file name. */
async function pack(destination: string, workspace?: string): Promise<string> {
  // `npm test` built dist/ already; the scripts would rebuild it under the other tests' feet.
  const { stdout } = await runToEnd('npm', [
    'pack',
    '--ignore-scripts',
    '--json',
    '--pack-destination',
    destination,
    ...(workspace ? ['-w', workspace] : []),
  ]);
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  return packed.filename;
}

/** The packages in node_modules, scoped ones as @scope/name. */
async function installedPackages(dir: string): Promise<string[]> {
  const top = await readdir(join(dir, 'node_modules'));
  const scoped = await Promise.all(
    top
      .filter((name) => name.startsWith('@'))
      .map(async (scope) => (await readdir(join(dir, 'node_modules', scope))).map((name) => `${scope}/${name}`)),
  );
  return [...top.filter((name) => !name.startsWith('@') && !name.startsWith('.')), ...scoped.flat()];
}

/** An app of the client package alone: exact ids through the ready client and through links of its own. */
const CLIENT_APP = `
import { createTRPCClient, httpBatchLink, loggerLink } from '@trpc/client';
import { createPlantStoreClient, exactIntegerFetch, int64Transformer, isPlantStoreError, trpcUrl, type AppRouter } from '@plant-store/client';

const url = process.env.PLANT_STORE_URL ?? '';
const token = process.env.PLANT_STORE_TOKEN ?? '';
const store = createPlantStoreClient({ url, token });
await store.createPlant.mutate({ id: 9007199254740993n, name: 'Monstera' });
await store.createPlant.mutate({ id: 7, name: 'Fern' });
const plant = await store.getPlant.query({ id: 9007199254740993n });
const id: bigint = plant.id;
console.log(\`get \${id} \${plant.name}\`);

const batched = createTRPCClient<AppRouter>({
  links: [
    loggerLink({ enabled: () => false }),
    httpBatchLink({ url: trpcUrl(url), headers: { authorization: \`Bearer \${token}\` }, transformer: int64Transformer, fetch: exactIntegerFetch() }),
  ],
});
const [page, one] = await Promise.all([batched.listPlants.query({}), batched.getPlant.query({ id: 7 })]);
console.log(\`list \${page.map((item) => \`\${typeof item.id} \${item.id}\`).join(', ')}; get \${typeof one.id} \${one.id}\`);

for (const id of [2 ** 53 + 2, 404]) {
  try {
    await store.getPlant.query({ id });
  } catch (error) {
    // Typed without a cast: the code and the status as the service (or the client itself) told them.
    if (isPlantStoreError(error)) console.log(\`refused \${error.data?.code} \${error.data?.httpStatus}\`);
  }
}
/** Never called: the compiler checks the client is typed. */
export const typed = () =>
  // @ts-expect-error an id is a number or a bigint
  store.getPlant.query({ id: {} });
`;

/** An app of the service's package, through its plant-store/client export. */
const ROOT_EXPORT_APP = `
import { createPlantStoreClient } from 'plant-store/client';

const store = createPlantStoreClient({ url: process.env.PLANT_STORE_URL ?? '', token: process.env.PLANT_STORE_TOKEN ?? '' });
const plant = await store.getPlant.query({ id: 9007199254740993n });
const id: bigint = plant.id;
console.log(\`get \${id} \${plant.name}\`);
/** Never called: the compiler checks the client is typed. */
export const typed = () =>
  // @ts-expect-error a plant has a name
  store.createPlant.mutate({ id: 1 });
`;

describe('the client package, packed and installed in a strict TypeScript app without skipLibCheck', () => {
  let app = '';
  let rootTarball = '';
  let clientTarball = '';
  let service: Command | undefined;
  let env: Record<string, string> = {};

  const tsc = () => runToEnd('node', [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app });
  const runApp = async (file: string) => (await runToEnd('node', [join('out', file)], { cwd: app, env })).stdout.trimEnd().split('\n');

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'plant-store-client-app-'));
    [clientTarball, rootTarball] = await Promise.all([pack(app, '@plant-store/client'), pack(app)]);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'plant-client-app', private: true, type: 'module' }));
    await writeStrictTsconfig(app, ['src'], { outDir: 'out' });
    await mkdir(join(app, 'src'));
    await runToEnd(
      'npm',
      [
        'install',
        ...NPM_FLAGS,
        `./${clientTarball}`,
        `typescript@${versionHere('typescript')}`,
        `@types/node@${versionHere('@types/node')}`,
      ],
      { cwd: app },
    );

    service = run('node', ['dist/server/main.js'], { env: { MONGODB_URI: testMongoUri(), API_TOKENS: TOKEN, PORT: '0' } });
    const [, address = ''] = await service.waitFor(LISTENING);
    env = { PLANT_STORE_URL: address, PLANT_STORE_TOKEN: TOKEN };
  }, 180_000);

  afterAll(async () => {
    if (service) killIfRunning([service.pid]);
    await rm(app, { recursive: true, force: true });
  });

  it('is packed and installed as its README says, until it is published', () => {
    const readme = documentText('packages/client/README.md');
    expect(readme).toContain('npm pack -w @plant-store/client ');
    expect(/npm install <path-to-clone>\/(\S+\.tgz)/.exec(readme)?.[1]).toBe(clientTarball);
  });

  it('installs @trpc/client and nothing of the server', async () => {
    const installed = await installedPackages(app);
    expect(installed).toEqual(expect.arrayContaining(['@plant-store/client', '@trpc/client', '@trpc/server']));
    expect(installed.filter((name) => SERVER_ONLY.includes(name))).toStrictEqual([]);
    const { stdout } = await runToEnd('npm', ['ls', '--all', '--parseable', '--omit=dev', '--prefer-offline'], { cwd: app });
    expect(stdout).not.toMatch(/fastify|mongodb|swagger/);
  });

  it('compiles strict without skipLibCheck and runs against the service: ids exact and bigints, batching, typed refusals', async () => {
    await writeFile(join(app, 'src', 'client-app.ts'), CLIENT_APP);
    await tsc();
    expect(await runApp('client-app.js')).toStrictEqual([
      'get 9007199254740993 Monstera',
      'list bigint 7, bigint 9007199254740993; get bigint 7',
      'refused BAD_REQUEST 400',
      'refused NOT_FOUND 404',
    ]);
  }, 60_000);

  it("runs the README's change of a plant as written, given the service's address and token as it reads them", async () => {
    const [changing = ''] = documentBlocks('packages/client/README.md', 'ts').filter((block) => block.includes('ifMatch: etag'));
    expect(changing).toContain('process.env.PLANT_STORE_TOKEN');
    await writeFile(join(app, 'src', 'readme-changes.ts'), changing);
    await tsc();
    await runApp('readme-changes.js');
    // Deleted with the tag of the change before it: each conditional call held.
    const read = await fetch(`${env.PLANT_STORE_URL}/plants/43`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(read.status).toBe(404);
  }, 60_000);

  it("the service package's plant-store/client export compiles the same way and keeps ids exact", async () => {
    await runToEnd('npm', ['install', ...NPM_FLAGS, `./${rootTarball}`], { cwd: app });
    await writeFile(join(app, 'src', 'root-export-app.ts'), ROOT_EXPORT_APP);
    await tsc();
    expect(await runApp('root-export-app.js')).toStrictEqual(['get 9007199254740993 Monstera']);
  }, 180_000);
});
