// The root Dockerfile's image, built with podman and run as an operator would: read-only, without
// capabilities, against the test MongoDB on the host, then stopped with SIGTERM.
// Needs root and podman with a base image (.ci/container-setup.sh): it runs only with CONTAINER_TEST=1.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@plant-store/service-launcher';
import { describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { PROJECT_ROOT, runToEnd } from '../helpers/processes.js';

const ENABLED = process.env.CONTAINER_TEST === '1';
const BASE_IMAGE = process.env.CONTAINER_BASE_IMAGE ?? 'localhost/node:24-bookworm-slim';
/** The CA of a TLS-intercepting proxy between the build and the npm registry, handed to the build as a secret. */
const NPM_CA = process.env.CONTAINER_NPM_CA ?? '/etc/ssl/certs/ca-certificates.crt';
const IMAGE = `localhost/plant-store:test-${process.pid}`;
const CONTAINER = `plant-store-test-${process.pid}`;
const TOKEN = 'container-test-token';
const MAX_INT64 = '9223372036854775807';
/** The image may add this much to its base: dist/ and the production dependencies. */
const MAX_ADDED_BYTES = 100 * 1024 * 1024;
/** What builds and tests the service; none of it may be in the image. */
const BUILD_AND_TEST_TOOLS = [
  'typescript',
  'tsx',
  'vitest',
  'vite',
  'eslint',
  'mongodb-memory-server',
  'rollup',
  '@plant-store/mongod-emulator',
  '@plant-store/service-launcher',
  '@plant-store/bench',
];

const podman = async (...args: string[]) => (await runToEnd('podman', args)).stdout.trim();

/** Every package of the lockfile that only development installs get. */
function devOnlyPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => entry.dev === true && path.startsWith('node_modules/'))
    .map(([path]) => path);
}

async function waitForHealthy(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => undefined,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the container never answered /healthz:\n${await podman('logs', CONTAINER)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the container image', () => {
  it('builds, runs read-only as a non-root user without capabilities, serves int64 ids exactly, holds no dev dependency, and stops 0 on SIGTERM', async ({
    skip,
  }) => {
    skip(
      !ENABLED,
      'builds and runs an image with podman, as root: set CONTAINER_TEST=1 once .ci/container-setup.sh has made podman and the base image ready (.ci/run does)',
    );
    expect(
      existsSync('/usr/bin/podman') || existsSync('/usr/local/bin/podman'),
      'CONTAINER_TEST=1 but podman is not installed: run .ci/container-setup.sh as root',
    ).toBe(true);

    const secret = existsSync(NPM_CA) ? ['--secret', `id=npm_ca,src=${NPM_CA}`] : [];
    await podman('build', '--layers=false', '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, ...secret, '--tag', IMAGE, PROJECT_ROOT);
    try {
      const [imageBytes, baseBytes] = await Promise.all([
        podman('image', 'inspect', '--format', '{{.Size}}', IMAGE),
        podman('image', 'inspect', '--format', '{{.Size}}', BASE_IMAGE),
      ]);
      expect(Number(imageBytes) - Number(baseBytes)).toBeLessThan(MAX_ADDED_BYTES);
      const config = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config}}', IMAGE)) as {
        User: string;
        Env: string[];
        Cmd: string[];
      };
      expect(config.User).toBe('node');
      expect(config.Env).toContain('NODE_ENV=production');
      expect(config.Cmd).toStrictEqual(['node', 'dist/server/main.js']);

      // Nothing that only a development install gets, nor the tools that build and test the service.
      const absent = [...devOnlyPackages(), ...BUILD_AND_TEST_TOOLS.map((name) => `node_modules/${name}`)];
      const present = await podman(
        'run',
        '--rm',
        IMAGE,
        'node',
        '-e',
        'const fs = require("fs"); console.log(JSON.stringify(JSON.parse(process.argv[1]).filter((path) => fs.existsSync(path))))',
        JSON.stringify(absent),
      );
      expect(absent.length).toBeGreaterThan(100);
      expect(JSON.parse(present)).toStrictEqual([]);

      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      await podman(
        'run',
        '--detach',
        '--name',
        CONTAINER,
        '--network=host',
        '--read-only',
        '--cap-drop=ALL',
        '--security-opt',
        'no-new-privileges',
        '--env',
        'HOST=127.0.0.1',
        '--env',
        `PORT=${port}`,
        '--env',
        `MONGODB_URI=${testMongoUri()}`,
        '--env',
        `API_TOKENS=${TOKEN}`,
        IMAGE,
      );
      await waitForHealthy(url);
      expect(await podman('inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', CONTAINER)).toBe('true');
      // The service itself (PID 1): its user, not root, and no capability at all.
      const status = await podman('exec', CONTAINER, 'cat', '/proc/1/status');
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe('1000');
      expect(/^CapEff:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');

      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const created = await fetch(`${url}/plants`, { method: 'POST', headers, body: `{"id": ${MAX_INT64}, "name": "Largest"}` });
      expect([created.status, await created.text()]).toStrictEqual([200, '{"name":"Largest"}']);
      const read = await fetch(`${url}/plants/${MAX_INT64}`, { headers });
      expect([read.status, await read.text()]).toStrictEqual([200, `{"id":${MAX_INT64},"name":"Largest"}`]);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      // podman stop sends SIGTERM, and SIGKILL only after 10 s.
      const stopping = performance.now();
      await podman('stop', '--time', '10', CONTAINER);
      expect(performance.now() - stopping).toBeLessThan(10_000);
      expect(await podman('inspect', '--format', '{{.State.ExitCode}}', CONTAINER)).toBe('0');
      expect(await podman('logs', CONTAINER)).toContain('shutting down');
    } finally {
      await podman('rm', '--force', '--ignore', CONTAINER);
      await podman('rmi', '--force', IMAGE);
    }
  }, 600_000);
});
