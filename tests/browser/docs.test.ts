// /docs in a real browser: headless Chromium (findChromium says which one), driven by
// playwright-core, against the real app listening on a free port with MongoDB. A reader opens the docs,
// authorizes with a token, creates a plant with "Try it out", and then sends a bad body and sees the Error.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { ConnectionString } from 'mongodb-connection-string-url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exampleOf, moreRequestsOf } from '../helpers/operation-examples.js';
import { int64Json } from '../../schemas/int64-json.js';
import { postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { uniqueDbName } from '../helpers/mongo.js';
import { CHROMIUM_ARGS, findChromium } from '../helpers/find-chromium.js';

const SCREENSHOT = 'test-artifacts/docs.png';

describe('the API docs at /docs, in Chromium', () => {
  let testApp: TestApp;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const requestedUrls: string[] = [];
  const pageErrors: string[] = [];
  /** What beforeAll opened, closed in reverse, so a set-up that stops part-way still cleans up. */
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const mongoUri = new ConnectionString(inject('mongoUri'));
    mongoUri.pathname = `/${uniqueDbName('docs_browser')}`;
    testApp = await startTestApp({ env: { MONGODB_URI: mongoUri.toString() } });
    cleanups.push(() => testApp.close());
    await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;

    const found = await findChromium();
    try {
      browser = await chromium.launch({ executablePath: found.executablePath, args: CHROMIUM_ARGS, headless: true, env: found.env });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Chromium from ${found.source} (${found.executablePath}) did not start: ${reason}`);
    }
    cleanups.push(() => browser.close());
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Fail with Playwright's own message (what it waited for) well before the test times out.
    page.setDefaultTimeout(8_000);
    page.on('request', (request) => requestedUrls.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      // Chromium logs every 4xx answer as a console error; the 400 of POST /plants is expected.
      const { url } = message.location();
      if (message.type() === 'error' && url !== `${origin}/plants`) pageErrors.push(`${message.text()} at ${url}`);
    });
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('loads without a token, with every asset from this server', async () => {
    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    // POST /plants, and in Swagger UI's Webhooks section the new-plant webhook and the three change events.
    await expect.poll(() => page.locator('.opblock-post').count()).toBe(5);
    for (const webhook of ['/plant/webhook', 'plant.created', 'plant.updated', 'plant.deleted'])
      await expect.poll(() => page.locator('.webhooks .opblock-post', { hasText: webhook }).count()).toBe(1);
    await expect.poll(() => page.locator('.info .title').textContent()).toContain('Plant Store');
    expect(requestedUrls.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('creates a plant with "Try it out" after authorizing with a bearer token', async () => {
    await authorize(page, TEST_TOKEN);
    const operation = await openOperation(page, 'POST', '/plants');
    await operation.getByRole('button', { name: 'Try it out' }).click();

    const plant = { id: 7001, name: 'Calathea', tag: 'prayer plant' };
    const answer = await execute(operation, plant);
    expect(answer).toEqual({ status: '200', body: { name: 'Calathea', tag: 'prayer plant' } });
    await expect.poll(() => testApp.plants.countDocuments({ name: 'Calathea' })).toBe(1);

    await saveScreenshot(page, operation);
  });

  it('sends an id beyond 2^53 exactly, as typed in the body editor', async () => {
    const operation = page.locator('.opblock-post', { hasText: '/plants' });
    const bigId = moreRequestsOf('createPlant').bigId;
    expect(bigId).toBeDefined();
    const answer = await execute(operation, int64Json.stringify(bigId?.body));
    expect(answer).toEqual({ status: '200', body: bigId?.response });
    const stored = await testApp.plants.findOne({ name: 'Snowflake' }, { promoteLongs: false });
    expect(stored?._id.toString()).toBe('9007199254740993');
  });

  it('shows the answer of GET /plants/{id} with the id exact beyond 2^53, as the service wrote it', async () => {
    // The test before stored it through the page; stored here too (the same plant answers 200), whatever that test did.
    expect((await postPlant(testApp.app, int64Json.stringify(moreRequestsOf('createPlant').bigId?.body))).statusCode).toBe(200);
    const operation = await openOperation(page, 'GET', '/plants/{id}', '.opblock-summary-path');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="id"] input').fill('9007199254740993');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const live = operation.locator('.live-responses-table tr.response');
    expect((await live.locator('.response-col_status').textContent())?.trim()).toBe('200');
    // Read as text: JSON.parse here would round the id just as the page must not.
    const rendered = (await live.locator('.response-col_description .highlight-code pre').textContent()) ?? '';
    expect(rendered).toBe('{\n  "id": 9007199254740993,\n  "name": "Snowflake"\n}');
    expect(pageErrors).toEqual([]);
  });

  it('lists plants with "Try it out", a limit given as a parameter', async () => {
    const operation = await openOperation(page, 'GET', '/plants', '.opblock-summary-path');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="limit"] input').fill('1');
    const answer = await executeAsIs(operation);
    expect(answer.status).toBe('200');
    expect(answer.body).toEqual([{ id: 7001, name: 'Calathea', tag: 'prayer plant' }]);
  });

  it('changes a plant with "Try it out", as a merge patch: 200 with the plant as changed', async () => {
    const operation = await openOperation(page, 'PATCH', '/plants/{id}');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="id"] input').fill('7001');
    const answer = await execute(operation, { tag: 'zebra plant' });
    expect(answer).toEqual({ status: '200', body: { id: 7001, name: 'Calathea', tag: 'zebra plant' } });
    await expect.poll(async () => (await testApp.plants.findOne({ name: 'Calathea' }))?.tag).toBe('zebra plant');
    expect(pageErrors).toEqual([]);
  });

  it('deletes a plant with "Try it out": 204, and the plant is gone', async () => {
    const operation = await openOperation(page, 'DELETE', '/plants/{id}');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('tr[data-param-name="id"] input').fill('7001');
    const answer = await executeAsIs(operation);
    expect(answer.status).toBe('204');
    await expect.poll(() => testApp.plants.countDocuments({ name: 'Calathea' })).toBe(0);
  });

  it('shows a change event with its signature headers, its body schema and its examples', async () => {
    const event = page.locator('.webhooks .opblock-post', { hasText: 'plant.updated' });
    await event.locator('.opblock-summary-control').click();
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
      await expect.poll(() => event.locator(`tr[data-param-name="${header}"]`).count()).toBe(1);
    const examples = event.locator('.opblock-section-request-body select.examples-select-element');
    await expect
      .poll(() => examples.locator('option').allTextContents())
      .toEqual([
        'The tag was changed: the whole plant, as stored now',
        'The tag was removed: the plant comes without one',
        'An id beyond 2^53, written exactly',
      ]);
    const shown = event.locator('.opblock-section-request-body .highlight-code pre');
    expect(JSON.parse((await shown.textContent()) ?? '')).toEqual({
      type: 'plant.updated',
      timestamp: '2026-01-01T12:00:00.000Z',
      data: { id: 42, name: 'Monstera', tag: 'climbing' },
    });
    await event.locator('.opblock-section-request-body').getByRole('tab', { name: 'Schema' }).click();
    await expect.poll(() => event.locator('.opblock-section-request-body .model-box').first().textContent()).toContain('PlantUpdatedEvent');
    await event.locator('.opblock-summary-control').click();
    expect(pageErrors).toEqual([]);
  });

  it('shows the Error body when the request is invalid', async () => {
    const operation = page.locator('.opblock-post', { hasText: '/plants' });
    const invalid = exampleOf('createPlant', 400);
    const answer = await execute(operation, invalid.request.body);
    expect(answer).toEqual({ status: '400', body: invalid.response });
    expect(pageErrors).toEqual([]);
  });
});

async function authorize(page: Page, token: string): Promise<void> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.modal-ux');
  await expect.poll(() => dialog.locator('h4').textContent()).toContain('bearerAuth');
  await dialog.getByRole('textbox').fill(token);
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await dialog.getByRole('button', { name: 'Close' }).click();
}

async function openOperation(page: Page, method: string, path: string, exact?: string): Promise<Locator> {
  // GET /plants and GET /plants/{id} share a prefix: `exact` picks the block whose path is exactly `path`.
  const blocks = page.locator(`.opblock-${method.toLowerCase()}`);
  const operation =
    exact === undefined
      ? blocks.filter({ hasText: path })
      : blocks.filter({ has: page.locator(exact, { hasText: new RegExp(`^${path.replace(/[{}]/g, '\\$&')}$`) }) });
  await operation.locator('.opblock-summary-control').click();
  return operation;
}

/** Puts `body` (JSON text as it is, or a value to write as JSON) in the request body editor, executes, and reads the live response as rendered. */
async function execute(operation: Locator, body: unknown): Promise<{ status: string; body: unknown }> {
  const live = operation.locator('.live-responses-table tr.response');
  // A previous answer stays on screen until cleared; clear it so the one read is this one's.
  const clear = operation.getByRole('button', { name: 'Clear' });
  if (await clear.isVisible()) await clear.click();
  await live.waitFor({ state: 'detached' });

  await operation.locator('textarea.body-param__text').fill(typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = (await live.locator('.response-col_status').textContent())?.trim() ?? '';
  const rendered = await live.locator('.response-col_description .highlight-code pre').textContent();
  return { status, body: JSON.parse(rendered ?? '') as unknown };
}

/** Executes as the form stands and reads the live response (status, and the body when there is one). */
async function executeAsIs(operation: Locator): Promise<{ status: string; body: unknown }> {
  const live = operation.locator('.live-responses-table tr.response');
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = (await live.locator('.response-col_status').textContent())?.trim() ?? '';
  const rendered = live.locator('.response-col_description .highlight-code pre');
  const text = (await rendered.count()) > 0 ? await rendered.textContent() : null;
  return { status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** The operation, from its title down to the live response: what a reader sees after Execute. */
async function saveScreenshot(page: Page, operation: Locator): Promise<void> {
  const from = await operation.locator('.opblock-summary').boundingBox();
  const to = await operation.locator('.live-responses-table').boundingBox();
  if (!from || !to) throw new Error('the operation or its live response is not on the page');
  await mkdir('test-artifacts', { recursive: true });
  // Boxes are relative to the viewport; a full-page clip wants page coordinates.
  const scrollY = await page.evaluate<number>('window.scrollY');
  const clip = { x: 0, y: scrollY + from.y, width: 1280, height: to.y + to.height - from.y + 16 };
  await page.screenshot({ path: SCREENSHOT, fullPage: true, clip });
}
