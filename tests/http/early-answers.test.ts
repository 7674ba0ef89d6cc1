// A request answered before its body came (a refused token, no such route) gets that one answer, whatever the rest of
// its body turns out to be; a body that arrives whole lets the connection go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { openRawSocket } from '../helpers/raw-socket.js';

let testApp: TestApp;
let url: string;
beforeAll(async () => {
  testApp = await startTestApp();
  url = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await testApp.close();
});

const BROKEN_CHUNKS = 'content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
const statusLines = (data: string) => data.match(/HTTP\/1\.1 \d{3}/g) ?? [];

describe('an answer given before the body came', () => {
  it.each([
    ['a refused token', 'POST /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer not-a-token\r\n', 'HTTP/1.1 401'],
    ['no such route', `POST /nothing-here HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${TEST_TOKEN}\r\n`, 'HTTP/1.1 404'],
  ])('for %s is the only answer, though the rest of the body is not HTTP', async (_case, head, status) => {
    const socket = await openRawSocket(url);
    socket.write(head + BROKEN_CHUNKS);
    const { data } = await socket.closed;
    expect(statusLines(data)).toStrictEqual([status]);
  });

  it('lets a connection whose body arrives whole go on to its next request', async () => {
    const socket = await openRawSocket(url);
    socket.write(
      'POST /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer not-a-token\r\ncontent-type: application/json\r\n' +
        'content-length: 2\r\n\r\n{}GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n',
    );
    const { data } = await socket.closed;
    expect(statusLines(data)).toStrictEqual(['HTTP/1.1 401', 'HTTP/1.1 200']);
  });

  it('with the token valid, the broken body itself is answered 400', async () => {
    const socket = await openRawSocket(url);
    socket.write(`POST /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${TEST_TOKEN}\r\n${BROKEN_CHUNKS}`);
    const { data } = await socket.closed;
    expect(statusLines(data)).toStrictEqual(['HTTP/1.1 400']);
  });
});
