import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '@plant-store/service-launcher';
import { testMongoUri } from './helpers/app.js';

/** A development folder of this file's own, rather than the project's .dev/. */
const DEV_DIR = mkdtempSync(join(tmpdir(), 'plant-store-dev-'));
afterAll(() => {
  rmSync(DEV_DIR, { recursive: true, force: true });
});

/** The built service as `npm start` runs it (npm test builds first), on any free port. */
function startService(env: Record<string, string>) {
  return withWaitFor(spawnService({ PORT: '0', LOG_LEVEL: 'info', PLANT_STORE_DEV_DIR: DEV_DIR, ...env }));
}

/** Adds `waitFor(pattern)`: the first match of `pattern` in the output, failing if the process exits first. */
function withWaitFor(service: SpawnedService) {
  const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(service.output());
      if (match) return match;
      if (Date.now() > deadline || service.child.exitCode !== null) throw new Error(`no ${String(pattern)} in:\n${service.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { ...service, waitFor };
}

describe('the service process', () => {
  it('without API_TOKENS makes a development token, prints a ready-to-paste curl, and serves with it', async () => {
    const service = startService({ MONGODB_URI: testMongoUri() });
    try {
      const [, token] = await service.waitFor(/token: (\S+)/);
      const [curl] = await service.waitFor(/curl -s -X POST (\S+)\/plants .*/);
      const address = /curl -s -X POST (\S+)\/plants/.exec(curl)?.[1];
      expect(curl).toContain(`Authorization: Bearer ${token}`);
      const response = await fetch(`${address}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'Monstera', tag: 'tropical' }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toStrictEqual({ name: 'Monstera', tag: 'tropical' });
    } finally {
      service.child.kill('SIGTERM');
      await service.exited();
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('shuts down gracefully on %s with exit code 0', async (signal) => {
    const service = startService({ MONGODB_URI: testMongoUri(), API_TOKENS: 'a-token' });
    await service.waitFor(/plant store listening on/);
    service.child.kill(signal);
    expect(await service.exited()).toBe(0);
    expect(service.output()).toContain('shutting down');
    const lines = service.output().trim().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ level: 30, signal, msg: 'stopped: every request answered' });
  });

  it('starts on its embedded MongoDB when MONGODB_URI is unset, and stops it on exit', async () => {
    const service = startService({ API_TOKENS: 'a-token' });
    const [, address] = await service.waitFor(/plant store listening on (http:\/\/\S+?)"/, 30_000);
    const ready = await fetch(`${address}/readyz`);
    expect(ready.status).toBe(200);
    service.child.kill('SIGTERM');
    expect(await service.exited()).toBe(0);
  });

  it('refuses to start in production without API_TOKENS and MONGODB_URI', async () => {
    const service = startService({ NODE_ENV: 'production' });
    expect(await service.exited()).toBe(1);
    expect(service.output()).toContain(
      'API_TOKENS (or API_TOKEN_HASHES, or AUTH_JWKS_URL) and MONGODB_URI must be set when NODE_ENV=production',
    );
  });

  it('says in one line why it cannot start when the port is taken, and exits 1', async () => {
    const first = startService({ MONGODB_URI: testMongoUri(), API_TOKENS: 'a-token' });
    try {
      const [, port] = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      const second = startService({ MONGODB_URI: testMongoUri(), API_TOKENS: 'a-token', PORT: String(port) });
      expect(await second.exited()).toBe(1);
      expect(second.output()).toMatch(
        /^\{"level":60,.*"msg":"plant store failed to start: listen EADDRINUSE.*: another process listens there; stop it, or choose another PORT \(or METRICS_PORT\)"\}$/m,
      );
      expect(second.output()).not.toMatch(/\n\s+at /);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited();
    }
  });

  it('refuses an invalid configuration with a message naming the variable', async () => {
    const service = startService({ PORT: 'eighty' });
    expect(await service.exited()).toBe(1);
    expect(service.output()).toMatch(/PORT: /);
  });

  it.each([
    ['an option the driver does not know', '?badOption=1', 'option badoption is not supported'],
    ['an option value the driver refuses', '?readPreference=nearest-ish', 'Invalid read preference mode "nearest-ish"'],
  ])('names MONGODB_URI when its connection string has %s, and says no more of it', async (_case, query, problem) => {
    const uri = new URL(testMongoUri());
    uri.username = 'plants';
    uri.password = 'uri-password-Kq3';
    const service = startService({ MONGODB_URI: `${uri.toString()}${query}`, API_TOKENS: 'a-token' });
    expect(await service.exited()).toBe(1);
    const lines = service.output().trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toMatchObject([
      { level: 60, msg: `Invalid configuration:\n  MONGODB_URI: ${problem}` },
    ]);
    expect(service.output()).not.toContain('uri-password-Kq3');
  });
});
