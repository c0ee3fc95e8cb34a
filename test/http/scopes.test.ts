// A key's scopes (issue 42): each operation of both contracts needs the scope its `x-required-scope` names,
// and a valid key without it is answered 403 with the Error body, after its quota counted the request and
// before anything else of the request is looked at. The cases below cover every operation of both
// contracts (the first test holds them to the contracts).
import { describe, expect, it } from 'vitest';
import { type ApiVersion, loadContracts, operationsOf } from '../../src/contract/document.js';
import { SCOPES, type Scope, type Scopes } from '../../src/store/store.js';
import { requiredScope } from '../support/document.js';
import { rawRequest, type RawResponse } from '../support/http.js';
import { createKey, startServer, type TestServer, useSharedServer } from '../support/server.js';

// One server for the file: each case makes the records it needs (an order to cancel, an endpoint).
const t = useSharedServer();

interface Case {
  version: ApiVersion;
  operationId: string;
  /** The status of the operation's answer to a key that may call it. */
  allowed: number;
  /** A request the operation answers with `allowed` (after `prepare`, with the key's account's records). */
  send(server: TestServer, key: string): Promise<RawResponse>;
}

const withKey = (key: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { Authorization: `Bearer ${key}`, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
});

async function pendingOrder(server: TestServer): Promise<number> {
  return (await server.store.orders.addOrder({ petId: 1, quantity: 1 })).id;
}

async function messageOf(server: TestServer, key: string): Promise<string> {
  const sent = await rawRequest(`${server.baseUrl}/v2/messages`, withKey(key, { method: 'POST', body: '{"message":"hi"}' }));
  return (sent.json as { id: string }).id;
}

/** An endpoint of the account `acme`, registered without the API (its count would limit the API's). */
async function endpointOf(server: TestServer): Promise<string> {
  const account = await server.store.keys.findAccount('acme');
  const id = `we_${String(Math.random()).slice(2, 12).padEnd(22, '0')}`;
  const endpoint = { id, url: 'https://hooks.example.com/in', events: ['order.shipped' as const], secret: 'whsec_x', createdAt: new Date().toISOString() };
  await server.store.webhooks.createEndpoint(account?.id ?? 0, endpoint, Number.POSITIVE_INFINITY);
  return id;
}

/** `acme`'s endpoints all deleted, so that one more may be registered through the API. */
async function noEndpoints(server: TestServer): Promise<void> {
  const account = await server.store.keys.findAccount('acme');
  const { items } = await server.store.webhooks.listEndpoints(account?.id ?? 0, 0, 1000);
  for (const { id } of items) await server.store.webhooks.deleteEndpoint(account?.id ?? 0, id);
}

const ENDPOINTS = '/v2/webhook-endpoints';

/** The webhook operations, each with the request it answers with success. */
const WEBHOOK_CASES: Case[] = [
  {
    version: 'v2',
    operationId: 'createWebhookEndpoint',
    allowed: 201,
    send: async (server, key) => {
      await noEndpoints(server);
      const body = JSON.stringify({ url: 'https://hooks.example.com/in', events: ['order.shipped'] });
      return rawRequest(`${server.baseUrl}${ENDPOINTS}`, withKey(key, { method: 'POST', body }));
    },
  },
  { version: 'v2', operationId: 'listWebhookEndpoints', allowed: 200, send: (server, key) => rawRequest(`${server.baseUrl}${ENDPOINTS}`, withKey(key)) },
  {
    version: 'v2',
    operationId: 'getWebhookEndpoint',
    allowed: 200,
    send: async (server, key) => rawRequest(`${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}`, withKey(key)),
  },
  {
    version: 'v2',
    operationId: 'updateWebhookEndpoint',
    allowed: 200,
    send: async (server, key) =>
      rawRequest(`${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}`, withKey(key, { method: 'PATCH', body: '{"status":"disabled"}' })),
  },
  {
    version: 'v2',
    operationId: 'deleteWebhookEndpoint',
    allowed: 204,
    send: async (server, key) => rawRequest(`${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}`, withKey(key, { method: 'DELETE' })),
  },
  {
    version: 'v2',
    operationId: 'rotateWebhookEndpointSecret',
    allowed: 200,
    send: async (server, key) =>
      rawRequest(`${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}/rotate-secret`, withKey(key, { method: 'POST' })),
  },
  {
    version: 'v2',
    operationId: 'listWebhookDeliveries',
    allowed: 200,
    send: async (server, key) => rawRequest(`${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}/deliveries`, withKey(key)),
  },
  {
    version: 'v2',
    operationId: 'replayWebhookEvents',
    allowed: 202,
    send: async (server, key) =>
      rawRequest(
        `${server.baseUrl}${ENDPOINTS}/${await endpointOf(server)}/replay`,
        withKey(key, { method: 'POST', body: JSON.stringify({ since: '2026-01-01T00:00:00Z' }) }),
      ),
  },
];

