// No secret reaches the logs of the service process, at trace level, in either mode: tokens in
// requests Node's HTTP parser refuses, tokens in query strings, webhook URLs' tokens; webhook
// URLs with credentials are refused at start-up.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { spawnService } from '@plant-store/service-launcher';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import { freePort } from '@plant-store/service-launcher';
import { HOSTILE_TOKEN, leaksIn, rawRequest, useHostileService } from '../helpers/hostile-service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const BAD_TOKEN = 'hostile-Wrong-Token-3Rt8Yu1Io6';
/** The query parameter names that carry secrets, as clients and identity providers name them. */
const SECRET_PARAMETERS = [
  'access_token',
  'token',
  'api_key',
  'apikey',
  'key',
  'secret',
  'password',
  'signature',
  'code',
  'client_secret',
  'id_token',
  'refresh_token',
  'X-Amz-Signature',
  'sig',
  'auth',
];
const PATHS = ['/plants', '/plants/1', '/healthz', '/readyz', '/nope', '/trpc/listPlants', '/openapi.json'];

/** A value no log line could hold by chance. */
const secretValue = fc.stringMatching(/^[A-Za-z0-9]{18,30}$/).map((text) => `Qs${text}`);
/** A secret parameter's name as a client may spell it: any casing, perhaps a character percent-encoded. */
const secretName = fc.tuple(fc.constantFrom(...SECRET_PARAMETERS), fc.boolean(), fc.nat()).map(([name, upper, position]) => {
  const cased = upper ? name.toUpperCase() : name;
  const index = position % cased.length;
  return position % 3 === 0
    ? `${cased.slice(0, index)}%${cased.charCodeAt(index).toString(16).toUpperCase()}${cased.slice(index + 1)}`
    : cased;
});

