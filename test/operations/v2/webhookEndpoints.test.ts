// /v2/webhook-endpoints through a real server and the typed client, with the operator's defaults: https
// only, public unicast addresses only, 10 endpoints an account; the secret in the two answers that make one
// and in no other; another account's endpoint not found; pages of the account's endpoints.
import { describe, expect, it } from 'vitest';
import { apiClientV2 } from '../../support/http.js';
import { createKey, useServer } from '../../support/server.js';

const t = useServer();

const client = (key = t.key) => apiClientV2(t.server.baseUrl, key);
const register = (url: string, key = t.key) =>
  client(key).POST('/webhook-endpoints', { body: { url, events: ['order.cancelled'] } });

describe('createWebhookEndpoint', () => {
  it('answers 201 with the endpoint, its secret and its Location; reading it never shows the secret', async () => {
    const { data, response } = await register('https://hooks.example.com/in?token=a');
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ url: 'https://hooks.example.com/in?token=a', events: ['order.cancelled'], status: 'enabled' });
    expect(data?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(response.headers.get('location')).toBe(`/v2/webhook-endpoints/${data?.id}`);
    const read = await client().GET('/webhook-endpoints/{endpointId}', { params: { path: { endpointId: data?.id ?? '' } } });
    expect(read.data).toEqual({ ...data, secret: undefined });
    expect(JSON.stringify(read.data)).not.toContain(data?.secret);
    const listed = await client().GET('/webhook-endpoints');
    expect(JSON.stringify(listed.data)).not.toContain(data?.secret);
  });

  it.each([
    ['http://hooks.example.com/', 'the URL must be https://'],
    ['https://user:pass@hooks.example.com/', 'the URL must not hold a user name or password'],
    ['https://127.0.0.1/', '127.0.0.1 is loopback, not a public address'],
    ['https://2130706433/', '127.0.0.1 is loopback, not a public address'],
    ['https://0x7f.1/', '127.0.0.1 is loopback, not a public address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is link-local (the cloud metadata address among them), not a public address'],
    ['https://[::ffff:10.0.0.1]/', 'is private, not a public address'],
    ['https://localhost/', 'localhost resolves to'],
    // 1,000 characters as written, 6,026 as sent and stored (each é escaped as %C3%A9).
    [`https://hooks.example.com/${'é'.repeat(1000)}`, 'the URL is longer than 2048 characters once escaped'],
  ])('refuses %s with 400 invalid_webhook_url, saying why', async (url, why) => {
    const { error, response } = await register(url);
    expect(response.status).toBe(400);
    expect(error?.code).toBe('invalid_webhook_url');
    expect(error?.message).toContain(why);
  });

  it('refuses an eleventh endpoint of one account with 409, and another account has its own ten', async () => {
    const { key } = await createKey(t.server.store, 'full');
    for (let n = 0; n < 10; n++) expect((await register(`https://hooks.example.com/${n}`, key)).response.status).toBe(201);
    const { error, response } = await register('https://hooks.example.com/11', key);
    expect(response.status).toBe(409);
    expect(error?.code).toBe('too_many_webhook_endpoints');
    expect((await register('https://hooks.example.com/other')).response.status).toBe(201);
  });
});

