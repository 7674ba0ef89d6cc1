// Retries of the new-plant webhook: what counts as delivered, what is retried and when, and what
// is given up on, logged and left in MongoDB to find.
import { describe, expect, it } from 'vitest';
import { freePort } from '@plant-store/service-launcher';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { captureLogs } from '../helpers/log-capture.js';
import { postPlant } from '../helpers/app.js';
import { allIn, waitForEvent, webhookEnv, useWebhookReceiver } from '../helpers/webhooks.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);
let logs: ReturnType<typeof captureLogs>;

async function appSendingTo(urls: string[], env: Record<string, string> = {}): ReturnType<typeof hooks.startApp> {
  logs = captureLogs();
  return hooks.startApp({ env: webhookEnv(urls, SECRET, { LOG_LEVEL: 'warn', ...env }), overrides: { logStream: logs.stream } });
}

const gapsMs = () =>
  hooks.receiver.received.slice(1).map((request, index) => request.receivedAt - (hooks.receiver.received[index]?.receivedAt ?? 0));

describe('a receiver that fails', () => {
  it('twice with 500, then answers 200: delivered on the third attempt, with the same webhook-id each time', async () => {
    hooks.receiver.respond = (_request, attempt) => (attempt <= 2 ? 500 : 200);
    const { app, plants } = await appSendingTo([hooks.receiver.url()]);
    await postPlant(app, { id: 1, name: 'Fern' });
    const event = await waitForEvent(plants, 1, allIn('delivered'));

    expect(hooks.receiver.received).toHaveLength(3);
    expect(new Set(hooks.receiver.received.map((request) => request.id)).size).toBe(1);
    expect(hooks.receiver.received.every((request) => request.verifyError === undefined)).toBe(true);
    // WEBHOOK_RETRY_BASE_MS=50, doubling, with jitter down to half: at least 25 ms, then 50 ms.
    const [first = 0, second = 0] = gapsMs();
    expect(first).toBeGreaterThanOrEqual(25);
    expect(second).toBeGreaterThanOrEqual(50);
    expect(event.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 3, lastError: 'HTTP 500' });
    expect(event.dueAt).toBeUndefined();
    // Each failed attempt is logged as a warning.
    expect(logs.lines().filter((line) => line.msg === 'webhook attempt failed; it will be retried')).toHaveLength(2);
  });

  it('that never answers: each attempt times out after WEBHOOK_TIMEOUT_MS and is retried; after the last the event is failed, logged and queryable', async () => {
    hooks.receiver.respond = () => 'hang';
    const { app, plants } = await appSendingTo([hooks.receiver.url()], { WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_MAX_ATTEMPTS: '3' });
    await postPlant(app, { id: 2, name: 'Ivy' });
    const event = await waitForEvent(plants, 2, allIn('failed'));

    expect(hooks.receiver.received).toHaveLength(3);
    expect(new Set(hooks.receiver.received.map((request) => request.id)).size).toBe(1);
    for (const gap of gapsMs()) expect(gap).toBeGreaterThanOrEqual(300);
    const [delivery] = event.deliveries;
    expect(delivery).toMatchObject({ state: 'failed', attempts: 3, lastError: 'no answer within 300 ms', url: hooks.receiver.url() });
    expect(delivery?.failedAt).toBeInstanceOf(Date);
    expect(event.dueAt).toBeUndefined();

    const failedLines = logs.lines().filter((line) => line.msg === 'webhook delivery failed: no further attempts');
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]).toMatchObject({
      level: 50,
      webhookId: delivery?.id,
      url: hooks.receiver.url(),
      plantId: '2',
      attempts: 3,
      lastError: 'no answer within 300 ms',
    });
    // The README's query for failed events finds it.
    const failed = await plants.find({ 'webhook.deliveries.state': 'failed' }).toArray();
    expect(failed.map((document) => Number(document._id))).toStrictEqual([2]);
  });

  it('with a refused connection: retried, then failed with the error', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    const { app, plants } = await appSendingTo([nobody], { WEBHOOK_MAX_ATTEMPTS: '3' });
    await postPlant(app, { id: 3, name: 'Oak' });
    const event = await waitForEvent(plants, 3, allIn('failed'));
    expect(event.deliveries[0]).toMatchObject({ attempts: 3, lastError: expect.stringMatching(/^ECONNREFUSED/) as unknown });
  });

  it('with a redirect: not followed, counted as a failure and retried', async () => {
    hooks.receiver.respond = (_request, attempt) =>
      attempt === 1 ? { status: 302, headers: { location: hooks.receiver.url('/elsewhere') } } : 200;
    const { app, plants } = await appSendingTo([hooks.receiver.url('/hook')]);
    await postPlant(app, { id: 4, name: 'Elm' });
    const event = await waitForEvent(plants, 4, allIn('delivered'));
    expect(hooks.receiver.received.map((request) => request.path)).toStrictEqual(['/hook', '/hook']);
    expect(event.deliveries[0]).toMatchObject({ attempts: 2, lastError: 'HTTP 302 (redirects are not followed)' });
  });

  it('with Retry-After: the next attempt waits as long as asked', async () => {
    hooks.receiver.respond = (_request, attempt) => (attempt === 1 ? { status: 503, headers: { 'retry-after': '1' } } : 204);
    const { app, plants } = await appSendingTo([hooks.receiver.url()]);
    await postPlant(app, { id: 5, name: 'Ash' });
    await waitForEvent(plants, 5, allIn('delivered'));
    expect(hooks.receiver.received).toHaveLength(2);
    // Without it the retry would come after 25–50 ms.
    expect(gapsMs()[0]).toBeGreaterThanOrEqual(1_000);
  });

  it('with 410 Gone: no further attempt, the event is failed at once', async () => {
    hooks.receiver.respond = () => 410;
    const { app, plants } = await appSendingTo([hooks.receiver.url()]);
    await postPlant(app, { id: 6, name: 'Yew' });
    const event = await waitForEvent(plants, 6, allIn('failed'));
    expect(event.deliveries[0]).toMatchObject({ attempts: 1, lastError: 'HTTP 410 Gone' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.receiver.received).toHaveLength(1);
  });

  it('on one URL only: the other URL gets its event once, the failing one keeps being retried', async () => {
    hooks.receiver.respond = (request, attempt) => (request.path === '/bad' && attempt <= 3 ? 500 : 200);
    const { app, plants } = await appSendingTo([hooks.receiver.url('/good'), hooks.receiver.url('/bad')]);
    await postPlant(app, { id: 7, name: 'Fir' });
    const event = await waitForEvent(plants, 7, allIn('delivered'));
    expect(hooks.receiver.received.filter((request) => request.path === '/good')).toHaveLength(1);
    expect(hooks.receiver.received.filter((request) => request.path === '/bad')).toHaveLength(4);
    expect(event.deliveries.map((delivery) => delivery.attempts)).toStrictEqual([1, 4]);
  });
});
