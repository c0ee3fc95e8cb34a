// No request reaches an operation except through the documented order of checks: whatever the method,
// the spelling of the path, the key or the input, a handler runs only for an authenticated, valid request
// to its own operation's route.
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/contract/types.js';
import type { Dependencies, Handlers } from '../../src/operations/handler.js';
import { handlers as realHandlers } from '../../src/operations/index.js';
import { rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

interface Call {
  operationId: OperationId;
  principal: Dependencies['principal'];
}

let server: TestServer;
afterEach(() => server.close());

/** The real handlers, each noting that it ran and for whom. */
function recordingHandlers(calls: Call[]): Handlers {
  const recording = {} as Record<OperationId, unknown>;
  type AnyHandler = (input: unknown, dependencies: Dependencies) => unknown;
  for (const [operationId, handler] of Object.entries(realHandlers) as [OperationId, AnyHandler][]) {
    recording[operationId] = (input: unknown, dependencies: Dependencies) => {
      calls.push({ operationId, principal: dependencies.principal });
      return handler(input, dependencies);
    };
  }
  return recording as Handlers;
}

const OPERATIONS: [OperationId, string, string, string | undefined][] = [
  ['listOrders', 'GET', '/v1/store/orders', undefined],
  ['cancelOrder', 'DELETE', '/v1/store/orders/1', undefined],
  ['sendMessage', 'POST', '/v1/messages', JSON.stringify({ message: 'hello' })],
  ['getPetById', 'GET', '/v1/pets/1', undefined],
];

describe('the one request pipeline', () => {
  it('runs a handler only for an authenticated, valid request to its own route', async () => {
    const calls: Call[] = [];
    // Before the sunset of getPetById, so that it is still served.
    server = await startServer({ handlers: { v1: recordingHandlers(calls) }, now: () => new Date('2026-06-01T00:00:00Z') });
    const { key, keyId } = await createKey(server.store);
    const good = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const wrongKeys = [{}, { Authorization: 'Bearer so_wrong' }, { Authorization: `Basic ${key}` }];

    const refused: [string, string, Record<string, string>, string | undefined][] = [];
    // (fetch sends neither TRACE nor CONNECT; test/http/framing.test.ts covers those on raw sockets)
    for (const [, method, path, body] of OPERATIONS) {
      for (const headers of wrongKeys) refused.push([method, path, { ...headers, 'Content-Type': 'application/json' }, body]);
      refused.push([method, `${path}?access_token=${key}`, good, body]);
      refused.push([method, `${path}?unknown=1`, good, body]);
      for (const spelling of [`${path}/`, path.replace('/v1/', '/v1//'), path.toUpperCase(), `${path}%2F`, `${path};x`, path.replace('/v1', '')]) {
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

    for (const [, method, path, body] of OPERATIONS) {
      await rawRequest(`${server.baseUrl}${path}`, { method, headers: good, ...(body && { body }) });
    }
    const principal = { accountId: expect.any(Number), keyId };
    expect(calls).toEqual(OPERATIONS.map(([operationId]) => ({ operationId, principal })));
  });
});
