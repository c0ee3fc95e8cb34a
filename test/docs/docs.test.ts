// The API reference at /docs in a real browser: it renders both contracts, v2 by default and v1 one choice
// away in Scalar's document selector, with nothing from another host, shows the deprecation and beta
// markings, and each version's "Try it" calls this server's root for that version with a key.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiVersion, loadContracts, operationsOf } from '../../src/contract/document.js';
import { BROWSER_STEP_TIMEOUT, BROWSER_TEST_TIMEOUT, launchChromium } from '../support/browser.js';
import { useServer } from '../support/server.js';

const t = useServer();
const contracts = loadContracts();
const operations = {
  v1: operationsOf(contracts.v1.document),
  v2: operationsOf(contracts.v2.document),
};

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
  context.setDefaultTimeout(BROWSER_STEP_TIMEOUT);
  const page = await context.newPage();
  visit = { page, requested: [], errors: [] };
  context.on('request', (request) => visit.requested.push(request.url()));
  page.on('pageerror', (error) => visit.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') visit.errors.push(message.text());
  });
  await page.goto(`${t.server.baseUrl}/docs`);
}, BROWSER_TEST_TIMEOUT);
afterEach(() => context.close());

/** Scalar prefixes each document's ids with its slug, the version. */
function sidebarItem(page: Page, version: ApiVersion, method: string, path: string) {
  return page.locator(`[data-sidebar-id^="${version}/"][data-sidebar-id$="/${method.toUpperCase()}${path}"]`);
}

function section(page: Page, version: ApiVersion, method: string, path: string) {
  return page.locator(`section[id^="${version}/"][id$="/${method.toUpperCase()}${path}"]`);
}

function operation(version: ApiVersion, operationId: string) {
  const found = operations[version].find((each) => each.operationId === operationId);
  if (!found) throw new Error(`no ${operationId} in ${version}'s contract`);
  return found;
}

/** Scalar's document selector, at the top of the sidebar: a button naming the document shown. */
function documentSelector(page: Page, shown: string) {
  return page.getByRole('button', { name: shown, exact: true });
}

/** From the default v2 to v1: open the document selector and choose API v1. */
async function showV1(page: Page): Promise<void> {
  await documentSelector(page, 'API v2').click();
  await page.getByRole('option', { name: 'API v1', exact: true }).click();
  await documentSelector(page, 'API v1').waitFor();
}

async function everyOperationListed(page: Page, version: ApiVersion): Promise<void> {
  for (const { method, path, definition } of operations[version]) {
    await sidebarItem(page, version, method, path)
      .filter({ hasText: definition.summary ?? '' })
      .waitFor();
  }
}

/** listOrders through the section's own "Test Request", with the test's key; the response it got. */
async function tryListOrders(page: Page, version: ApiVersion) {
  await sidebarItem(page, version, 'get', '/store/orders').locator('a').click();
  await section(page, version, 'get', '/store/orders').getByRole('button', { name: 'Test Request' }).click();
  const client = page.getByRole('dialog');
  await client.getByPlaceholder('Token').fill(t.key);
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/store/orders'));
  await client.getByRole('button', { name: /^Send/ }).filter({ visible: true }).first().click();
  const response = await answered;
  await client.getByText('200 OK').waitFor();
  return response;
}

