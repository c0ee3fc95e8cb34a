// Secrets: keys are never stored or logged in clear, any Authorization value that is not a key is a 401,
// authenticated answers are never cached, and no answer names the stack it runs on.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { generateKey } from '../../src/keys.js';
import { handlers as defaultHandlers } from '../../src/operations/index.js';
import { contractViolations } from '../support/contract.js';
import { seededRandom } from '../support/faults.js';
import { rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
afterEach(() => server.close());

/** Every 8-character piece of a key: none may appear where the key must not. */
function piecesOf(key: string): string[] {
  return Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));
}

/**
 * fetch, with the answer checked against the contract. The 500 and 503 here are caused on purpose, so
 * being a 5xx is the one complaint they may have.
 */
async function checkedFetch(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(url, init);
  const bodyText = await response.text();
  const problems = contractViolations({
    method: init.method ?? 'GET',
    path: new URL(url).pathname,
    status: response.status,
    headers: response.headers,
    bodyText,
  });
  const unexpected = problems.filter((problem) => !/^server error (500|503)/.test(problem));
  expect(unexpected, `${init.method ?? 'GET'} ${url}`).toEqual([]);
  return { status: response.status, headers: response.headers };
}

/** A raw exchange over a socket of its own, for what fetch will not send; resolves with what came back. */
function rawExchange(text: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => {
      reply += String(chunk);
    });
    socket.on('close', () => resolve(reply));
    socket.on('error', () => resolve(reply));
  });
}

describe('keys at rest', () => {
  it('leave no 8-character piece of any of 50 issued keys in the database file or its write-ahead log', async () => {
    server = await startServer();
    const keys = Array.from({ length: 50 }, (_, i) => createKey(server.store, `account-${i % 5}`).key);
    await rawRequest(`${server.baseUrl}/v1/store/orders`, {
      headers: { Authorization: `Bearer ${keys[0]}` },
    });
    const bytes = Buffer.concat(
      [server.dbPath, `${server.dbPath}-wal`].flatMap((path) => {
        try {
          return [readFileSync(path)];
        } catch {
          return [];
        }
      }),
    ).toString('latin1');
    expect(bytes.length).toBeGreaterThan(0);
    for (const key of keys) for (const piece of piecesOf(key)) expect(bytes).not.toContain(piece);
    expect(server.store.listKeys()).toHaveLength(50);
  });
});

describe('Authorization values that are not a key', () => {
  it('10,000 random values from 0 to 8 KiB long: every one is a 401, none a 5xx', async () => {
    server = await startServer();
    const { key } = createKey(server.store);
    const random = seededRandom(20261123);
    const printable = (length: number) =>
      Array.from({ length }, () => String.fromCharCode(0x21 + Math.floor(random() * 94))).join('');
    const lengthUpTo = (max: number) => Math.floor(random() ** 3 * max);
    const values = Array.from({ length: 10_000 }, (_, i) => {
      switch (i % 5) {
        case 0:
          return printable(lengthUpTo(8192));
        case 1:
          return `Bearer ${printable(lengthUpTo(8185))}`;
        case 2:
          return `Bearer ${generateKey()}`; // well formed, never issued
        case 3: {
          const at = Math.floor(random() * key.length);
          const other = key[at] === 'a' ? 'b' : 'a';
          return `Bearer ${key.slice(0, at)}${other}${key.slice(at + 1)}`;
        }
        default:
          return ['', 'Bearer', 'Bearer ', `Basic ${key}`, `Token ${key}`, `Bearer ${key}x`, ` ${key}`][
            i % 7
          ] as string;
      }
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const { port } = new URL(server.baseUrl);
    const statusOf = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        request(
          {
            host: '127.0.0.1',
            port,
            path: '/v1/store/orders',
            agent,
            headers: { Authorization: authorization },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        )
          .on('error', reject)
          .end();
      });
    const statuses = new Map<number, number>();
    for (let start = 0; start < values.length; start += 64) {
      const batch = await Promise.all(values.slice(start, start + 64).map(statusOf));
      for (const status of batch) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    agent.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 401: 10_000 });
  });
});

