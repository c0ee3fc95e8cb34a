// No request reaches an operation except through the documented order of checks: whatever the method,
// the spelling of the path, the key or the input, a handler runs only for an authenticated, valid request
// to its own operation's route.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiVersion } from '../../src/contract/document.js';
import type { AnyOperationId } from '../../src/contract/types.js';
import type { Dependencies, HandlersByVersion } from '../../src/operations/handler.js';
import { handlersByVersion } from '../../src/operations/index.js';
import { keyDigest } from '../../src/keys.js';
import { rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

interface Call {
  version: ApiVersion;
  operationId: AnyOperationId;
  principal: Dependencies['principal'];
}

let server: TestServer;
afterEach(() => server.close());

/** The real handlers of every version, each noting that it ran and for whom. */
function recordingHandlers(calls: Call[]): HandlersByVersion {
  type AnyHandler = (input: unknown, dependencies: Dependencies) => unknown;
  const recording = (version: ApiVersion) => {
    const handlers = {} as Record<string, AnyHandler>;
    for (const [operationId, handler] of Object.entries(handlersByVersion[version]) as [AnyOperationId, AnyHandler][]) {
      handlers[operationId] = (input, dependencies) => {
        calls.push({ version, operationId, principal: dependencies.principal });
        return handler(input, dependencies);
      };
    }
    return handlers;
  };
  return { v1: recording('v1'), v2: recording('v2') } as unknown as HandlersByVersion;
}

const OPERATIONS: [ApiVersion, AnyOperationId, string, string, string | undefined][] = [
  ['v1', 'listOrders', 'GET', '/v1/store/orders', undefined],
  ['v1', 'cancelOrder', 'DELETE', '/v1/store/orders/1', undefined],
  ['v1', 'sendMessage', 'POST', '/v1/messages', JSON.stringify({ message: 'hello' })],
  ['v1', 'getPetById', 'GET', '/v1/pets/1', undefined],
  ['v2', 'listOrders', 'GET', '/v2/store/orders', undefined],
  ['v2', 'cancelOrder', 'DELETE', '/v2/store/orders/1', undefined],
  ['v2', 'sendMessage', 'POST', '/v2/messages', JSON.stringify({ message: 'hello' })],
  ['v2', 'getMessage', 'GET', `/v2/messages/msg_${'0'.repeat(22)}`, undefined],
];

describe('the one request pipeline', () => {
  it('runs a handler only for an authenticated, valid request to its own route', async () => {
    const calls: Call[] = [];
    // Before the sunset of getPetById, so that it is still served.
    server = await startServer({ handlers: recordingHandlers(calls), now: () => new Date('2026-06-01T00:00:00Z') });
    const { key, keyId } = await createKey(server.store);
    const good = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const wrongKeys = [{}, { Authorization: 'Bearer so_wrong' }, { Authorization: `Basic ${key}` }];

    const refused: [string, string, Record<string, string>, string | undefined][] = [];
    // (fetch sends neither TRACE nor CONNECT; test/http/framing.test.ts covers those on raw sockets)
    for (const [, , method, path, body] of OPERATIONS) {
      for (const headers of wrongKeys) refused.push([method, path, { ...headers, 'Content-Type': 'application/json' }, body]);
      refused.push([method, `${path}?access_token=${key}`, good, body]);
      refused.push([method, `${path}?unknown=1`, good, body]);
      const root = path.slice(0, 3);
      for (const spelling of [`${path}/`, path.replace(`${root}/`, `${root}//`), path.toUpperCase(), `${path}%2F`, `${path};x`, path.slice(3)]) {
        refused.push([method, spelling, good, body]);
      }
      for (const other of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'].filter((m) => m !== method)) {
        refused.push([other, path, good, other === 'GET' || other === 'HEAD' ? undefined : body]);
      }
    }
    refused.push(['DELETE', '/v1/store/orders/abc', good, undefined]);
    refused.push(['DELETE', '/v1/store/orders/1e3', good, undefined]);
    refused.push(['DELETE', '/v1/store/orders/99999999999999999999', good, undefined]);
    refused.push(['GET', '/v1/pets/%zz', good, undefined]);
    refused.push(['GET', '/v2/pets/1', good, undefined]);
    refused.push(['GET', '/v2/store/orders?limit=0', good, undefined]);
    refused.push(['GET', '/v2/store/orders?status=lost', good, undefined]);
    refused.push(['DELETE', '/v2/store/orders/abc', good, undefined]);
    refused.push(['POST', '/v2/messages', good, JSON.stringify({ message: '' })]);
    refused.push(['GET', '/v2/messages/msg_short', good, undefined]);
    refused.push(['GET', `/v1/messages/msg_${'0'.repeat(22)}`, good, undefined]);
    refused.push(['POST', '/v1/messages', good, JSON.stringify({ message: '' })]);
    refused.push(['POST', '/v1/messages', good, JSON.stringify({ message: 'hi', extra: 1 })]);
    refused.push(['POST', '/v1/messages', good, '{"message": "a", "message": "b"}']);
    refused.push(['POST', '/v1/messages', { ...good, 'Content-Type': 'text/plain' }, JSON.stringify({ message: 'hi' })]);
    refused.push(['POST', '/v1/messages', { ...good, 'Idempotency-Key': '' }, JSON.stringify({ message: 'hi' })]);

    for (const [method, path, headers, body] of refused) {
      const response = await rawRequest(`${server.baseUrl}${path}`, { method, headers, ...(body && { body }) });
      expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(calls, `${method} ${path} reached a handler`).toEqual([]);
    }

    for (const [, , method, path, body] of OPERATIONS) {
      await rawRequest(`${server.baseUrl}${path}`, { method, headers: good, ...(body && { body }) });
    }
    const principal = { accountId: expect.any(Number), accountName: 'acme', keyId, keyDigest: keyDigest(key), scopes: '*' };
    expect(calls).toEqual(OPERATIONS.map(([version, operationId]) => ({ version, operationId, principal })));
  });
});
