// Failed deliveries stay in MongoDB, and `npm run webhooks:failed` (the built CLI) lists them and
// replays them: the running service then delivers them with their original webhook-id.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { postPlant, testMongoUri } from '../helpers/app.js';
import { allIn, useWebhookReceiver, waitForEvent, webhookEnv } from '../helpers/webhooks.js';

const CLI = fileURLToPath(new URL('../../dist/server/webhooks-failed.js', import.meta.url));
const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

/** Runs the built CLI as `npm run webhooks:failed` does, with only MONGODB_URI set (and `env`). */
async function runCli(
  mongoUri: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', MONGODB_URI: mongoUri, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('npm run webhooks:failed', () => {
  it('lists the deliveries given up on, and --replay sends them again with the same webhook-id', async () => {
    // Fern's receiver keeps failing; Ivy's answers 410 Gone, given up on after one attempt.
    hooks.receiver.respond = (request) => (request.body.includes('"Ivy"') ? 410 : 500);
    const uri = testMongoUri();
    const { app, plants } = await hooks.startApp({
      env: webhookEnv([hooks.receiver.url()], SECRET, { MONGODB_URI: uri, WEBHOOK_MAX_ATTEMPTS: '2' }),
    });
    await postPlant(app, { id: 7, name: 'Fern' });
    await postPlant(app, { id: 8, name: 'Ivy' });
    const failed = await waitForEvent(plants, 7, allIn('failed'));
    const gone = await waitForEvent(plants, 8, allIn('failed'));
    const webhookId = failed.deliveries[0]?.id ?? '';

    const listed = await runCli(uri);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(`plant 7  ${webhookId}  ${hooks.receiver.url()}  2 attempts, failed `);
    expect(listed.output).toMatch(/: HTTP 500\n/);
    expect(listed.output).toContain(`plant 8  ${gone.deliveries[0]?.id ?? ''}  ${hooks.receiver.url()}  1 attempt, failed `);
    expect(listed.output).toContain('2 failed deliveries');

    hooks.receiver.respond = () => 200;
    const replayed = await runCli(uri, ['--replay', '--id', webhookId]);
    expect(replayed.code).toBe(0);
    expect(replayed.output).toContain('replayed 1');
    const delivered = await waitForEvent(plants, 7, allIn('delivered'));
    expect(delivered.deliveries[0]).toMatchObject({ id: webhookId, attempts: 1, state: 'delivered' });
    const sent = hooks.receiver.received.filter((request) => request.id === webhookId);
    expect(sent).toHaveLength(3);
    expect(sent[2]?.verifyError).toBeUndefined();
    // The other one was not picked.
    expect((await runCli(uri)).output).toContain('1 failed delivery');
  });

  it('prints its usage with --help, and exits 0 without touching MongoDB', async () => {
    const help = await runCli('', ['--help']);
    expect(help).toStrictEqual({
      code: 0,
      output: expect.stringMatching(/^Usage: npm run webhooks:failed -- \[--replay\] \[--id msg_…\]\n/) as unknown,
    });
    expect(help.output).toContain('MONGODB_URI');
  });

  it('refuses an unknown option, pointing to --help', async () => {
    const child = await runCli('', ['--bogus']);
    expect(child.code).toBe(2);
    expect(child.output).toContain("Unknown option '--bogus'");
    expect(child.output).toContain('--help');
  });

  it('says what it needs without MONGODB_URI in production', async () => {
    const child = await runCli('', [], { NODE_ENV: 'production', API_TOKENS: 'a-token' });
    expect(child.code).toBe(1);
    expect(child.output).toBe('Invalid configuration:\n  MONGODB_URI must be set when NODE_ENV=production\n');
  });

  it('without MONGODB_URI in development, and no embedded MongoDB running, says to start one or set MONGODB_URI', async () => {
    const devDir = await mkdtemp(join(tmpdir(), 'plant-store-dev-'));
    try {
      const child = await runCli('', [], { PLANT_STORE_DEV_DIR: devDir });
      expect(child.code).toBe(2);
      expect(child.output).toBe(
        `MONGODB_URI is not set, and no embedded MongoDB is running on ${devDir} (npm start and npm run dev record its address in ${join(devDir, 'mongodb-uri')}): start one, or set MONGODB_URI\n`,
      );
    } finally {
      await rm(devDir, { recursive: true, force: true });
    }
  });
});
