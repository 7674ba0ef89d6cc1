// `npm run webhooks:failed` as an operator runs it where the service runs: it reads only the configuration it uses,
// says when a filter names nothing or a database is not the service's, and its exit code tells a script what happened.
import { Long } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { describe, expect, it } from 'vitest';
import { useFreshDatabases } from '../helpers/fresh-databases.js';
import { runCli } from '../helpers/failed-events.js';

const { fresh } = useFreshDatabases();

/** A database holding a plant with a new-plant delivery given up on, as the service leaves one. */
async function withFailedDelivery(): Promise<{ uri: string; webhookId: string; drop: () => Promise<unknown> }> {
  const database = fresh();
  const webhookId = 'msg_failedOnceForTheCliTests00';
  const failedAt = new Date();
  await database.plants.insertOne({
    _id: Long.fromNumber(3),
    name: 'Fern',
    createdAt: failedAt,
    webhook: {
      claims: 1,
      deliveries: [
        { id: webhookId, url: 'https://hooks.example/new?key=k', state: 'failed', attempts: 2, failedAt, lastError: 'HTTP 500' },
      ],
    },
  });
  return { uri: database.uri, webhookId, drop: database.drop };
}

describe('npm run webhooks:failed, configured as the service is', () => {
  it('runs under NODE_ENV=production with only MONGODB_URI: what the service alone needs (tokens, a webhook secret) is not asked for', async () => {
    const { uri, webhookId, drop } = await withFailedDelivery();
    try {
      const listed = await runCli(uri, [], { NODE_ENV: 'production' });
      expect(listed.output).toContain(`plant 3  ${webhookId}  https://hooks.example/new  2 attempts, failed `);
      expect(listed.code).toBe(0);
      // Change URLs without a secret, a port that is no number: the service's own to refuse, not the CLI's.
      const serviceOnly = { NODE_ENV: 'production', WEBHOOK_CHANGE_URLS: 'https://mirror.example/hooks', PORT: 'eighty' };
      const alongside = await runCli(uri, [], serviceOnly);
      expect(alongside.output).toContain('1 failed delivery\n');
      expect(alongside.code).toBe(0);
    } finally {
      await drop();
    }
  });

  it('refuses a bad value of a variable it does use, naming it', async () => {
    const { uri, drop } = await withFailedDelivery();
    try {
      expect(await runCli(uri, [], { NODE_ENV: 'production', MONGODB_TIMEOUT_MS: 'soon' })).toStrictEqual({
        code: 1,
        output: 'Invalid configuration:\n  MONGODB_TIMEOUT_MS: must be a whole number above 0\n',
      });
      expect(await runCli(uri, ['--replay'], { WEBHOOK_CHANGE_QUEUE_LIMIT: '0' })).toStrictEqual({
        code: 1,
        output: 'Invalid configuration:\n  WEBHOOK_CHANGE_QUEUE_LIMIT: must be a whole number above 0\n',
      });
      expect(await runCli('mongodb://', [], { NODE_ENV: 'production' })).toStrictEqual({
        code: 1,
        output: 'Invalid configuration:\n  MONGODB_URI: must be a MongoDB connection string, like mongodb://127.0.0.1:27017/plantstore\n',
      });
    } finally {
      await drop();
    }
  });

  it('still requires MONGODB_URI in production, and only it', async () => {
    expect(await runCli('', [], { NODE_ENV: 'production' })).toStrictEqual({
      code: 1,
      output: 'Invalid configuration:\n  MONGODB_URI must be set when NODE_ENV=production\n',
    });
  });
});

describe('npm run webhooks:failed, what it tells a script', () => {
  it('a database with no plants collection (a mistyped name) is no all-clear: it says so and exits 1', async () => {
    const { uri, drop } = await withFailedDelivery();
    try {
      const typo = new ConnectionString(uri);
      const name = `${typo.pathname.slice(1)}x`;
      typo.pathname = `/${name}`;
      const listed = await runCli(typo.toString());
      expect(listed).toStrictEqual({ code: 1, output: `no plants collection in database ${name}: is it the service's?\n` });
      expect((await runCli(typo.toString(), ['--replay'])).code).toBe(1);
    } finally {
      await drop();
    }
  });

  it('--id or --url naming nothing: a line saying so, exit 1; a listing exits 0 whatever it lists', async () => {
    const { uri, webhookId, drop } = await withFailedDelivery();
    try {
      const listed = await runCli(uri);
      expect(listed.output).toContain('1 failed delivery\n');
      expect(listed.code).toBe(0);
      expect((await runCli(uri, ['--id', webhookId])).code).toBe(0);
      expect((await runCli(uri, ['--url', 'https://hooks.example/new'])).code).toBe(0);

      const noId = await runCli(uri, ['--id', 'msg_nothing']);
      expect(noId.output).toContain('no failed delivery or missed change has the webhook-id msg_nothing\n');
      expect(noId.code).toBe(1);
      const noUrl = await runCli(uri, ['--replay', '--url', 'https://hooks.example/other']);
      expect(noUrl.output).toContain('no failed delivery or missed change was sent to https://hooks.example/other\n');
      expect(noUrl.output).not.toContain('replayed');
      expect(noUrl.code).toBe(1);
      const noBoth = await runCli(uri, ['--discard', '--id', webhookId, '--url', 'https://hooks.example/other']);
      expect(noBoth.output).toContain(
        `no failed delivery or missed change has the webhook-id ${webhookId} and was sent to https://hooks.example/other\n`,
      );
      expect(noBoth.code).toBe(1);
    } finally {
      await drop();
    }
  });

  it('--replay and --discard together: a usage error', async () => {
    const both = await runCli('', ['--replay', '--discard']);
    expect(both.code).toBe(2);
    expect(both.output).toBe('webhooks:failed: --replay and --discard cannot be given together; see --help\n');
  });
});
