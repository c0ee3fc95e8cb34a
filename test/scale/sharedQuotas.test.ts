// The request quotas hold for the whole service, however its processes are spread: on each backend, three
// servers on one database where they share the count (PostgreSQL), or else two workers of one server (on
// a SQLite file). A key with a quota of 100 per window, hammered from many connections across all of them,
// gets at most 100 answers plus one per process; the rest are 429 with truthful fields. The same for an
// address's failed authentications.
import { setTimeout } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/keys.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilWorkersListen } from '../support/processes.js';
import { scratchDatabase, STORE_BACKENDS, storeBackend } from '../support/storeBackends.js';

const QUOTA = 100;
/**
 * One window holds the whole test: the longest the setting takes (2001-09-09 to 2033-05-18), which the test
 * keeps clear of its end. An hour's ended within a minute of a test one run in sixty, which then waited it out.
 */
const WINDOW_SECONDS = 999_999_999;
/**
 * Many at once, but no more than each server's pool of 10 connections takes (8 each of three): a request
 * that waits past the pool's 2 s for one is answered 503, which a busy machine would make of
 * a queue.
 */
const CONNECTIONS = 24;
const REQUESTS = 400;

interface Service {
  name: string;
  available: boolean;
  /** How many processes answer: each may admit one request of a subject before its first lease. */
  processes: number;
  start: (env: NodeJS.ProcessEnv) => Promise<{ baseUrls: string[]; key: string; stop: () => Promise<void> }>;
}

const SERVICES: Service[] = STORE_BACKENDS.map(({ kind, available, sharedQuotas }) => ({
  name: sharedQuotas ? `three servers on one ${kind} database` : `two workers on one ${kind} database`,
  available,
  processes: sharedQuotas ? 3 : 2,
  async start(env) {
    const database = await scratchDatabase(kind, 'store-orders-quotas-');
    const key = await initWithKey(database.url);
    const servers = sharedQuotas
      ? await Promise.all(
          [0, 1, 2].map(() => spawnServer({ ...env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { init: false })),
        )
      : [await spawnServer({ ...env, DATABASE_URL: database.url, WORKERS: '2' }, { init: false })];
    // The second worker starts once the first listens. Hammered before it listens too, it could get its
    // first connection near the end, admit one request, lease a block and get nothing more to spend it on:
    // units unspent at the window's end, which the bound allows but the lower count here does not.
    if (!sharedQuotas) await untilWorkersListen(servers[0] as ServerProcess, 2);
    return {
      baseUrls: servers.map(({ baseUrl }) => baseUrl),
      key,
      stop: async () => {
        await stopAll(servers);
        await database.drop();
      },
    };
  },
}));

async function initWithKey(url: string): Promise<string> {
  expect((await runCliInProcess(['init'], { DATABASE_URL: url })).code).toBe(0);
  return (await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: url })).stdout.trim();
}

async function stopAll(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map(({ finished }) => finished));
}

interface Answer {
  status: number;
  rateLimit: string | null;
  retryAfter: string | null;
  /** The Error body's code, for a refusal. */
  code?: string;
}

/** `REQUESTS` requests from `CONNECTIONS` clients at once, spread over `baseUrls` in turn. */
async function hammer(baseUrls: string[], authorization: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const client = async () => {
    while (next < REQUESTS) {
      const baseUrl = baseUrls[next++ % baseUrls.length] as string;
      const response = await fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: authorization } });
      const body = await response.text();
      answers.push({
        status: response.status,
        rateLimit: response.headers.get('ratelimit'),
        retryAfter: response.headers.get('retry-after'),
        ...(response.status >= 400 && { code: (JSON.parse(body) as { code: string }).code }),
      });
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, client));
  return answers;
}

/** Not within a minute of a window's end, so that every request of the test counts in one window. */
async function clearOfWindowEnd(): Promise<void> {
  const left = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
  if (left < 60_000) await setTimeout(left + 1_000);
}

const refusalsAreTruthful = (answers: Answer[], policy: string) => {
  for (const answer of answers.filter(({ status }) => status === 429)) {
    expect(answer.rateLimit).toMatch(new RegExp(`^"${policy}";r=0;t=[0-9]+$`));
    const reset = Number(/;t=([0-9]+)$/.exec(answer.rateLimit ?? '')?.[1]);
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(answer.retryAfter).toBe(String(reset));
  }
};

