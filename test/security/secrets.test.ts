// Secrets: keys are never stored or logged in clear, any Authorization value that is not a key is a 401,
// authenticated answers are never cached, and no answer names the stack it runs on.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { generateKey } from '../../src/keys.js';
import { handlersByVersion } from '../../src/operations/index.js';
import {
  type Answer,
  type AnswerCase,
  answersUnderWriteLock,
  CheckedClient,
  codeOf,
  controllableHandlers,
  errorCodeTable,
  everyAnswerCases,
  operationName,
  type HandlerControl,
  UNDER_WRITE_LOCK,
  uncoveredAnswers,
} from '../support/everyAnswer.js';
import { seededRandom } from '../support/faults.js';
import { rawRequest } from '../support/http.js';
import { addKey, createKey, type StartOptions, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
afterEach(() => server.close());

/** Every operation of both versions, as the answer table names them. */
const OPERATIONS = (['v1', 'v2'] as const).flatMap((version) =>
  Object.keys(handlersByVersion[version]).map((operationId) => operationName(version, operationId)),
);

/** Every 8-character piece of a key: none may appear where the key must not. */
function piecesOf(key: string): string[] {
  return Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));
}

/** A raw exchange over a socket of its own, for what fetch will not send; resolves with what came back. */
function rawExchange(to: TestServer, text: string): Promise<string> {
  const { port } = new URL(to.baseUrl);
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
    const keys: string[] = [];
    for (let i = 0; i < 50; i++) keys.push((await createKey(server.store, `account-${i % 5}`)).key);
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
    expect(await server.store.keys.listKeys()).toHaveLength(50);
  });
});

