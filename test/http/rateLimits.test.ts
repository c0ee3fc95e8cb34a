// The two quotas: requests per key, and failed authentications per client address. Both answer 429 with
// the Error body, Retry-After and the RateLimit fields, and neither resets for a respelled Authorization.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateKey } from '../../src/keys.js';
import {
  answersUnderWriteLock,
  CheckedClient,
  controllableHandlers,
  everyAnswerCases,
  type HandlerControl,
  uncoveredAnswers,
} from '../support/everyAnswer.js';
import { rawRequest, wrongKey } from '../support/http.js';
import { createKey, ON_SQLITE, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
});

const list = (authorization?: string) =>
  rawRequest(`${server.baseUrl}/v1/store/orders`, {
    headers: authorization === undefined ? {} : { Authorization: authorization },
  });

/**
 * A clock the test moves; the window of 60 s starts at a whole minute. A test whose requests must share a
 * window uses it too, since a real window may end between two of them.
 */
function movableClock() {
  const clock = { ms: Date.parse('2026-11-23T10:00:00.000Z') };
  return { clock, now: () => new Date(clock.ms) };
}

describe('the per-key quota', () => {
  it('tells every answer where the quota stands, then answers 429 with Retry-After once it is used up', async () => {
    const { clock, now } = movableClock();
    server = await startServer({
      now,
      rateLimits: { requestsPerKey: 3, authFailuresPerAddress: 0, windowSeconds: 60 },
    });
    const { key } = await createKey(server.store);
    clock.ms += 20_000;
    const answers = [await list(`Bearer ${key}`), await list(`Bearer ${key}`), await list(`Bearer ${key}`)];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('ratelimit'))).toEqual([
      '"per-key";r=2;t=40',
      '"per-key";r=1;t=40',
      '"per-key";r=0;t=40',
    ]);
    expect(answers[0]?.headers.get('ratelimit-policy')).toBe('"per-key";q=3;w=60');

    const refused = await list(`Bearer ${key}`);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      code: 'too_many_requests',
      message: 'Too many requests for this API key; retry later',
      status: 429,
    });
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('ratelimit')).toBe('"per-key";r=0;t=40');
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it.each([['bearer'], ['BEARER'], ['Bearer  ']])(
    'cannot be evaded by spelling the scheme %j',
    async (scheme) => {
      // A fixed clock: the window must not roll over between the requests.
      server = await startServer({
        rateLimits: { requestsPerKey: 2, authFailuresPerAddress: 0, windowSeconds: 60 },
        now: movableClock().now,
      });
      const { key } = await createKey(server.store);
      await list(`Bearer ${key}`);
      await list(`Bearer ${key}`);
      expect((await list(`${scheme} ${key}`)).status).toBe(429);
      expect((await list(`${scheme} ${key}  `)).status).toBe(429);
    },
  );

  it('counts each key apart, and starts over in the next window', async () => {
    const { clock, now } = movableClock();
    server = await startServer({
      now,
      rateLimits: { requestsPerKey: 1, authFailuresPerAddress: 0, windowSeconds: 60 },
    });
    const first = (await createKey(server.store)).key;
    const second = (await createKey(server.store)).key;
    expect((await list(`Bearer ${first}`)).status).toBe(200);
    expect((await list(`Bearer ${first}`)).status).toBe(429);
    expect((await list(`Bearer ${second}`)).status).toBe(200);
    clock.ms += 60_000;
    expect((await list(`Bearer ${first}`)).status).toBe(200);
  });

  it('applies to every operation, writes included', async () => {
    server = await startServer({
      rateLimits: { requestsPerKey: 1, authFailuresPerAddress: 0, windowSeconds: 60 },
      now: movableClock().now,
    });
    const { key } = await createKey(server.store);
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    expect((await list(`Bearer ${key}`)).status).toBe(200);
    const answers = await Promise.all([
      rawRequest(`${server.baseUrl}/v1/messages`, { method: 'POST', headers, body: '{"message":"x"}' }),
      rawRequest(`${server.baseUrl}/v1/store/orders/1`, { method: 'DELETE', headers }),
      rawRequest(`${server.baseUrl}/v1/pets/1`, { headers }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([429, 429, 429]);
    expect(await server.store.messages.listMessages()).toEqual([]);
  });

  // Every status includes 409 in flight, which this test makes with SQLite's write lock.
  it.runIf(ON_SQLITE)('tells where the quota stands on every answer to a valid key, whatever its status', async () => {
    const control: HandlerControl = { failure: undefined, entered: undefined };
    server = await startServer({
      handlers: controllableHandlers(control),
      writeWaitMs: 1_000,
      rateLimits: { requestsPerKey: 100_000, authFailuresPerAddress: 0, windowSeconds: 60 },
    });
    const { key } = await createKey(server.store);
    const scopeless = await createKey(server.store, 'acme', []);
    const client = new CheckedClient(server);
    await answersUnderWriteLock(client, key, control);
    for (const answerCase of await everyAnswerCases(server, key, control, scopeless.key)) await answerCase.run(client);
    client.close();
    const withKey = client.answers.filter(({ keyKnown }) => keyKnown);
    for (const { label, headers } of withKey) {
      expect(headers.get('ratelimit'), label).toMatch(/^"per-key";r=[0-9]+;t=[0-9]+$/);
      expect(headers.get('ratelimit-policy'), label).toBe('"per-key";q=100000;w=60');
    }
    // Every status an operation documents, but those answered before the key is known (401, 410, 501, the
    // address's 429) and the key's own 429, which the test above covers.
    const beforeTheKey = ({ status }: { status: number }) => [401, 410, 429, 501].includes(status);
    expect(uncoveredAnswers(withKey, beforeTheKey)).toEqual([]);
  });

  it('sends no RateLimit fields when it is turned off', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const answer = await list(`Bearer ${key}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit')).toBeNull();
  });
});

describe('the failed-authentication quota of an address', () => {
  it('refuses every request from the address with 429 once its failures are used up, even with a valid key', async () => {
    server = await startServer({
      rateLimits: { requestsPerKey: 0, authFailuresPerAddress: 3, windowSeconds: 60 },
      now: movableClock().now,
    });
    const { key } = await createKey(server.store);
    const failures = [await list(), await list('Bearer sok_nope'), await list(`Bearer ${wrongKey(key)}`)];
    expect(failures.map((answer) => answer.status)).toEqual([401, 401, 401]);

    for (const authorization of [`Bearer ${key}`, `bearer   ${key}`, 'Bearer wrong', undefined]) {
      const refused = await list(authorization);
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ code: 'too_many_requests', status: 429 });
      expect(refused.headers.get('ratelimit-policy')).toBe('"auth-failures";q=3;w=60');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('refuses an address over its quota before its key is looked up, so the answer cannot tell a real key', async () => {
    server = await startServer({
      rateLimits: { requestsPerKey: 0, authFailuresPerAddress: 1, windowSeconds: 60 },
      now: movableClock().now,
    });
    const lookups = vi.spyOn(server.store.keys, 'findActiveKey');
    const { key } = await createKey(server.store);
    // Well formed, so it is looked up (a malformed key is refused before any lookup), but never issued.
    expect((await list(`Bearer ${generateKey()}`)).status).toBe(401);
    expect(lookups).toHaveBeenCalledTimes(1);
    lookups.mockClear();
    const refused = [
      await list(`Bearer ${key}`),
      await rawRequest(`${server.baseUrl}/v1/store/orders/1`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${key}` },
      }),
    ];
    expect(refused.map(({ status }) => status)).toEqual([429, 429]);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('does not count successful authentications', async () => {
    server = await startServer({
      rateLimits: { requestsPerKey: 0, authFailuresPerAddress: 1, windowSeconds: 60 },
      now: movableClock().now,
    });
    const { key } = await createKey(server.store);
    for (let i = 0; i < 5; i++) expect((await list(`Bearer ${key}`)).status).toBe(200);
    expect((await list('Bearer wrong')).status).toBe(401);
    expect((await list(`Bearer ${key}`)).status).toBe(429);
  });
});