describe.each(SERVICES)('$name', ({ available, processes, start }) => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it.skipIf(!available)(`admits a key's quota of ${QUOTA} plus at most one request per process, then 429`, async () => {
    await clearOfWindowEnd();
    const service = await start({
      RATE_LIMIT_REQUESTS: String(QUOTA),
      RATE_LIMIT_AUTH_FAILURES: '0',
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    });
    stop = service.stop;
    const answers = await hammer(service.baseUrls, `Bearer ${service.key}`);
    const admitted = answers.filter(({ status }) => status === 200).length;
    expect(answers.filter(({ status }) => status !== 200 && status !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(QUOTA);
    expect(admitted).toBeLessThanOrEqual(QUOTA + processes);
    refusalsAreTruthful(answers, 'per-key');
    console.log(`${REQUESTS} requests of one key over ${processes} processes: ${admitted} admitted, the rest 429`);
  });

  it.skipIf(!available)(
    `answers an address's failed authentications 401 up to its quota of ${QUOTA} plus one per process, then 429`,
    async () => {
      await clearOfWindowEnd();
      const service = await start({
        RATE_LIMIT_REQUESTS: '0',
        RATE_LIMIT_AUTH_FAILURES: String(QUOTA),
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      });
      stop = service.stop;
      // Twice as many as the quota and more: a process may still hold a unit of the count when the first
      // ends, which the second spends, so that by its end every process has found the count spent.
      const answers = [
        ...(await hammer(service.baseUrls, 'Bearer sok_not_a_key')),
        ...(await hammer(service.baseUrls, 'Bearer sok_not_a_key')),
      ];
      const failures = answers.filter(({ status }) => status === 401).length;
      expect(answers.filter(({ status }) => status !== 401 && status !== 429)).toEqual([]);
      expect(failures).toBeGreaterThanOrEqual(QUOTA);
      expect(failures).toBeLessThanOrEqual(QUOTA + processes);
      console.log(`${2 * REQUESTS} failed authentications over ${processes} processes: ${failures} answered 401, the rest 429`);
      refusalsAreTruthful(answers, 'auth-failures');
      // The address is refused whatever it sends now, a valid key included, by every process.
      const withKey = await hammer(service.baseUrls, `Bearer ${service.key}`);
      expect(withKey.filter(({ status }) => status !== 429)).toEqual([]);
    },
  );
});

describe.skipIf(!storeBackend('postgres').available)('three servers whose shared count cannot be reached', () => {
  it('each admit their share of the quota, the limit over the servers that took leases lately', async () => {
    await clearOfWindowEnd();
    const database = await scratchDatabase('postgres');
    const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_FAILURES: '0' };
    await initWithKey(database.url);
    const keys = [];
    for (const account of ['warm-1', 'warm-2', 'hammered']) {
      keys.push((await runCliInProcess(['keys', 'create', '--account', account], { DATABASE_URL: database.url })).stdout.trim());
    }
    const servers = await Promise.all(
      [0, 1, 2].map(() =>
        spawnServer({ ...env, RATE_LIMIT_REQUESTS: '30', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) }, { init: false }),
      ),
    );
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // Two rounds of leases, each waited for in the database (a server takes its first lease beside its
      // first request): by the second, each server has heard from the count that three share it.
      const listOnEach = async (key: string) => {
        for (const { baseUrl } of servers) {
          await (await fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer();
        }
      };
      for (const key of keys.slice(0, 2)) {
        await listOnEach(key);
        await untilCounted(holder, key, servers.length);
        // The count is in the database before each server has read its lease's answer, which tells it how
        // many share the count: a second request of the key waits for that lease, so each one has read it.
        await listOnEach(key);
      }
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE quota_windows IN ACCESS EXCLUSIVE MODE');
      const answers = await hammer(
        servers.map(({ baseUrl }) => baseUrl),
        `Bearer ${keys[2] as string}`,
      );
      const admitted = answers.filter(({ status }) => status === 200).length;
      expect(answers.filter(({ status }) => status !== 200 && status !== 429)).toEqual([]);
      // Each server: its one request before a lease, then its share, 30 / 3, less that one.
      expect(admitted).toBe(30);
      console.log(`the count out of reach: ${admitted} of ${REQUESTS} admitted over three servers, 10 each`);
    } finally {
      await holder.end();
      await stopAll(servers);
      await database.drop();
    }
  });
});

/** Until the shared count holds at least `spent` units of `key`'s window: every server's lease is in. */
async function untilCounted(client: pg.Client, key: string, spent: number): Promise<void> {
  const digest = keyDigest(key);
  for (;;) {
    const { rows } = await client.query<{ used: string | null }>(
      `SELECT sum(w.used) AS used FROM quota_windows w JOIN api_keys k ON w.subject = k.id::text
       WHERE k.digest = $1 AND w.quota = 'per-key'`,
      [digest],
    );
    if (Number(rows[0]?.used ?? 0) >= spent) return;
    await setTimeout(20);
  }
}