describe.each(['on', 'off'])('the service process with FAST_PATH=%s, logging at trace', (fastPath) => {
  let receiver: WebhookReceiver;
  let closedPort: number;
  const secrets: string[] = [HOSTILE_TOKEN, BAD_TOKEN, WEBHOOK_SECRET.slice('whsec_'.length)];
  const webhookQueryToken = `Wh${fastPath}QueryToken4Kd9Lx2`;
  const webhookQuerySignature = `Wh${fastPath}QuerySig8Nb3Vc7`;
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret: WEBHOOK_SECRET });
    // Fails once, then takes it: a warn line and a debug line, each naming the URL.
    receiver.respond = (_request, attempt) => (attempt === 1 ? 500 : 200);
    closedPort = await freePort();
  });
  afterAll(async () => {
    await receiver.close();
  });
  const service = useHostileService(() => ({
    FAST_PATH: fastPath,
    WEBHOOK_SECRET,
    WEBHOOK_URLS: `${receiver.url('/hook')}?token=${webhookQueryToken},http://127.0.0.1:${closedPort}/gone?sig=${webhookQuerySignature}`,
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_MAX_ATTEMPTS: '2',
  }));
  const expectNoLeaks = () => {
    expect(leaksIn(service.output(), secrets)).toStrictEqual([]);
  };

  it("requests that Node's HTTP parser refuses: an unknown method, headers too large, a forbidden byte, a broken chunk", async () => {
    for (const token of [HOSTILE_TOKEN, BAD_TOKEN]) {
      const authorization = `Bearer ${token}`;
      const refused = [
        [`FOO /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\n\r\n`, 501],
        [`GET /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        [`GET /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\nx-odd: a\x7fb\r\n\r\n`, 400],
        // A refused token is answered before the body is read, and is then the only answer.
        [
          `POST /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
          token === BAD_TOKEN ? 401 : 400,
        ],
        [`GET /plants?access_token=${token} HTTP/1.1\r\nhost: localhost\r\nx-odd: \x01\r\n\r\n`, 400],
      ] as const;
      for (const [request, status] of refused) {
        const answer = await service.exchange(Buffer.from(request, 'latin1'));
        expect(answer.status).toBe(status);
        expect(JSON.parse(answer.body)).toMatchObject({ error: status });
      }
    }
    await service.checkAfterBatch([]);
    // They were logged (at debug), and with nothing of the request: the lines reach the pipe a little after the answers.
    await expect.poll(() => service.output().match(/"msg":"client error"/g)?.length ?? 0).toBeGreaterThanOrEqual(10);
    expectNoLeaks();
  });

  it("tokens in query strings: the request line's path shows them redacted", async () => {
    const sent: string[] = [];
    for (const [index, name] of SECRET_PARAMETERS.entries()) {
      const value = `Qs${fastPath}Fixed${index}Value7Hj2`;
      sent.push(value);
      const path = PATHS[index % PATHS.length] ?? '/plants';
      await service.exchange(rawRequest('GET', `${path}?limit=2&${name}=${value}`, { authorization: `Bearer ${HOSTILE_TOKEN}` }));
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom('GET', 'HEAD', 'DELETE', 'POST'),
        secretName,
        secretValue,
        fc.boolean(),
        async (path, method, name, value, withToken) => {
          sent.push(value);
          const headers = {
            ...(withToken && { authorization: `Bearer ${HOSTILE_TOKEN}` }),
            ...(method === 'POST' && { 'content-type': 'application/json' }),
          };
          const answer = await service.exchange(
            rawRequest(method, `${path}?${name}=${value}&after=1`, headers, method === 'POST' ? '{}' : undefined),
            { head: method === 'HEAD' },
          );
          expect(answer.status).toBeLessThan(500);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
    secrets.push(...sent);
    await service.checkAfterBatch([]);
    // Each log line is written once its answer has gone out, so the last may come just after it.
    await vi.waitFor(
      () => {
        const lines = service
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request completed"'));
        expect(lines.filter((line) => line.includes('=[REDACTED]')).length).toBeGreaterThanOrEqual(sent.length);
      },
      { timeout: 5_000 },
    );
    expectNoLeaks();
  });

  it('webhook URLs: logged by origin and path, without their query', async () => {
    secrets.push(webhookQueryToken, webhookQuerySignature);
    const created = await service.exchange(
      rawRequest(
        'POST',
        '/plants',
        { authorization: `Bearer ${HOSTILE_TOKEN}`, 'content-type': 'application/json' },
        '{"id":1,"name":"Announced"}',
      ),
    );
    expect(created.status).toBe(200);
    // The receiver's URL got its token (it is sent), failing once then taking it.
    await receiver.waitFor((received) => received.filter((request) => request.path === `/hook?token=${webhookQueryToken}`).length >= 2);
    const gaveUp = /"msg":"webhook delivery failed: no further attempts"/;
    for (let waited = 0; !gaveUp.test(service.output()) && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const output = service.output();
    expect(output).toMatch(gaveUp);
    expect(output).toContain(`"url":"http://127.0.0.1:${closedPort}/gone"`);
    expect(output).toContain(`"url":"${receiver.url('/hook')}"`);
    await service.checkAfterBatch([1]);
    expectNoLeaks();
  });
});

describe('a webhook URL with credentials', () => {
  it('stops start-up with a message naming WEBHOOK_URLS, without echoing the credentials', async () => {
    const password = 'CredSecret-5Tg7Hn';
    const spawned = spawnService({
      PORT: '0',
      MONGODB_URI: testMongoUri(),
      API_TOKENS: HOSTILE_TOKEN,
      WEBHOOK_SECRET,
      WEBHOOK_URLS: `https://a.example/ok,https://hook-user:${password}@b.example/hook`,
    });
    const started = new Promise<'still running'>((resolve) => {
      setTimeout(() => {
        resolve('still running');
      }, 10_000);
    });
    const outcome = await Promise.race([spawned.exited(), started]);
    spawned.child.kill('SIGKILL');
    expect(outcome).toBe(1);
    expect(spawned.output()).toContain('WEBHOOK_URLS: URL 2 carries credentials (user:password@)');
    expect(leaksIn(spawned.output(), [password, 'hook-user'])).toStrictEqual([]);
  });
});
