// The whole service process at LOG_LEVEL=trace, fed good and bad tokens every way in: no token in its output.
import { afterAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { postRaw } from '../helpers/http-post.js';
import { startService } from '@plant-store/service-launcher';
import { testMongoUri } from '../helpers/app.js';

const GOOD = ['Sx9-good-token-A1b2C3d4', 'Sx9-other-good-token-Z9'];
const BAD = ['Sx9-bad-token-Q7w8E9r0', 'Sx9-good-token-A1b2C3d', 'Sx9-bad-token-with-tail'];
const mongoUri = testMongoUri();

afterAll(async () => {
  const client = await new MongoClient(mongoUri).connect();
  await client.db().dropDatabase();
  await client.close();
});

describe('tokens in the logs of the service process', () => {
  it('none appears at LOG_LEVEL=trace, for accepted, refused and malformed credentials on REST and tRPC', async () => {
    const service = await startService({ MONGODB_URI: mongoUri, API_TOKENS: GOOD.join(','), LOG_LEVEL: 'trace', AUTH_FAILURE_LIMIT: '5' });
    const authorizations = [
      ...[...GOOD, ...BAD].map((token) => `Bearer ${token}`),
      `bearer ${GOOD[0] ?? ''}`,
      `Basic ${Buffer.from(`user:${BAD[0] ?? ''}`).toString('base64')}`,
      `Basic user:${BAD[0] ?? ''}`,
      `Bearer ${GOOD[0] ?? ''} ${BAD[0] ?? ''}`,
      BAD[2] ?? '',
    ];
    let id = 1;
    const statuses = new Set<number | undefined>();
    for (const authorization of authorizations) {
      for (const [path, body] of [
        ['/plants', JSON.stringify({ id: id++, name: 'Fern' })],
        ['/plants', '{"id": 1, "name": '],
        ['/trpc/createPlant', JSON.stringify({ id: id++, name: 'Fern' })],
        ['/plants', JSON.stringify({ id: 'x', name: authorization })],
      ] as const) {
        const outcome = await postRaw(`${service.url}${path}`, body, { headers: { 'content-type': 'application/json', authorization } });
        statuses.add(outcome.status);
      }
    }
    // Every kind of answer was logged: accepted, refused, invalid, rate-limited.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400, 401, 429]));
    expect(await service.stop('SIGTERM')).toBe(0);

    const output = service.output();
    // One line per request at least, so there was plenty of logging to leak into.
    expect(output.match(/"msg":"request completed"/g)?.length).toBeGreaterThanOrEqual(authorizations.length * 4);
    for (const token of [...GOOD, ...BAD]) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(Buffer.from(`user:${token}`).toString('base64'));
    }
  });
});
