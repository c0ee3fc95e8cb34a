// The API reference at /docs in a real browser: it renders the contract with nothing from another host,
// shows the deprecation and beta markings, and its "Try it" calls this server with a key.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadContract, operationsOf } from '../../src/contract/document.js';
import { launchChromium } from '../support/browser.js';
import { useServer } from '../support/server.js';

const t = useServer();
const operations = operationsOf(loadContract().document);
const BROWSER_TEST_TIMEOUT = 60_000;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

interface Visit {
  page: Page;
  /** Every URL the page asked for, the document included. */
  requested: string[];
  /** Uncaught exceptions and console errors: a request the Content-Security-Policy refused is one. */
  errors: string[];
}

let context: BrowserContext;
let visit: Visit;
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  visit = { page, requested: [], errors: [] };
  context.on('request', (request) => visit.requested.push(request.url()));
  page.on('pageerror', (error) => visit.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') visit.errors.push(message.text());
  });
  await page.goto(`${t.server.baseUrl}/docs`);
});
afterEach(() => context.close());

function sidebarItem(page: Page, method: string, path: string) {
  return page.locator(`[data-sidebar-id$="/${method.toUpperCase()}${path}"]`);
}

function section(page: Page, method: string, path: string) {
  return page.locator(`section[id$="/${method.toUpperCase()}${path}"]`);
}

function operation(operationId: string) {
  const found = operations.find((each) => each.operationId === operationId);
  if (!found) throw new Error(`no ${operationId} in openapi.yaml`);
  return found;
}

describe('the API reference at /docs', () => {
  it(
    'lists every operation of the contract and loads nothing from another origin',
    async () => {
      const { page } = visit;
      expect(operations).toHaveLength(4);
      for (const { method, path, definition } of operations) {
        await sidebarItem(page, method, path)
          .filter({ hasText: definition.summary ?? '' })
          .waitFor();
      }
      // Scalar renders sections as they come into view; the API's introduction comes first.
      await sidebarItem(page, 'get', '/store/orders').locator('a').click();
      await section(page, 'get', '/store/orders').waitFor();

      const origin = new URL(t.server.baseUrl).origin;
      const elsewhere = visit.requested.filter(
        (url) => !url.startsWith('data:') && new URL(url).origin !== origin,
      );
      expect(elsewhere).toEqual([]);
      expect(visit.requested).toContain(`${origin}/v1/openapi.json`);
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'marks getPetById deprecated with its sunset, and sendMessage as beta',
    async () => {
      const { page } = visit;
      const getPetById = operation('getPetById');
      const sunset = (getPetById.definition as { 'x-sunset'?: string })['x-sunset'];
      expect(sunset).toBeDefined();

      const deprecatedItem = sidebarItem(page, getPetById.method, getPetById.path);
      // Scalar strikes a deprecated operation through.
      await deprecatedItem.locator('.line-through').waitFor();
      await deprecatedItem.locator('a').click();
      const deprecatedSection = section(page, getPetById.method, getPetById.path);
      // The badge reads "deprecated", capitalized by CSS.
      await deprecatedSection.getByText(/^deprecated$/i).waitFor();
      await deprecatedSection.getByText(`sunset at ${sunset}`).waitFor();

      const sendMessage = operation('sendMessage');
      await sidebarItem(page, sendMessage.method, sendMessage.path).locator('a').click();
      await section(page, sendMessage.method, sendMessage.path)
        .getByText(/^beta$/i)
        .waitFor();

      // The other operations carry neither marking.
      const listOrders = section(page, 'get', '/store/orders');
      await sidebarItem(page, 'get', '/store/orders').locator('a').click();
      await listOrders.waitFor();
      expect(await listOrders.getByText(/^(deprecated|beta)$/i).count()).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'shows the Idempotency-Key header with the length its description gives: 1 to 255 characters',
    async () => {
      const { page } = visit;
      const sendMessage = operation('sendMessage');
      await sidebarItem(page, sendMessage.method, sendMessage.path).locator('a').click();
      const shown = section(page, sendMessage.method, sendMessage.path);
      await shown.getByText('Idempotency-Key', { exact: true }).first().waitFor();
      const text = await shown.innerText();
      const header = text.slice(text.indexOf('Idempotency-Key'), text.indexOf('\nBody'));
      expect(header).toContain('1 to 255');
      // Any length the page states beside the description is the same one.
      const lengths = [...header.matchAll(/(?:max|maximum)\s*length:?\s*(\d+)/gi)].map((match) => match[1]);
      expect(lengths.filter((length) => length !== '255')).toEqual([]);
      expect(header).not.toContain('257');
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'sends listOrders to this server from its own "Try it" with a bearer key and shows the 200',
    async () => {
      const { page } = visit;
      const order = await t.server.store.orders.addOrder({ petId: 7, quantity: 2 });
      await sidebarItem(page, 'get', '/store/orders').locator('a').click();
      await section(page, 'get', '/store/orders').getByRole('button', { name: 'Test Request' }).click();

      const client = page.getByRole('dialog');
      await client.getByPlaceholder('Token').fill(t.key);
      const answered = page.waitForResponse(
        (response) => response.url() === `${t.server.baseUrl}/v1/store/orders`,
      );
      await client.getByRole('button', { name: /^Send/ }).filter({ visible: true }).first().click();
      const response = await answered;

      expect(response.request().headers().authorization).toBe(`Bearer ${t.key}`);
      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual([expect.objectContaining({ id: order.id, petId: 7 })]);
      await client.getByText('200 OK').waitFor();
      mkdirSync('test-artifacts', { recursive: true });
      // Finite transitions (the response panel fades in) are finished first, so the picture is the settled page.
      await page.screenshot({ path: 'test-artifacts/docs.png', animations: 'disabled' });
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
