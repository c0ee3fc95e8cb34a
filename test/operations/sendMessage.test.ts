import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { assertHonoursContract } from '../support/contract.js';
import { CheckedClient, controllableHandlers, type HandlerControl } from '../support/everyAnswer.js';
import { send } from '../support/fuzz/rawHttp.js';
import { apiClient, rawRequest } from '../support/http.js';
import { createKey, ON_SQLITE, startServer, storedMessages, useServer } from '../support/server.js';

const t = useServer();

const post = (body: string | Uint8Array, contentType?: string, withKey = true) =>
  rawRequest(`${t.server.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      ...(withKey && { Authorization: `Bearer ${t.key}` }),
      ...(contentType !== undefined && { 'Content-Type': contentType }),
    },
    body,
  });

describe('sendMessage', () => {
  it('answers 202 with the queued message, already stored in the database file', async () => {
    const { data, response } = await apiClient(t.server.baseUrl, t.key).POST('/messages', {
      body: { message: 'hello' },
    });
    expect(response.status).toBe(202);
    expect(data).toMatchObject({ message: 'hello', status: 'queued' });
    expect(Date.parse(data?.createdAt ?? '')).not.toBeNaN();

    // A separate connection, as another process would see it, right after the answer.
    const stored = await storedMessages(t.server);
    expect(stored).toEqual([
      { id: data?.id, account: 'acme', message: 'hello', status: 'queued', createdAt: data?.createdAt, updatedAt: data?.createdAt, attempts: 0 },
    ]);
  });

  // SQLite's write lock, held by another connection.
  it.runIf(ON_SQLITE)('sends no 202 while the write cannot commit, and each 202 finds its message already in the file', async () => {
    const control: HandlerControl = { failure: undefined, entered: undefined };
    const server = await startServer({ handlers: controllableHandlers(control), writeWaitMs: 30_000 });
    const { key } = await createKey(server.store);
    const client = new CheckedClient(server);
    const reader = new Database(server.dbPath, { readonly: true });
    const storedIds = () => new Set(reader.prepare('SELECT id FROM messages').pluck().all() as string[]);
    // Another connection holds the write lock, so no message can commit until it lets go.
    const holder = new Database(server.dbPath);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const count = 20;
      let entered = 0;
      const allEntered = new Promise<void>((resolve) => {
        control.entered = () => {
          if (++entered === count) resolve();
        };
      });
      let answered = 0;
      const sends = Array.from({ length: count }, (_, i) =>
        client
          .send('sendMessage', 'sendMessage', true, {
            method: 'POST',
            path: '/v1/messages',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ message: `held ${i}` }),
          })
          .then((answer) => {
            answered++;
            // Read the moment the answer arrives, from a connection of its own.
            const id = (JSON.parse(answer.bodyText) as { id: string }).id;
            return { status: answer.status, stored: storedIds().has(id) };
          }),
      );
      await allEntered;
      // Every handler has run; a read goes through while the writes wait, and any 202 sent before its
      // commit would be on the wire ahead of this answer.
      const listed = await client.send('listOrders', 'listOrders', true, {
        path: '/v1/store/orders',
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(listed.status).toBe(200);
      expect(answered).toBe(0);
      expect(storedIds().size).toBe(0);
      holder.exec('ROLLBACK');
      const settled = await Promise.all(sends);
      expect(settled).toEqual(Array.from({ length: count }, () => ({ status: 202, stored: true })));
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
      reader.close();
      client.close();
      await server.close();
    }
  });

  it('gives every message a unique id', async () => {
    const client = apiClient(t.server.baseUrl, t.key);
    const ids = await Promise.all(
      Array.from(
        { length: 25 },
        async (_, i) => (await client.POST('/messages', { body: { message: `m${i}` } })).data?.id,
      ),
    );
    expect(new Set(ids).size).toBe(25);
  });

  it('accepts application/json; charset=utf-8 and unicode text', async () => {
    const response = await post(JSON.stringify({ message: 'héllo ✓ 🐕' }), 'application/json; charset=utf-8');
    expect(response.status).toBe(202);
    expect(response.json).toMatchObject({ message: 'héllo ✓ 🐕' });
  });

  it.each([
    ['invalid JSON', '{"message":', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
    ['a prototype-poisoning payload', '{"message":"x","__proto__":{"admin":true}}', 'invalid_json'],
    [
      'a constructor-poisoning payload',
      '{"message":"x","constructor":{"prototype":{"admin":true}}}',
      'invalid_json',
    ],
    ['a missing message', '{}', 'invalid_request'],
    ['a non-string message', '{"message":42}', 'invalid_request'],
    ['an empty message', '{"message":""}', 'invalid_request'],
    ['a message over 10,000 characters', JSON.stringify({ message: 'x'.repeat(10_001) }), 'invalid_request'],
    ['an unknown field', '{"message":"x","priority":1}', 'invalid_request'],
    ['an array body', '[{"message":"x"}]', 'invalid_request'],
    ['a string body', '"hello"', 'invalid_request'],
    // A string is no object, even one that holds an object's JSON (openapi-backend's own parser read it
    // as that object: this was a 500).
    ['a string body holding JSON', JSON.stringify(JSON.stringify({ message: 'x' })), 'invalid_request'],
    ['a number in a string', '"5"', 'invalid_request'],
    ['a null body', 'null', 'invalid_request'],
  ])('answers 400 to %s', async (_name, body, code) => {
    const response = await post(body, 'application/json');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code, status: 400 });
  });

  it('answers 400 to invalid UTF-8', async () => {
    const response = await post(
      new Uint8Array([0x7b, 0x22, 0x6d, 0xff, 0xfe, 0x22, 0x7d]),
      'application/json',
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'invalid_json' });
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json-patch+json',
    'application/json; charset=latin1',
    'application/jsonx',
    ';;;',
  ])('answers 400 to the content type %s', async (contentType) => {
    const response = await post('{"message":"x"}', contentType);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'unsupported_content_type' });
  });

  it('answers 400 when the content type is missing', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.key}` },
      body: new Blob(['{"message":"x"}']),
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'unsupported_content_type' });
  });

  it('answers 400 when Content-Type is sent twice, and stores nothing', async () => {
    const response = await send(t.server.baseUrl, {
      method: 'POST',
      path: '/v1/messages',
      headers: { Authorization: `Bearer ${t.key}`, 'Content-Type': ['application/json', 'application/json'] },
      body: new TextEncoder().encode('{"message":"x"}'),
    });
    assertHonoursContract(response);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.bodyText)).toMatchObject({ code: 'unsupported_content_type' });
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('answers 413 to a body over 1 MiB, and stores nothing', async () => {
    const response = await post(JSON.stringify({ message: 'x'.repeat(1024 * 1024) }), 'application/json');
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('answers 413 to an over-long chunked body that declares no length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await rawRequest(`${t.server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.key}`, 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
  });

  it('does not answer 413 to a body of exactly 1 MiB', async () => {
    const padding = 1024 * 1024 - JSON.stringify({ message: 'x' }).length;
    const body = `{"message":"x"${' '.repeat(padding)}}`.slice(0, 1024 * 1024 - 1).concat('}');
    expect(body.length).toBe(1024 * 1024);
    const response = await post(body, 'application/json');
    expect(response.status).not.toBe(413);
  });

  it.each([
    ['invalid JSON', '{"message":', 'application/json'],
    ['a wrong content type', '{"message":"x"}', 'text/plain'],
    ['a malformed content type', '{"message":"x"}', ';;;'],
    ['a body over 1 MiB', 'x'.repeat(2 * 1024 * 1024), 'application/json'],
  ])('checks the key first: %s without a key is 401', async (_name, body, contentType) => {
    const response = await post(body, contentType, false);
    expect(response.status).toBe(401);
  });
});