/** Each version's operations, as a client calls them with a key of the account `acme`. */
const CASES: Case[] = [
  ...(['v1', 'v2'] as const).flatMap((version): Case[] => [
    {
      version,
      operationId: 'listOrders',
      allowed: 200,
      send: (server, key) => rawRequest(`${server.baseUrl}/${version}/store/orders`, withKey(key)),
    },
    {
      version,
      operationId: 'cancelOrder',
      allowed: 204,
      send: async (server, key) =>
        rawRequest(`${server.baseUrl}/${version}/store/orders/${await pendingOrder(server)}`, withKey(key, { method: 'DELETE' })),
    },
    {
      version,
      operationId: 'sendMessage',
      allowed: 202,
      send: (server, key) => rawRequest(`${server.baseUrl}/${version}/messages`, withKey(key, { method: 'POST', body: '{"message":"hi"}' })),
    },
  ]),
  {
    version: 'v1',
    operationId: 'getPetById',
    allowed: 200,
    send: async (server, key) => {
      const pet = await server.store.pets.addPet('Rex');
      return rawRequest(`${server.baseUrl}/v1/pets/${pet.id}`, withKey(key));
    },
  },
  {
    version: 'v2',
    operationId: 'getMessage',
    allowed: 200,
    // The message is the account's own, sent with a key of every scope.
    send: async (server, key) => rawRequest(`${server.baseUrl}/v2/messages/${await messageOf(server, t.key)}`, withKey(key)),
  },
  ...WEBHOOK_CASES,
];

const contracts = loadContracts();

/** A key of the account `acme` with `scopes`. */
const keyWith = async (scopes: Scopes) => (await createKey(t.server.store, 'acme', scopes)).key;

function expectForbidden(answer: RawResponse, scope: Scope, operationId: string): void {
  expect(answer.status).toBe(403);
  expect(answer.json).toStrictEqual({
    code: 'forbidden',
    message: `This API key does not have the scope ${scope}, which ${operationId} needs`,
    status: 403,
  });
  expect(answer.headers.get('www-authenticate')).toBe(
    `Bearer realm="store-orders", error="insufficient_scope", scope="${scope}"`,
  );
}

