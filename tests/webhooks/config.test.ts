import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { ConfigError } from '../../server/env/config-error.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('the webhook configuration', () => {
  it('is off by default, with the documented retry timing', () => {
    expect(loadConfig({}).webhooks).toStrictEqual({
      urls: [],
      changeUrls: [],
      secret: undefined,
      retryBaseMs: 5_000,
      maxAttempts: 10,
      timeoutMs: 5_000,
      changeQueueLimit: 1_000,
    });
  });

  it('reads WEBHOOK_CHANGE_URLS, apart from WEBHOOK_URLS', () => {
    const { webhooks } = loadConfig({
      WEBHOOK_CHANGE_URLS: ' https://a.example/changes , http://127.0.0.1:9000/c?key=1 ',
      WEBHOOK_SECRET: SECRET,
    });
    expect(webhooks.changeUrls).toStrictEqual(['https://a.example/changes', 'http://127.0.0.1:9000/c?key=1']);
    expect(webhooks.urls).toStrictEqual([]);
  });

  it('reads every variable', () => {
    const { webhooks } = loadConfig({
      WEBHOOK_URLS: ' https://a.example/hook , http://127.0.0.1:9000/x?key=1 ',
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_RETRY_BASE_MS: '250',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_CHANGE_QUEUE_LIMIT: '50',
    });
    expect(webhooks).toMatchObject({
      urls: ['https://a.example/hook', 'http://127.0.0.1:9000/x?key=1'],
      retryBaseMs: 250,
      maxAttempts: 3,
      timeoutMs: 1500,
      changeQueueLimit: 50,
    });
    expect(webhooks.secret?.keys).toStrictEqual([Buffer.alloc(32, 7)]);
  });

  it('reads several space-separated secrets, in order, for rotation', () => {
    const next = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    expect(loadConfig({ WEBHOOK_SECRET: ` ${SECRET}  ${next} ` }).webhooks.secret?.keys).toStrictEqual([
      Buffer.alloc(32, 7),
      Buffer.alloc(24, 9),
    ]);
  });

  it('names the one of several secrets that is malformed, without echoing it', () => {
    const refusal = () => loadConfig({ WEBHOOK_SECRET: `${SECRET} whsec_c2hvcnQ=` });
    expect(refusal).toThrow(/WEBHOOK_SECRET: secret 2 must be whsec_ followed by the base64/);
    expect(refusal).not.toThrow('c2hvcnQ');
  });

  it('keeps the secret out of anything printed', () => {
    const config = loadConfig({ WEBHOOK_SECRET: SECRET });
    const encoded = SECRET.slice('whsec_'.length);
    expect(JSON.stringify(config)).not.toContain(encoded);
    expect(JSON.stringify(config)).toContain('[webhook secret]');
    expect(inspect(config, { depth: 10 })).not.toContain(encoded);
    expect(inspect(config, { depth: 10 })).toContain('[webhook secret]');
  });

  it.each([
    ['without whsec_', Buffer.alloc(32, 7).toString('base64')],
    ['not base64', 'whsec_not*base64!'],
    ['unpadded base64', `whsec_${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`],
    ['too short a key (16 bytes)', `whsec_${Buffer.alloc(16, 7).toString('base64')}`],
    ['too long a key (65 bytes)', `whsec_${Buffer.alloc(65, 7).toString('base64')}`],
    ['base64url', `whsec_${Buffer.alloc(33, 0xfb).toString('base64url')}`],
  ])('refuses a WEBHOOK_SECRET %s, naming it and not echoing it', (_case, secret) => {
    const refusal = () => loadConfig({ WEBHOOK_URLS: 'https://a.example/hook', WEBHOOK_SECRET: secret });
    expect(refusal).toThrow(ConfigError);
    expect(refusal).toThrow(/WEBHOOK_SECRET: must be whsec_ followed by the base64/);
    expect(refusal).not.toThrow(secret);
  });

  it.each([
    [{ WEBHOOK_URLS: 'https://a.example/hook' }, 'WEBHOOK_SECRET must be set when WEBHOOK_URLS is set'],
    [{ WEBHOOK_CHANGE_URLS: 'https://a.example/changes' }, 'WEBHOOK_SECRET must be set when WEBHOOK_CHANGE_URLS is set'],
    [{ WEBHOOK_CHANGE_URLS: 'ftp://a.example/c', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_CHANGE_URLS: URL 1 is not an http:// or https:// URL'],
    [{ WEBHOOK_CHANGE_URLS: 'https://a.example,https://a.example', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_CHANGE_URLS: a URL is listed twice'],
    [
      { WEBHOOK_CHANGE_URLS: 'https://user:pw@b.example/hook', WEBHOOK_SECRET: SECRET },
      'WEBHOOK_CHANGE_URLS: URL 1 carries credentials (user:password@)',
    ],
    [{ WEBHOOK_URLS: 'ftp://a.example/hook', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_URLS: URL 1 is not an http:// or https:// URL'],
    [{ WEBHOOK_URLS: 'https://a.example,not a url', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_URLS: URL 2 is not an http:// or https:// URL'],
    [{ WEBHOOK_URLS: 'https://a.example,https://a.example', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_URLS: a URL is listed twice'],
    [
      { WEBHOOK_URLS: 'https://a.example,https://user:pw@b.example/hook', WEBHOOK_SECRET: SECRET },
      'WEBHOOK_URLS: URL 2 carries credentials (user:password@)',
    ],
    [{ WEBHOOK_URLS: 'https://token@a.example/hook', WEBHOOK_SECRET: SECRET }, 'WEBHOOK_URLS: URL 1 carries credentials (user:password@)'],
    [{ WEBHOOK_RETRY_BASE_MS: '0' }, 'WEBHOOK_RETRY_BASE_MS'],
    [{ WEBHOOK_RETRY_BASE_MS: '3600001' }, 'WEBHOOK_RETRY_BASE_MS: must be at most 3600000'],
    [{ WEBHOOK_MAX_ATTEMPTS: 'ten' }, 'WEBHOOK_MAX_ATTEMPTS'],
    [{ WEBHOOK_TIMEOUT_MS: '-5' }, 'WEBHOOK_TIMEOUT_MS'],
    [{ WEBHOOK_CHANGE_QUEUE_LIMIT: '0' }, 'WEBHOOK_CHANGE_QUEUE_LIMIT: must be a whole number above 0'],
    [{ WEBHOOK_CHANGE_QUEUE_LIMIT: '1.5' }, 'WEBHOOK_CHANGE_QUEUE_LIMIT: must be a whole number above 0'],
    [{ WEBHOOK_CHANGE_QUEUE_LIMIT: 'many' }, 'WEBHOOK_CHANGE_QUEUE_LIMIT: must be a whole number above 0'],
    [{ WEBHOOK_CHANGE_QUEUE_LIMIT: '10001' }, 'WEBHOOK_CHANGE_QUEUE_LIMIT: must be at most 10000'],
  ])('refuses %o with a message naming the variable', (env, expected) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(expected);
  });
});