describe('sendMessage error messages', () => {
  it('names the field that broke the contract', async () => {
    const cases: [string, string][] = [
      ['{}', "body: must have required property 'message'"],
      ['{"message":""}', 'body.message: must NOT have fewer than 1 characters'],
      ['{"message":"x","priority":1}', 'body: must not have the property "priority"'],
    ];
    for (const [body, message] of cases) {
      const response = await post(body, 'application/json');
      expect(response.json, body).toMatchObject({ message });
    }
  });
});

// The bytes as each backend holds them, read through a connection of its own.
describe('sendMessage takes I-JSON bodies only (RFC 7493)', () => {
  /** The message bodies as the database holds them, oldest first, as hexadecimal UTF-8. */
  const storedBytes = async (): Promise<string[]> => {
    const { database } = t.server;
    if (database.kind === 'postgres') {
      const reader = new pg.Client({ connectionString: database.url });
      await reader.connect();
      try {
        const { rows } = await reader.query<{ hex: string }>(
          `SELECT upper(encode(body, 'hex')) AS hex FROM messages ORDER BY seq`,
        );
        return rows.map(({ hex }) => hex);
      } finally {
        await reader.end();
      }
    }
    const reader = new Database(database.path, { readonly: true });
    const rows = reader.prepare('SELECT hex(CAST(body AS BLOB)) AS hex FROM messages ORDER BY seq').all() as {
      hex: string;
    }[];
    reader.close();
    return rows.map(({ hex }) => hex);
  };

  it.each([
    ['a lone high surrogate', String.raw`{"message":"\ud800"}`],
    ['a lone low surrogate', String.raw`{"message":"\udc36"}`],
    ['a high surrogate at the end of the text', String.raw`{"message":"ab\ud83d"}`],
    ['a pair in the wrong order', String.raw`{"message":"\udc36\ud83d"}`],
    ['a lone surrogate in a member name', String.raw`{"message":"x","\ud800":1}`],
  ])('answers 400 invalid_json to %s, and stores nothing', async (_name, body) => {
    const response = await post(body, 'application/json');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      code: 'invalid_json',
      message: String.raw`The request body has a string with an unpaired surrogate, such as "\ud800" (RFC 7493 §2.1)`,
      status: 400,
    });
    expect(await storedBytes()).toEqual([]);
  });

  it.each([
    ['written as UTF-8', '{"message":"🐶"}'],
    ['written as an escaped pair', String.raw`{"message":"\ud83d\udc36"}`],
  ])('stores an astral character %s exactly, and echoes it exactly', async (_name, body) => {
    const response = await post(body, 'application/json');
    expect(response.status).toBe(202);
    expect(response.text).toContain('"message":"🐶"');
    expect((response.json as { message: string }).message).toBe('\u{1F436}');
    expect(await storedBytes()).toEqual(['F09F90B6']);
  });

  // JSON may carry U+0000 only as an escape; it is a string the contract allows, so it is stored and
  // read back as it came, on either backend.
  it('stores U+0000 exactly, echoes it, and lists it through another connection', async () => {
    const response = await post(String.raw`{"message":"a\u0000b"}`, 'application/json');
    expect(response.status).toBe(202);
    expect(response.text).toContain(String.raw`"message":"a\u0000b"`);
    const sent = response.json as { id: string; message: string; createdAt: string };
    expect(sent.message).toBe('a\u0000b');
    expect(await storedBytes()).toEqual(['610062']);
    expect(await storedMessages(t.server)).toEqual([
      { id: sent.id, account: 'acme', message: 'a\u0000b', status: 'queued', createdAt: sent.createdAt, updatedAt: sent.createdAt, attempts: 0 },
    ]);
  });

  it('stores U+0000 with an Idempotency-Key once, and replays the same answer', async () => {
    const withKey = () =>
      rawRequest(`${t.server.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'nul-1' },
        body: String.raw`{"message":"\u0000 first \u0000"}`,
      });
    const first = await withKey();
    const retry = await withKey();
    expect(first.status).toBe(202);
    expect((first.json as { message: string }).message).toBe('\u0000 first \u0000');
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await storedBytes()).toEqual(['002066697273742000']);
  });

  it.each([
    ['the same member twice', '{"message":"a","message":"b"}', '"message"'],
    ['the same name spelled with an escape', String.raw`{"message":"a","m\u0065ssage":"b"}`, '"message"'],
    ['a duplicate in a nested object', '{"message":"x","extra":{"a":1,"b":{"c":[{"d":1,"d":2}]}}}', '"d"'],
  ])('answers 400 invalid_json naming the member to %s, and stores nothing', async (_name, body, name) => {
    const response = await post(body, 'application/json');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      code: 'invalid_json',
      message: `The request body has the member ${name} more than once in one object (RFC 7493 §2.3)`,
      status: 400,
    });
    expect(await storedBytes()).toEqual([]);
  });

  it('judges names per object: the same name in two objects is no duplicate', async () => {
    const response = await post('{"message":"x","extra":[{"message":1},{"message":2}]}', 'application/json');
    // Past the I-JSON check, the contract refuses the unknown member.
    expect(response.json).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('checks the key before the body: a duplicate member without a key is 401', async () => {
    const response = await post('{"message":"a","message":"b"}', 'application/json', false);
    expect(response.status).toBe(401);
  });
});