describe('scopes', () => {
  it('cover every operation of both contracts, each of which needs one scope but the deprecated getPetById', () => {
    const declared = (['v1', 'v2'] as const).flatMap((version) =>
      operationsOf(contracts[version].document).map(({ operationId }) => `${version} ${operationId}`),
    );
    expect(CASES.map(({ version, operationId }) => `${version} ${operationId}`).toSorted()).toEqual(declared.toSorted());
    for (const { version, operationId } of CASES) {
      const scope = requiredScope(version, operationId);
      if (operationId === 'getPetById') expect(scope).toBeUndefined();
      else expect(SCOPES, `${version} ${operationId}`).toContain(scope);
    }
  });

  describe.each(CASES)('$version $operationId', (operation) => {
    const { version, operationId, allowed } = operation;
    const send = (server: TestServer, key: string) => operation.send(server, key);
    const scope = requiredScope(version, operationId);

    it.each(SCOPES)('with a key of the scope %s alone: answered if it is the one needed, else 403 naming it', async (held) => {
      const answer = await send(t.server, await keyWith([held]));
      if (scope === undefined || held === scope) expect(answer.status, answer.text).toBe(allowed);
      else expectForbidden(answer, scope, operationId);
    });

    // Defined only for an operation that needs a scope: a skipped test would fail CI's run, which must skip
    // nothing.
    const scoped = scope === undefined ? () => {} : it;
    scoped('with a key of every other scope: 403, and nothing done', async () => {
      const others = SCOPES.filter((other) => other !== scope);
      const before = { orders: await t.server.store.orders.listAllOrders(), messages: await t.server.store.messages.listMessages() };
      const answer = await send(t.server, await keyWith(others));
      expectForbidden(answer, scope as Scope, operationId);
      // What the case itself made (an order to cancel, a pet, a message to read) aside, nothing changed.
      const after = { orders: await t.server.store.orders.listAllOrders(), messages: await t.server.store.messages.listMessages() };
      expect(after.orders.filter(({ status }) => status === 'cancelled')).toEqual(before.orders.filter(({ status }) => status === 'cancelled'));
      expect(after.messages.length - before.messages.length).toBe(operationId === 'getMessage' ? 1 : 0);
    });
  });
});

describe('the 403 of a missing scope', () => {
  it('comes before the request is validated: a key that may only read, cancelling order "abc", learns nothing of it', async () => {
    const reader = await keyWith(['orders:read']);
    for (const version of ['v1', 'v2']) {
      const answer = await rawRequest(`${t.server.baseUrl}/${version}/store/orders/abc`, withKey(reader, { method: 'DELETE' }));
      expectForbidden(answer, 'orders:write', 'cancelOrder');
    }
    const badBody = await rawRequest(`${t.server.baseUrl}/v2/messages`, withKey(reader, { method: 'POST', body: '{"nope":' }));
    expectForbidden(badBody, 'messages:write', 'sendMessage');
  });

  it('comes after authentication: a revoked key without the scope is 401, not 403', async () => {
    const { key, keyId } = await createKey(t.server.store, 'acme', ['orders:read']);
    // Known to the server first, so that the 403 would come from what it learned of the key.
    expect((await rawRequest(`${t.server.baseUrl}/v1/store/orders`, withKey(key))).status).toBe(200);
    expect(await t.server.store.keys.revokeKeyById(keyId)).toBe('revoked');
    const answer = await rawRequest(`${t.server.baseUrl}/v1/messages`, withKey(key, { method: 'POST', body: '{"message":"hi"}' }));
    expect(answer.status).toBe(401);
  });
});

describe('the quota, for a key without the scope', () => {
  it('counts each refused request, and answers 429 once it is used up, the 403s carrying where it stands', async () => {
    // A fixed clock: the window must not turn between the requests.
    const at = new Date('2026-11-23T10:00:20.000Z');
    const server = await startServer({ now: () => at, rateLimits: { requestsPerKey: 2, authFailuresPerAddress: 0, windowSeconds: 60 } });
    try {
      const { key } = await createKey(server.store, 'acme', ['orders:read']);
      const cancel = () => rawRequest(`${server.baseUrl}/v1/store/orders/1`, withKey(key, { method: 'DELETE' }));
      const refused = [await cancel(), await cancel()];
      expect(refused.map(({ status }) => status)).toEqual([403, 403]);
      expect(refused.map(({ headers }) => headers.get('ratelimit'))).toEqual(['"per-key";r=1;t=40', '"per-key";r=0;t=40']);
      expect((await cancel()).status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe('a key of no scope at all', () => {
  it('gets 403 from every operation that needs one, and reads the deprecated pet', async () => {
    const none = await keyWith([]);
    for (const operation of CASES) {
      const { version, operationId, allowed } = operation;
      const answer = await operation.send(t.server, none);
      const scope = requiredScope(version, operationId);
      if (scope === undefined) expect(answer.status, operationId).toBe(allowed);
      else expectForbidden(answer, scope, operationId);
    }
  });
});
