// Conditional updates against the built service as a process, over real sockets: of writers racing
// with the same If-Match exactly one wins, and clients that read, change and retry on 412 lose no
// update. With FAST_PATH from the test run's environment, so both adapters are held to it.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type ServiceProcess } from '@plant-store/service-launcher';
import { testMongoUri } from '../helpers/app.js';

const TOKEN = 'conditional-updates-token';
const WRITERS = 20;

let service: ServiceProcess;
// One socket per request, so the writers really reach the service together.
const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
beforeAll(async () => {
  service = await startService({
    MONGODB_URI: testMongoUri(),
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'warn',
    ...(process.env.FAST_PATH && { FAST_PATH: process.env.FAST_PATH }),
  });
});
afterAll(async () => {
  agent.destroy();
  await service.stop();
});

interface Answer {
  status: number;
  etag: string | undefined;
  body: string;
}

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      new URL(path, service.url),
      { method, agent, headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const etag = response.headers.etag;
          resolve({ status: response.statusCode ?? 0, etag, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const patch = (path: string, change: object, ifMatch: string) =>
  send('PATCH', path, { 'content-type': 'application/merge-patch+json', 'if-match': ifMatch }, JSON.stringify(change));

describe('conditional updates, the service as a process', () => {
  it(`of ${WRITERS} concurrent PATCHes with the same If-Match, exactly one answers 200 and ${WRITERS - 1} answer 412`, async () => {
    const created = await send('POST', '/plants', { 'content-type': 'application/json' }, '{"id":9007199254740993,"name":"Monstera"}');
    expect(created.status).toBe(200);
    const etag = created.etag ?? '';
    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, index) => patch('/plants/9007199254740993', { name: `writer ${index}` }, etag)),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 412)).toHaveLength(WRITERS - 1);
    for (const lost of answers.filter((answer) => answer.status === 412)) expect(JSON.parse(lost.body)).toMatchObject({ error: 412 });
    const read = await send('GET', '/plants/9007199254740993');
    expect(read.body).toBe(won[0]?.body);
    expect(read.etag).toBe(won[0]?.etag);
  });

  it('clients that read, change and retry on 412 lose no update', async () => {
    expect((await send('POST', '/plants', { 'content-type': 'application/json' }, '{"id":1,"name":"0"}')).status).toBe(200);
    const CLIENTS = 5;
    const INCREMENTS = 8;
    let conflicts = 0;
    const client = async () => {
      for (let done = 0; done < INCREMENTS;) {
        const read = await send('GET', '/plants/1');
        const count = Number((JSON.parse(read.body) as { name: string }).name);
        const written = await patch('/plants/1', { name: String(count + 1) }, read.etag ?? '');
        if (written.status === 200) done += 1;
        else if (written.status === 412) conflicts += 1;
        else throw new Error(`unexpected ${written.status}: ${written.body}`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    expect(JSON.parse((await send('GET', '/plants/1')).body)).toEqual({ id: 1, name: String(CLIENTS * INCREMENTS) });
    // The race was real: some writes had to be retried.
    expect(conflicts).toBeGreaterThan(0);
  });
});