describe('the API reference at /docs', () => {
  it(
    "shows v2 by default, every one of its operations and none of v1's, and loads nothing from another origin",
    async () => {
      const { page } = visit;
      expect(operations.v2).toHaveLength(12);
      await documentSelector(page, 'API v2').waitFor();
      await everyOperationListed(page, 'v2');
      expect(await page.locator('[data-sidebar-id^="v1/"]').count()).toBe(0);
      const getPetById = operation('v1', 'getPetById');
      expect(await page.locator(`[data-sidebar-id$="/GET${getPetById.path}"]`).count()).toBe(0);
      // Scalar renders sections as they come into view; the API's introduction comes first.
      await sidebarItem(page, 'v2', 'get', '/store/orders').locator('a').click();
      await section(page, 'v2', 'get', '/store/orders').getByText('List orders, a page at a time').first().waitFor();

      const origin = new URL(t.server.baseUrl).origin;
      const elsewhere = visit.requested.filter(
        (url) => !url.startsWith('data:') && new URL(url).origin !== origin,
      );
      expect(elsewhere).toEqual([]);
      expect(visit.requested).toContain(`${origin}/v2/openapi.json`);
      expect(visit.requested).toContain(`${origin}/v1/openapi.json`);
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'has v1 one choice away in the document selector, which offers v2 then v1; v1 shows all its operations',
    async () => {
      const { page } = visit;
      await documentSelector(page, 'API v2').click();
      expect(await page.getByRole('option').allInnerTexts()).toEqual(['API v2', 'API v1']);
      await page.getByRole('option', { name: 'API v1', exact: true }).click();
      await documentSelector(page, 'API v1').waitFor();
      // The address names the version, so that a link to /docs#v1 opens v1.
      expect(new URL(page.url()).hash).toMatch(/^#v1/);

      expect(operations.v1).toHaveLength(4);
      await everyOperationListed(page, 'v1');
      expect(await page.locator('[data-sidebar-id^="v2/"]').count()).toBe(0);
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "marks v1's getPetById deprecated with its sunset, and sendMessage as beta in both versions",
    async () => {
      const { page } = visit;
      const v2SendMessage = operation('v2', 'sendMessage');
      await sidebarItem(page, 'v2', v2SendMessage.method, v2SendMessage.path).locator('a').click();
      await section(page, 'v2', v2SendMessage.method, v2SendMessage.path)
        .getByText(/^beta$/i)
        .waitFor();

      await showV1(page);
      const getPetById = operation('v1', 'getPetById');
      const sunset = (getPetById.definition as { 'x-sunset'?: string })['x-sunset'];
      expect(sunset).toBeDefined();

      const deprecatedItem = sidebarItem(page, 'v1', getPetById.method, getPetById.path);
      // Scalar strikes a deprecated operation through.
      await deprecatedItem.locator('.line-through').waitFor();
      await deprecatedItem.locator('a').click();
      const deprecatedSection = section(page, 'v1', getPetById.method, getPetById.path);
      // The badge reads "deprecated", capitalized by CSS.
      await deprecatedSection.getByText(/^deprecated$/i).waitFor();
      await deprecatedSection.getByText(`sunset at ${sunset}`).waitFor();

      const sendMessage = operation('v1', 'sendMessage');
      await sidebarItem(page, 'v1', sendMessage.method, sendMessage.path).locator('a').click();
      await section(page, 'v1', sendMessage.method, sendMessage.path)
        .getByText(/^beta$/i)
        .waitFor();

      // The other operations carry neither marking.
      const listOrders = section(page, 'v1', 'get', '/store/orders');
      await sidebarItem(page, 'v1', 'get', '/store/orders').locator('a').click();
      await listOrders.waitFor();
      expect(await listOrders.getByText(/^(deprecated|beta)$/i).count()).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "opens each version's introduction with links to its contract's files, OpenAPI 3.0 and 3.1, each of which answers",
    async () => {
      const { page } = visit;
      const linksOf = async (version: ApiVersion) => {
        const paragraph = page.getByText('This contract as a file:').filter({ visible: true }).first();
        await paragraph.waitFor();
        const links: [string, string | null][] = [];
        for (const anchor of await paragraph.locator('a').all()) {
          links.push([await anchor.innerText(), await anchor.getAttribute('href')]);
        }
        const files = ['openapi.yaml', 'openapi.json', 'openapi.3.1.yaml', 'openapi.3.1.json'];
        expect(links).toEqual(files.map((file) => [file.endsWith('.json') ? 'JSON' : 'YAML', `/${version}/${file}`]));
        for (const [, href] of links) {
          expect((await fetch(new URL(href ?? '', t.server.baseUrl))).status, href ?? '').toBe(200);
        }
      };
      await linksOf('v2');
      await showV1(page);
      await linksOf('v1');
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'shows the Idempotency-Key header with the length its description gives: 1 to 255 characters',
    async () => {
      const { page } = visit;
      const sendMessage = operation('v2', 'sendMessage');
      await sidebarItem(page, 'v2', sendMessage.method, sendMessage.path).locator('a').click();
      const shown = section(page, 'v2', sendMessage.method, sendMessage.path);
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
    "sends v2's listOrders to this server's /v2 from its own \"Try it\" with a bearer key, optional parameters left out, and shows the 200",
    async () => {
      const { page } = visit;
      const order = await t.server.store.orders.addOrder({ petId: 7, quantity: 2 });
      const response = await tryListOrders(page, 'v2');

      // The examples of the optional parameters (a cursor, filters) are not sent until ticked.
      expect(response.url()).toBe(`${t.server.baseUrl}/v2/store/orders`);
      expect(response.request().headers().authorization).toBe(`Bearer ${t.key}`);
      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual({
        data: [expect.objectContaining({ id: order.id, petId: 7, status: 'pending' })],
        hasMore: false,
      });
      mkdirSync('test-artifacts', { recursive: true });
      // Finite transitions (the response panel fades in) are finished first, so the picture is the settled page.
      await page.screenshot({ path: 'test-artifacts/docs.png', animations: 'disabled' });
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    "sends v1's listOrders to this server's /v1 from its \"Try it\" once v1 is chosen",
    async () => {
      const { page } = visit;
      const order = await t.server.store.orders.addOrder({ petId: 7, quantity: 2 });
      await showV1(page);
      const response = await tryListOrders(page, 'v1');

      expect(response.url()).toBe(`${t.server.baseUrl}/v1/store/orders`);
      expect(response.request().headers().authorization).toBe(`Bearer ${t.key}`);
      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual([expect.objectContaining({ id: order.id, petId: 7 })]);
      expect(visit.errors).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