describe('the other webhook operations', () => {
  it('answer 404 for another account\'s endpoint, as for an unknown one, and change nothing of it', async () => {
    const { data } = await register('https://hooks.example.com/mine');
    const endpointId = data?.id ?? '';
    const { key } = await createKey(t.server.store, 'stranger');
    const path = { params: { path: { endpointId } } };
    const answers = await Promise.all([
      client(key).GET('/webhook-endpoints/{endpointId}', path),
      client(key).PATCH('/webhook-endpoints/{endpointId}', { ...path, body: { status: 'disabled' } }),
      client(key).POST('/webhook-endpoints/{endpointId}/rotate-secret', path),
      client(key).GET('/webhook-endpoints/{endpointId}/deliveries', path),
      client(key).POST('/webhook-endpoints/{endpointId}/replay', { ...path, body: { since: '2026-01-01T00:00:00Z' } }),
      client(key).DELETE('/webhook-endpoints/{endpointId}', path),
    ]);
    for (const { response, error } of answers) {
      expect(response.status).toBe(404);
      expect(error).toEqual({ code: 'webhook_endpoint_not_found', message: `No webhook endpoint ${endpointId}`, status: 404 });
    }
    expect((await client().GET('/webhook-endpoints/{endpointId}', path)).data).toEqual({ ...data, secret: undefined });
    expect((await client(key).GET('/webhook-endpoints')).data).toEqual({ data: [], hasMore: false });
  });

  it('change only what the body names, check a new URL as at registration, and answer 400 for a body naming nothing', async () => {
    const { data } = await register('https://hooks.example.com/a');
    const path = { params: { path: { endpointId: data?.id ?? '' } } };
    const changed = await client().PATCH('/webhook-endpoints/{endpointId}', { ...path, body: { description: 'warehouse' } });
    expect(changed.data).toMatchObject({ url: 'https://hooks.example.com/a', description: 'warehouse', events: ['order.cancelled'] });
    const refused = await client().PATCH('/webhook-endpoints/{endpointId}', { ...path, body: { url: 'https://10.1.2.3/' } });
    expect(refused.error?.code).toBe('invalid_webhook_url');
    const empty = await client().PATCH('/webhook-endpoints/{endpointId}', { ...path, body: {} });
    expect(empty.error?.code).toBe('invalid_request');
    const events = await client().PATCH('/webhook-endpoints/{endpointId}', {
      ...path,
      body: { events: ['message.failed', 'order.shipped', 'order.cancelled'] },
    });
    // In the contract's order of types, whatever order they were sent in.
    expect(events.data?.events).toEqual(['order.cancelled', 'order.shipped', 'message.failed']);
  });

  it('rotate the secret, answering the new one and the old one\'s end, 24 hours on', async () => {
    const { data } = await register('https://hooks.example.com/r');
    const before = Date.now();
    const { data: rotated } = await client().POST('/webhook-endpoints/{endpointId}/rotate-secret', {
      params: { path: { endpointId: data?.id ?? '' } },
    });
    expect(rotated?.secret).toMatch(/^whsec_/);
    expect(rotated?.secret).not.toBe(data?.secret);
    const end = Date.parse(rotated?.previousSecretExpiresAt ?? '');
    expect(end - before).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(end - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('list the account\'s endpoints a page at a time, with the next page\'s Link', async () => {
    const { key } = await createKey(t.server.store, 'pages');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await register(`https://hooks.example.com/${n}`, key)).data?.id ?? '');
    const first = await client(key).GET('/webhook-endpoints', { params: { query: { limit: 2 } } });
    expect(first.data?.data.map(({ id }) => id)).toEqual(ids.slice(0, 2));
    expect(first.response.headers.get('link')).toBe(`</v2/webhook-endpoints?limit=2&cursor=${first.data?.nextCursor}>; rel="next"`);
    const second = await client(key).GET('/webhook-endpoints', { params: { query: { limit: 2, cursor: first.data?.nextCursor ?? '' } } });
    expect(second.data).toEqual({ data: [expect.objectContaining({ id: ids[2] })], hasMore: false });
    const deliveriesCursor = await client(key).GET('/webhook-endpoints/{endpointId}/deliveries', {
      params: { path: { endpointId: ids[0] ?? '' }, query: { cursor: first.data?.nextCursor ?? '' } },
    });
    expect(deliveriesCursor.error?.code).toBe('invalid_cursor');
  });

  it('refuse a replay whose range ends before it starts', async () => {
    const { data } = await register('https://hooks.example.com/replay');
    const { error } = await client().POST('/webhook-endpoints/{endpointId}/replay', {
      params: { path: { endpointId: data?.id ?? '' } },
      body: { since: '2026-12-02T00:00:00Z', until: '2026-12-01T00:00:00Z' },
    });
    expect(error).toEqual({ code: 'invalid_request', message: 'until: must not be before since', status: 400 });
  });
});
