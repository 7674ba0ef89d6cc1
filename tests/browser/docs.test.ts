// /docs in a real browser: Debian's headless Chromium, driven by playwright-core, against the
// real app listening on a free port with MongoDB. A reader opens the docs, authorizes with a
// token, creates a plant with "Try it out", and then sends a bad body and sees the Error.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { ConnectionString } from 'mongodb-connection-string-url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CREATE_PLANT_EXAMPLES } from '../../schemas/examples.js';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { uniqueDbName } from '../helpers/mongo.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOT = 'test-artifacts/docs.png';
const skipBrowserTests = process.env.SKIP_BROWSER_TESTS === '1';
const chromiumMissing = !existsSync(CHROMIUM);

// Without Chromium this fails, saying how to get it, rather than passing by running nothing;
// SKIP_BROWSER_TESTS=1 reports the browser tests as skipped instead.
if (chromiumMissing && !skipBrowserTests) {
  it('finds Chromium to run the browser tests in', () => {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM}, and it is not there. ` +
        'Install it with: sudo apt-get update && sudo apt-get install -y chromium ' +
        '(or run with SKIP_BROWSER_TESTS=1 to skip these tests).',
    );
  });
}

describe.skipIf(skipBrowserTests || chromiumMissing)('the API docs at /docs, in Chromium', () => {
  let t: TestApp;
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
    t = await startTestApp({ env: { MONGODB_URI: mongoUri.toString() } });
    cleanups.push(() => t.close());
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
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
    // POST /plants, and the new-plant webhook in Swagger UI's Webhooks section.
    await expect.poll(() => page.locator('.opblock-post').count()).toBe(2);
    await expect.poll(() => page.locator('.webhooks .opblock-post', { hasText: '/plant/webhook' }).count()).toBe(1);
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
    await expect.poll(() => t.plants.countDocuments({ name: 'Calathea' })).toBe(1);

    await saveScreenshot(page, operation);
  });

  it('shows the Error body when the request is invalid', async () => {
    const operation = page.locator('.opblock-post', { hasText: '/plants' });
    const invalid = CREATE_PLANT_EXAMPLES[400];
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

async function openOperation(page: Page, method: string, path: string): Promise<Locator> {
  const operation = page.locator(`.opblock-${method.toLowerCase()}`, { hasText: path });
  await operation.locator('.opblock-summary-control').click();
  return operation;
}

/** Puts `body` in the request body editor, executes, and reads the live response as rendered. */
async function execute(operation: Locator, body: unknown): Promise<{ status: string; body: unknown }> {
  const live = operation.locator('.live-responses-table tr.response');
  // A previous answer stays on screen until cleared; clear it so the one read is this one's.
  const clear = operation.getByRole('button', { name: 'Clear' });
  if (await clear.isVisible()) await clear.click();
  await live.waitFor({ state: 'detached' });

  await operation.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = (await live.locator('.response-col_status').textContent())?.trim() ?? '';
  const rendered = await live.locator('.response-col_description .highlight-code pre').textContent();
  return { status, body: JSON.parse(rendered ?? '') as unknown };
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
