// GET /v2/messages/{messageId}: a message of the caller's account, with where its delivery stands; another
// account's is 404 as an unknown one (no probing of ids); a malformed id is 400; v1 has no such path. Every
// answer is checked against openapi.v2.yaml. The server here delivers nothing: its messages stay queued,
// and their status moves as a delivery would move it (test/delivery/ delivers them for real).
import { describe, expect, it } from 'vitest';
import { apiClientV2, rawRequest } from '../../support/http.js';
import { createKey, useServer } from '../../support/server.js';

const t = useServer();
const client = (key = t.key) => apiClientV2(t.server.baseUrl, key);
const read = (messageId: string, key = t.key) =>
  client(key).GET('/messages/{messageId}', { params: { path: { messageId } } });

async function send(message: string, key = t.key): Promise<{ id: string; createdAt: string }> {
  const { data } = await client(key).POST('/messages', { body: { message } });
  return data as { id: string; createdAt: string };
}

describe('v2 getMessage', () => {
  it('answers a message of the caller\'s account, queued since it was accepted', async () => {
    const { id, createdAt } = await send('hello');
    const { data, response } = await read(id);
    expect(response.status).toBe(200);
    expect(data).toStrictEqual({ id, message: 'hello', status: 'queued', createdAt, updatedAt: createdAt });
  });

  it('tells a delivered message, and when it was delivered', async () => {
    const { id } = await send('to deliver');
    const { delivery } = t.server.store;
    const now = new Date(Date.now() + 1_000).toISOString();
    await delivery.claimMessages({ owner: 'test', now, leaseUntil: new Date(Date.now() + 60_000).toISOString(), limit: 1 });
    await delivery.settleMessages('test', [{ id, outcome: 'delivered', at: now }]);
    expect((await read(id)).data).toMatchObject({ id, status: 'delivered', updatedAt: now });
  });

  it('answers 404 for another account\'s message, exactly as for an id never used', async () => {
    const { id } = await send('mine');
    const { key: otherKey } = await createKey(t.server.store, 'globex');
    const other = await read(id, otherKey);
    const unknownId = `msg_${'A'.repeat(22)}`;
    const unknown = await read(unknownId);
    expect(other.response.status).toBe(404);
    expect(other.error).toStrictEqual({ code: 'message_not_found', message: `No message ${id}`, status: 404 });
    expect(unknown.error).toStrictEqual({ code: 'message_not_found', message: `No message ${unknownId}`, status: 404 });
  });

  it('answers 400 for what is not a message id, and 401 without a valid key', async () => {
    const malformed = await read('msg_short');
    expect(malformed.error).toMatchObject({ code: 'invalid_request', status: 400 });
    const { id } = await send('hello');
    const anonymous = await rawRequest(`${t.server.baseUrl}/v2/messages/${id}`);
    expect(anonymous.status).toBe(401);
  });

  it('is not part of v1', async () => {
    const { id } = await send('hello');
    const v1 = await rawRequest(`${t.server.baseUrl}/v1/messages/${id}`, { headers: { Authorization: `Bearer ${t.key}` } });
    expect(v1.status).toBe(404);
  });
});