describe('a canary key sent down every error path', () => {
  it('appears in no log line, and every answer to it is marked no-store and names no stack', async () => {
    server = await startServer({
      logLevel: 'trace',
      rateLimits: { requestsPerKey: 600, authFailuresPerAddress: 0, windowSeconds: 3600 },
      http: { ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 },
      writeWaitMs: 50,
      handlers: {
        ...defaultHandlers,
        getPetById: () => {
          throw new Error('an unexpected failure in the handler');
        },
      },
    });
    const canary = createKey(server.store, 'canary').key;
    const auth = { Authorization: `Bearer ${canary}` };
    const json = { ...auth, 'Content-Type': 'application/json' };
    const base = `${server.baseUrl}/v1`;
    server.store.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
    const paths: [string, () => Promise<{ status: number; headers: Headers }>][] = [
      ['200', () => checkedFetch(`${base}/store/orders`, { headers: auth })],
      [
        '202',
        () => checkedFetch(`${base}/messages`, { method: 'POST', headers: json, body: '{"message":"hi"}' }),
      ],
      [
        '400 invalid_request',
        () => checkedFetch(`${base}/messages`, { method: 'POST', headers: json, body: '{}' }),
      ],
      [
        '400 invalid_json',
        () => checkedFetch(`${base}/messages`, { method: 'POST', headers: json, body: '{' }),
      ],
      [
        '400 content type',
        () => checkedFetch(`${base}/messages`, { method: 'POST', headers: auth, body: 'x' }),
      ],
      [
        '401',
        () => checkedFetch(`${base}/store/orders`, { headers: { Authorization: `Bearer ${canary}x` } }),
      ],
      ['404 path', () => checkedFetch(`${base}/nope`, { headers: auth })],
      ['404 order', () => checkedFetch(`${base}/store/orders/999`, { method: 'DELETE', headers: auth })],
      ['405', () => checkedFetch(`${base}/store/orders`, { method: 'PUT', headers: auth })],
      ['409', () => checkedFetch(`${base}/store/orders/1`, { method: 'DELETE', headers: auth })],
      [
        '413',
        () =>
          checkedFetch(`${base}/messages`, { method: 'POST', headers: json, body: 'x'.repeat(1_100_000) }),
      ],
      [
        '415',
        () =>
          checkedFetch(`${base}/messages`, {
            method: 'POST',
            headers: { ...json, 'Content-Encoding': 'gzip' },
            body: '{"message":"x"}',
          }),
      ],
      ['500', () => checkedFetch(`${base}/pets/1`, { headers: auth })],
    ];
    const answers: { path: string; status: number; headers: Headers }[] = [];
    // 503: another connection holds the write lock longer than the server waits.
    const holder = new Database(server.dbPath);
    holder.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 10; i++) {
      const { status, headers } = await checkedFetch(`${base}/messages`, {
        method: 'POST',
        headers: json,
        body: '{"message":"x"}',
      });
      answers.push({ path: '503', status, headers });
    }
    holder.exec('ROLLBACK');
    holder.close();
    for (let i = 0; answers.length < 969; i++) {
      const [path, send] = paths[i % paths.length] as (typeof paths)[number];
      const { status, headers } = await send();
      answers.push({ path, status, headers });
    }
    // 429: the key's quota of 600 is spent by now.
    for (let i = 0; i < 10; i++) {
      const { status, headers } = await checkedFetch(`${base}/store/orders`, { headers: auth });
      answers.push({ path: '429', status, headers });
    }
    // What Node answers before Fastify sees the request: malformed, too large, too slow, and the framing
    // refused before routing.
    const raw = [
      `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\nBad Header\r\n\r\n`,
      `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\nX-Slow: `,
      `GET /v1/store/orders?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\n\r\n`,
      `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\nExpect: x\r\n\r\n`,
      `CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\nAuthorization: Bearer ${canary}\r\n\r\n`,
      `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nHost: y\r\nAuthorization: Bearer ${canary}\r\n\r\n`,
    ];
    const rawReplies = await Promise.all(
      Array.from({ length: 21 }, (_, i) => rawExchange(raw[i % raw.length] as string)),
    );

    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].sort()).toEqual([200, 202, 400, 401, 404, 405, 409, 413, 415, 429, 500, 503]);
    expect(rawReplies.map((reply) => reply.slice(0, 12)).sort()).toEqual(
      expect.arrayContaining(['HTTP/1.1 400', 'HTTP/1.1 431', 'HTTP/1.1 408', 'HTTP/1.1 414', 'HTTP/1.1 417', 'HTTP/1.1 501']),
    );
    expect(answers.length + rawReplies.length).toBe(1_000);
    for (const { path, headers } of answers) {
      expect(headers.get('cache-control'), path).toBe('no-store');
      expect(headers.get('x-powered-by'), path).toBeNull();
      expect(headers.get('server'), path).toBeNull();
    }
    for (const reply of rawReplies) {
      expect(reply.toLowerCase()).not.toMatch(/\r\n(server|x-powered-by):/);
      expect(reply.toLowerCase()).toContain('\r\ncache-control: no-store\r\n');
    }

    const logs = server.logs.join('');
    expect(logs).toContain('an unexpected failure in the handler');
    for (const piece of piecesOf(canary)) expect(logs).not.toContain(piece);
  }, 60_000);
});