describe('Authorization values that are not a key', () => {
  it('10,000 random values from 0 to 8 KiB long: every one is a 401, none a 5xx', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
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

describe('a key sent in the URL (RFC 6750 §2.3)', () => {
  const KEY_IN_URL = {
    code: 'unauthorized',
    message: 'Send the API key in the Authorization header, not in the URL',
    status: 401,
  };

  it('is refused with 401 and its own message on every operation, valid Authorization or not', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    await server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const base = `${server.baseUrl}/v1`;
    const header = { Authorization: `Bearer ${key}` };
    const json = { 'Content-Type': 'application/json' };
    const requests: [string, RequestInit][] = [
      [`${base}/store/orders?access_token=${key}`, {}],
      [`${base}/store/orders?access_token=${key}`, { headers: header }],
      [`${base}/store/orders?limit=5&access_token=${key}`, { headers: header }],
      [`${base}/store/orders?access_token`, { headers: header }],
      [`${base}/store/orders/1?access_token=${key}`, { method: 'DELETE', headers: header }],
      [`${base}/messages?access_token=${key}`, { method: 'POST', headers: json, body: '{"message":"x"}' }],
      [`${base}/pets/1?access_token=${key}`, {}],
    ];
    for (const [url, init] of requests) {
      const response = await rawRequest(url, init);
      expect(response.status, url).toBe(401);
      expect(response.headers.get('www-authenticate'), url).toBe('Bearer realm="store-orders"');
      expect(response.json, url).toEqual(KEY_IN_URL);
    }
    expect(await server.store.messages.listMessages()).toEqual([]);
    expect((await server.store.orders.findOrder(1))?.status).toBe('pending');
    // Another query parameter with a valid key is still the contract's 400, not this 401.
    const other = await rawRequest(`${base}/store/orders?api_key=${key}`, { headers: header });
    expect(other.json).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('leaves no 8-character piece of the key in the trace-level log, on any path', async () => {
    server = await startServer({ logLevel: 'trace' });
    const { key } = await createKey(server.store);
    const header = { Authorization: `Bearer ${key}` };
    const paths = [
      `/v1/store/orders?access_token=${key}`,
      `/v1/store/orders?api_key=${key}`,
      `/v1/store/orders?${key}`,
      `/v1/store/orders?a=1&access_token=${key}&b=2`,
      `/v1/store/orders/1?access_token=${key}`,
      `/v1/pets/1?access_token=${key}`,
      `/v1/nope?access_token=${key}`,
      `/v1/store/orders/%zz?access_token=${key}`,
      `/nope?access_token=${key}`,
      `/healthz?access_token=${key}`,
      `/metrics?access_token=${key}`,
      `/v1/openapi.json?access_token=${key}`,
      `/docs?access_token=${key}`,
    ];
    for (const path of paths) {
      await rawRequest(`${server.baseUrl}${path}`, { method: 'GET' });
      await rawRequest(`${server.baseUrl}${path}`, { method: 'GET', headers: header });
      await rawRequest(`${server.baseUrl}${path}`, { method: 'PUT', headers: header });
    }
    const logs = server.logs.join('');
    expect(logs).toContain('/v1/store/orders?access_token=[redacted]');
    expect(logs).toContain('/v1/store/orders?a=[redacted]&access_token=[redacted]&b=[redacted]');
    for (const piece of piecesOf(key)) expect(logs).not.toContain(piece);
  });
});

describe('a canary key sent down every error path', () => {
  it('appears in no log line, and every answer to it is marked no-store and names no stack', async () => {
    const canary = generateKey();
    const control: HandlerControl = { failure: undefined, entered: undefined };
    const started = (options: StartOptions) =>
      startServer({ logLevel: 'trace', handlers: controllableHandlers(control), ...options });
    server = await started({
      rateLimits: { requestsPerKey: 1_000_000, authFailuresPerAddress: 0, windowSeconds: 3600 },
      writeWaitMs: 1_000,
    });
    await addKey(server.store, canary);
    const client = new CheckedClient(server);
    const expected = new Map<Answer, { status: number; code?: string }>();
    const run = async (cases: AnswerCase[]) => {
      for (const { status, code, ...sent } of cases)
        expected.set(await sent.run(client), { status, ...(code !== undefined && { code }) });
    };

    for (const answer of await answersUnderWriteLock(client, canary, control))
      expected.set(answer, UNDER_WRITE_LOCK[answer.label] as { status: number; code: string });
    const cases = await everyAnswerCases(server, canary, control);
    while (client.answers.length < 850) await run(cases);

    // The quotas, and the sunset, on a server of their own: its per-key quota allows one request, and
    // its failed-auth quota one failure.
    const clock = { ms: Date.now() };
    const quoted = await started({
      now: () => new Date(clock.ms),
      rateLimits: { requestsPerKey: 1, authFailuresPerAddress: 1, windowSeconds: 3600 },
    });
    await addKey(quoted.store, canary);
    const quotedClient = new CheckedClient(quoted);
    try {
      const quotaCases = await everyAnswerCases(quoted, canary, control);
      const byLabel = (label: string) => quotaCases.find((c) => c.label === label) as AnswerCase;
      // One request with a valid key for each operation (the 500 cases: any answer within the quotas would
      // do, since a quota answers before the handler runs).
      const withKey = OPERATIONS.map((operationId) => byLabel(`${operationId} 500`));
      const sendAs = async (template: AnswerCase, status: number, code: string | undefined) => {
        const answer = await template.run(quotedClient);
        expected.set(answer, { status, ...(code !== undefined && { code }) });
      };
      clock.ms = Date.parse('2100-01-01T00:00:00Z');
      await sendAs(byLabel('getPetById 200'), 410, 'gone');
      clock.ms = Date.now();
      await sendAs(byLabel('listOrders 200'), 200, undefined);
      for (const template of withKey) await sendAs(template, 429, 'too_many_requests');
      await sendAs(byLabel('listOrders 401 wrong key'), 401, 'unauthorized');
      for (const template of withKey) await sendAs(template, 429, 'too_many_requests');
    } finally {
      quotedClient.close();
      await quoted.close();
    }
    // The 403 of a missing scope, on a server of its own where the canary has no scope at all.
    const scoped = await started({});
    await addKey(scoped.store, canary, 'acme', []);
    const scopedClient = new CheckedClient(scoped);
    try {
      const { key: anyKey } = await createKey(scoped.store, 'globex');
      const forbidden = (await everyAnswerCases(scoped, anyKey, control, canary)).filter(({ label }) => label.endsWith(' 403'));
      expect(forbidden.length).toBeGreaterThan(0);
      for (const { status, code, ...sent } of forbidden) {
        expected.set(await sent.run(scopedClient), { status, ...(code !== undefined && { code }) });
      }
    } finally {
      scopedClient.close();
      await scoped.close();
    }
    client.close();
    const answers = [...client.answers, ...quotedClient.answers, ...scopedClient.answers];
    const quotaPolicies = quotedClient.answers
      .filter(({ status }) => status === 429)
      .map(({ headers }) => headers.get('ratelimit-policy')?.split(';')[0]);
    expect(quotaPolicies).toEqual([
      ...OPERATIONS.map(() => '"per-key"'),
      ...OPERATIONS.map(() => '"auth-failures"'),
    ]);

    // What Node answers before Fastify sees the request: malformed, too large, too slow.
    const head = `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\n`;
    const raw = [
      { status: 400, code: 'bad_request', text: `${head}Bad Header\r\n\r\n` },
      { status: 431, code: 'headers_too_large', text: `${head}X-Big: ${'a'.repeat(20_000)}\r\n\r\n` },
      { status: 408, code: 'request_timeout', text: `${head}X-Slow: ` },
      {
        status: 414,
        code: 'uri_too_long',
        text: `GET /v1/store/orders?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\n\r\n`,
      },
      { status: 417, code: 'expectation_failed', text: `${head}Expect: x\r\n\r\n` },
      { status: 501, code: 'not_implemented', text: `CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\nAuthorization: Bearer ${canary}\r\n\r\n` },
      {
        status: 501,
        code: 'not_implemented',
        text: `POST /v1/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${canary}\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
      },
      { status: 400, code: 'bad_request', text: `${head}Host: y\r\n\r\n` },
    ];
    const rawCount = 1_000 - answers.length;
    expect(rawCount).toBeGreaterThanOrEqual(raw.length);
    const rawSent = Array.from({ length: rawCount }, (_, i) => raw[i % raw.length] as (typeof raw)[number]);
    // The slow request on a server of its own, whose short time-outs make the 408; the others on one with the
    // default time-outs: at 300 ms, a complete request that a busy machine parses late is answered 408 too.
    const timingOut = await started({ http: { ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const patient = await started({});
    await addKey(timingOut.store, canary);
    await addKey(patient.store, canary);
    const rawReplies = await Promise.all(
      rawSent.map(({ status, text }) => rawExchange(status === 408 ? timingOut : patient, text)),
    ).finally(() => Promise.all([timingOut.close(), patient.close()]));

    for (const answer of answers) {
      // The only answers without an expectation are a case's own preparation (an ETag, a first use, a
      // message, an endpoint registered or deleted).
      const wanted = expected.get(answer);
      if (wanted) {
        expect(answer.status, answer.label).toBe(wanted.status);
        if (wanted.code) expect(codeOf(answer), answer.label).toBe(wanted.code);
      } else expect(answer.label, 'an answer no case expects').toMatch(/\((its ETag|first use|its message|its endpoint|its endpoint deleted)\)$/);
      expect(answer.headers.get('cache-control'), answer.label).toBe('no-store');
      expect(answer.headers.get('x-powered-by'), answer.label).toBeNull();
      expect(answer.headers.get('server'), answer.label).toBeNull();
    }
    rawReplies.forEach((reply, i) => {
      const { status, code } = rawSent[i] as (typeof raw)[number];
      const [fields = '', body = ''] = reply.split('\r\n\r\n');
      expect(fields, `raw reply ${i}`).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(fields.toLowerCase(), `raw reply ${i}`).not.toMatch(/\r\n(server|x-powered-by):/);
      expect(fields.toLowerCase(), `raw reply ${i}`).toContain('\r\ncache-control: no-store');
      expect(fields.toLowerCase(), `raw reply ${i}`).toMatch(/\r\nx-request-id: /);
      expect(JSON.parse(body), `raw reply ${i}`).toMatchObject({ code, status });
    });

    // Complete by construction: every status of every operation, and every code of the Error table.
    expect(uncoveredAnswers(answers)).toEqual([]);
    const codesSeen = new Set([...answers.map(codeOf), ...raw.map(({ code }) => code)]);
    expect(errorCodeTable().map(({ code }) => code).filter((code) => !codesSeen.has(code))).toEqual([]);
    expect(answers.length + rawReplies.length).toBe(1_000);

    const logs = [...server.logs, ...quoted.logs, ...scoped.logs, ...timingOut.logs, ...patient.logs].join('');
    expect(logs).toContain('an unexpected failure in the handler');
    for (const piece of piecesOf(canary)) expect(logs).not.toContain(piece);
  });
});
