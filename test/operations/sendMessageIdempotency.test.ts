// sendMessage with Idempotency-Key: a retry replays the first answer, a reused key with another body is
// refused, a key still being written is 409, and keys are forgotten after 24 hours.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../support/fuzz/rawHttp.js';
import { apiClient, rawRequest } from '../support/http.js';
import { controllableHandlers, type HandlerControl } from '../support/everyAnswer.js';
import { createKey, ON_SQLITE, startServer, storedMessages, type TestServer } from '../support/server.js';

let server: TestServer;
afterEach(() => server.close());

function post(key: string, idempotencyKey: string | undefined, body: unknown) {
  return rawRequest(`${server.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      ...(idempotencyKey !== undefined && { 'Idempotency-Key': idempotencyKey }),
    },
    body: JSON.stringify(body),
  });
}

describe('sendMessage with an Idempotency-Key', () => {
  it('replays the first answer to a retry with the same key and body, storing one message', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const first = await post(key, 'retry-1', { message: 'once' });
    const retry = await post(key, 'retry-1', { message: 'once' });
    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedMessages(server)).toHaveLength(1);
  });

  it('treats the quoted form of the IETF draft and the bare form as the same key', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const bare = await post(key, 'abc-123', { message: 'x' });
    const quoted = await post(key, '"abc-123"', { message: 'x' });
    expect(quoted.json).toEqual(bare.json);
    expect(await storedMessages(server)).toHaveLength(1);
  });

  it('answers 422 when the key comes back with a different body, and stores nothing for it', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    await post(key, 'k', { message: 'first' });
    const reused = await post(key, 'k', { message: 'second' });
    expect(reused.status).toBe(422);
    expect(reused.json).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect((await storedMessages(server)).map((row) => row.message)).toEqual(['first']);
  });

  it('keeps keys per account: another account with the same key gets its own message', async () => {
    server = await startServer();
    const alice = (await createKey(server.store, 'alice')).key;
    const bob = (await createKey(server.store, 'bob')).key;
    const fromAlice = await post(alice, 'shared', { message: 'same' });
    const fromBob = await post(bob, 'shared', { message: 'same' });
    expect(fromBob.status).toBe(202);
    expect(fromBob.headers.get('idempotent-replayed')).toBeNull();
    expect((fromBob.json as { id: string }).id).not.toBe((fromAlice.json as { id: string }).id);
  });

  it('stores exactly one message for 50 concurrent identical requests; the others replay it or get 409', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(key, 'burst', { message: 'only one' })),
    );
    const stored = await storedMessages(server);
    expect(stored).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 202) expect((answer.json as { id: string }).id).toBe(stored[0]?.id);
      else expect(answer.json).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
    }
  });

  // SQLite's write lock, held by another connection; every backend's rule is in test/store/behaviour/messages.
  it.runIf(ON_SQLITE)('answers 409 to a second request while the first with the same key waits to be written', async () => {
    const control: HandlerControl = { failure: undefined, entered: undefined };
    server = await startServer({ handlers: controllableHandlers(control) });
    const { key } = await createKey(server.store);
    // Another connection holds the write lock, so the first request waits in the server.
    const holder = new Database(server.dbPath);
    holder.exec('BEGIN IMMEDIATE');
    const entered = new Promise((resolve) => {
      control.entered = resolve;
    });
    const first = post(key, 'slow', { message: 'waiting' });
    // Its handler has run, so its write is queued and waiting for the lock.
    await entered;
    const second = await post(key, 'slow', { message: 'waiting' });
    holder.exec('COMMIT');
    holder.close();
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
    expect((await first).status).toBe(202);
    expect(await storedMessages(server)).toHaveLength(1);
  });

  it.runIf(ON_SQLITE)('replays after a restart of the server on the same file', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const first = await post(key, 'survives', { message: 'durable' });
    const dbPath = server.dbPath;
    await server.app.close();
    await server.store.close();
    const restarted = await startServer({ dbPath });
    const retry = await rawRequest(`${restarted.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'survives',
      },
      body: JSON.stringify({ message: 'durable' }),
    });
    server = restarted;
    expect(retry.status).toBe(202);
    expect(retry.json).toEqual(first.json);
    expect(await storedMessages(server)).toHaveLength(1);
    rmSync(dirname(dbPath), { recursive: true, force: true });
  });

  it('forgets a key after 24 hours: the same request then stores a new message', async () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    server = await startServer({ now: () => new Date(clock) });
    const { key } = await createKey(server.store);
    const first = await post(key, 'daily', { message: 'hi' });
    clock += 24 * 60 * 60 * 1000 - 1000;
    expect((await post(key, 'daily', { message: 'hi' })).json).toEqual(first.json);
    clock += 2000;
    const later = await post(key, 'daily', { message: 'hi' });
    expect(later.status).toBe(202);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((later.json as { id: string }).id).not.toBe((first.json as { id: string }).id);
    expect(await storedMessages(server)).toHaveLength(2);
  });

  it('accepts a key of 255 characters, bare or quoted, as the same key', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const longest = 'k'.repeat(255);
    expect((await post(key, longest, { message: 'x' })).status).toBe(202);
    const quoted = await post(key, `"${longest}"`, { message: 'x' });
    expect([quoted.status, quoted.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
  });

  it.each([['has space'], ['x'.repeat(256)], [`"${'x'.repeat(256)}"`], ['"unbalanced'], ['é'], ['""']])(
    'refuses the malformed key %j with 400 and stores nothing',
    async (idempotencyKey) => {
      server = await startServer();
      const { key } = await createKey(server.store);
      const answer = await post(key, idempotencyKey, { message: 'x' });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_request' });
      expect(await storedMessages(server)).toHaveLength(0);
    },
  );

  it('refuses the key sent twice with 400, even twice the same', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const answer = await send(server.baseUrl, {
      method: 'POST',
      path: '/v1/messages',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': ['twice', 'twice'],
      },
      body: new TextEncoder().encode(JSON.stringify({ message: 'x' })),
    });
    expect(answer.status).toBe(400);
    expect(await storedMessages(server)).toHaveLength(0);
  });

  it('is typed in the generated client', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const client = apiClient(server.baseUrl, key);
    const { response } = await client.POST('/messages', {
      params: { header: { 'Idempotency-Key': 'typed' } },
      body: { message: 'typed' },
    });
    expect(response.status).toBe(202);
  });
});
