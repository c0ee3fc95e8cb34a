// Server processes on one database, clients spread over them: every promise the API makes holds across
// them, on every backend, whether the service is three servers or two servers of two workers each
// (WORKERS=2, whose primary hands each connection to the next worker). The rate limits alone are counted per
// server where separate servers on one database do not share the count (a SQLite file), as the contract
// says.
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminStore } from '../../src/store/store.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilWorkersListen } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

/** How the service's processes are laid out. */
const SHAPES = [
  { name: 'three servers', count: 3, workers: 1 },
  { name: 'two servers of two workers each', count: 2, workers: 2 },
];
const SERVICES = STORE_BACKENDS.flatMap((backend) => SHAPES.map((shape) => ({ ...shape, backend, kind: backend.kind })));

/** The servers of one shape on `database`, once every worker of each listens (each says so in its log at info). */
async function startServers(database: ScratchDatabase, { count, workers }: { count: number; workers: number }, env: NodeJS.ProcessEnv = {}) {
  const settings = { DATABASE_URL: database.url, LOG_LEVEL: 'info', WORKERS: String(workers), ...env };
  const servers = await Promise.all(Array.from({ length: count }, () => spawnServer(settings, { init: false })));
  await Promise.all(servers.map((server) => untilWorkersListen(server, workers)));
  return servers;
}

async function stopServers(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.finished));
}

/**
 * Request number `i`, to server `i` mod the number of servers, sent as the contract tells a client to:
 * again after a 503's Retry-After. On a machine kept busy by other work, a server just started on
 * PostgreSQL can answer its first burst so (a new pool connection taking longer than the pool's 2 s wait:
 * 503 storage_unavailable, nothing written); what these tests prove is what the servers agree on once they
 * answer. A 503 for a write that was in fact done would still show: as a second success, or none.
 */
async function call(servers: ServerProcess[], i: number, path: string, init: RequestInit, bearer: string): Promise<Response> {
  for (;;) {
    const answer = await fetch(`${servers[i % servers.length]?.baseUrl}/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json', ...init.headers },
    });
    const retryAfter = answer.headers.get('retry-after');
    if (answer.status !== 503 || retryAfter === null) return answer;
    console.log(`server ${i % servers.length} answered ${path} 503 (${await answer.text()}): sent again in ${retryAfter} s`);
    await setTimeout(Number(retryAfter) * 1000);
  }
}

/** A new database, made as an operator makes one, with `init`. */
async function initialisedDatabase(kind: ScratchDatabase['kind']): Promise<ScratchDatabase> {
  const database = await scratchDatabase(kind, 'store-orders-instances-');
  expect((await runCliInProcess(['init'], { DATABASE_URL: database.url })).code).toBe(0);
  return database;
}

/** The account `name`, made with the CLI as an operator makes it, and a new key of it. */
async function accountWithKey(database: ScratchDatabase, name: string): Promise<string> {
  await runCliInProcess(['accounts', 'create', name], { DATABASE_URL: database.url });
  return (await runCliInProcess(['keys', 'create', '--account', name], { DATABASE_URL: database.url })).stdout.trim();
}

describe.each(SERVICES)('$name on one $kind database', (service) => {
  const { backend, count } = service;
  // One database and one set of servers for the file's tests of this service, started once: they are most
  // of what these tests cost (three to six processes a set). Each test has an account and a key of its own,
  // and reads back only what its account wrote.
  let database: ScratchDatabase;
  let servers: ServerProcess[] = [];
  let account: string;
  let key: string;
  let accounts = 0;

  beforeAll(async () => {
    if (!backend.available) return;
    database = await initialisedDatabase(backend.kind);
    servers = await startServers(database, service);
  });

  afterAll(async () => {
    if (!backend.available) return;
    await stopServers(servers);
    await database.drop();
  });

  beforeEach(async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    account = `acme${(accounts += 1)}`;
    key = await accountWithKey(database, account);
  });

  const send = (i: number, path: string, init: RequestInit = {}, bearer = key) => call(servers, i, path, init, bearer);

  async function withStore<T>(work: (store: AdminStore) => Promise<T>): Promise<T> {
    const store = await database.open();
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  /** The messages the test's account wrote. */
  const ownMessages = () => withStore(async (store) => (await store.messages.listMessages()).filter((message) => message.account === account));

  it('40 concurrent cancels of one order: exactly one 204, the rest 404 (a cancelled order is gone)', async () => {
    const order = await withStore((store) => store.orders.addOrder({ petId: 1, quantity: 1 }));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i, `/store/orders/${order.id}`, { method: 'DELETE' })),
    );
    const statuses = answers.map(({ status }) => status);
    // Any other answer is named with its body, should one come.
    const others = await Promise.all(answers.filter(({ status }) => status !== 204 && status !== 404).map(async (answer) => `${answer.status} ${await answer.text()}`));
    expect(statuses.filter((status) => status === 204), others.join('; ')).toHaveLength(1);
    expect(statuses.filter((status) => status === 404), others.join('; ')).toHaveLength(39);
  });

  it('100 concurrent sends with one Idempotency-Key: one message; every other answer replays it or is 409 in flight', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        send(i, '/messages', {
          method: 'POST',
          headers: { 'Idempotency-Key': 'one-order-please' },
          body: JSON.stringify({ message: 'only once' }),
        }),
      ),
    );
    const stored = await ownMessages();
    expect(stored).toHaveLength(1);
    for (const answer of answers) {
      const body = (await answer.json()) as { id?: string; code?: string };
      if (answer.status === 202) expect(body.id).toBe(stored[0]?.id);
      else expect({ status: answer.status, code: body.code }).toEqual({ status: 409, code: 'idempotency_key_in_use' });
    }
  });

  it('a key revoked with the CLI is refused by every server from its very next request', async () => {
    // Four at once to each server: connections of their own, which reach each of its workers.
    const everyProcess = async () =>
      (await Promise.all(Array.from({ length: 4 * count }, (_, i) => send(i, '/store/orders')))).map(({ status }) => status);
    expect(await everyProcess()).toEqual(Array(4 * count).fill(200));
    expect((await runCliInProcess(['keys', 'revoke', key], { DATABASE_URL: database.url })).code).toBe(0);
    expect(await everyProcess()).toEqual(Array(4 * count).fill(401));
  });

  it('a key that expires in 2 s and a key rolled with 2 s of overlap: each works on every server until then, and is refused as a revoked key from its first request after, writing nothing', async () => {
    const env = { DATABASE_URL: database.url };
    const cli = async (args: string[]) => (await runCliInProcess(args, env)).stdout.trim();
    const revoked = await cli(['keys', 'create', '--account', account]);
    await cli(['keys', 'revoke', revoked]);
    const refusal = async (bearer: string) => {
      const answer = await send(0, '/store/orders', {}, bearer);
      return { status: answer.status, authenticate: answer.headers.get('www-authenticate'), body: await answer.json() };
    };
    let sent = 0;
    let acceptedBefore = 0;
    // 2 s first. Where the machine is too busy for every server to answer each key once before its expiry,
    // the round proves only what follows the expiry, and runs again with twice the time.
    for (let seconds = 2; ; seconds *= 2) {
      const scoped = await cli(['keys', 'create', '--account', account, '--scopes', 'orders:read,messages:write']);
      const expiring = await cli(['keys', 'create', '--account', account, '--expires-in', `${seconds}s`]);
      const successor = await cli(['keys', 'roll', scoped, '--old-expires-in', `${seconds}s`]);
      const listed = await withStore((store) => store.keys.listKeys());
      const expiries = listed.slice(-3, -1).map(({ expiresAt }) => Date.parse(expiresAt as string));
      const [first, last] = [Math.min(...expiries), Math.max(...expiries)];

      // Each key to each server in turn, a round every 50 ms, until every server has refused both.
      const answers: { key: string; server: number; sentAt: number; answeredAt: number; status: number }[] = [];
      const refusedEverywhere = (key: string) =>
        servers.every((_, server) => answers.some((answer) => answer.key === key && answer.server === server && answer.status === 401));
      for (let i = 0; !refusedEverywhere(expiring) || !refusedEverywhere(scoped); i++) {
        for (const key of [expiring, scoped]) {
          const sentAt = Date.now();
          const answer = await send(i, '/messages', { method: 'POST', body: JSON.stringify({ message: `m${sent++}` }) }, key);
          answers.push({ key, server: i % servers.length, sentAt, answeredAt: Date.now(), status: answer.status });
          await answer.arrayBuffer();
        }
        if (i % servers.length === servers.length - 1) await setTimeout(50);
      }
      for (const [index, answer] of answers.entries()) {
        if (answer.answeredAt < first) expect(answer.status).toBe(202);
        if (answer.sentAt > last) expect(answer.status).toBe(401);
        expect([202, 401]).toContain(answer.status);
        // Once refused by a server, never answered again by it.
        const refused = answers.findIndex(({ key, server, status }) => key === answer.key && server === answer.server && status === 401);
        if (index > refused) expect(answer.status).toBe(401);
      }
      // Refused exactly as a revoked key is.
      expect(await refusal(expiring)).toEqual(await refusal(revoked));
      expect(await refusal(scoped)).toEqual(await refusal(revoked));
      // Nothing was written after the expiry: each message stored is one the API accepted, made before it.
      const stored = await ownMessages();
      const accepted = answers.filter(({ status }) => status === 202);
      expect(stored).toHaveLength(acceptedBefore + accepted.length);
      acceptedBefore += accepted.length;
      for (const message of stored) expect(Date.parse(message.createdAt)).toBeLessThan(last);
      // The rolled key's successor works on every server, with the same scopes.
      for (let i = 0; i < servers.length; i++) {
        expect((await send(i, '/store/orders', {}, successor)).status).toBe(200);
        expect((await send(i, '/store/orders/1', { method: 'DELETE' }, successor)).status).toBe(403);
      }
      const answeredOnEveryServer = [expiring, scoped].every((key) =>
        servers.every((_, server) => accepted.some((answer) => answer.key === key && answer.server === server)),
      );
      if (answeredOnEveryServer) break;
    }
  });

  // The last of the shared servers' tests: it leaves 10,004 orders in their database.
  it("an order cancelled on one server is gone from every server's next list; the ETags agree, short list and long", async () => {
    const etags = async () => {
      const lists = await Promise.all(Array.from({ length: 2 * count }, (_, i) => send(i, '/store/orders')));
      const bodies = await Promise.all(lists.map((list) => list.text()));
      // Every list answered, so that a differing ETag below is one of two 200s.
      expect(lists.map(({ status }, i) => `${status} ${status === 200 ? '' : bodies[i]}`.trim())).toEqual(lists.map(() => '200'));
      return { etags: lists.map((list) => list.headers.get('etag')), bodies };
    };
    for (const orders of [3, 10_001]) {
      await withStore((store) => store.orders.importOrders(Array.from({ length: orders }, () => ({ petId: 1, quantity: 1 }))));
      const before = await etags();
      expect(new Set(before.etags), before.etags.join(' ')).toHaveProperty('size', 1);
      expect(new Set(before.bodies).size).toBe(1);
      const [first] = JSON.parse(before.bodies[0] as string) as { id: number }[];
      expect((await send(1, `/store/orders/${first?.id}`, { method: 'DELETE' })).status).toBe(204);
      const after = await etags();
      expect(new Set(after.etags).size).toBe(1);
      expect(after.etags[0]).not.toBe(before.etags[0]);
      for (const body of after.bodies) expect(body).not.toContain(`{"id":${first?.id},`);
    }
  });
});


// Servers on PostgreSQL share the count (test/scale/sharedQuotas.test.ts), and so do the workers of one server
// on SQLite (sharedQuotas.test.ts counts across workers); separate servers on one SQLite file do not, as
// docs/operating.md says. Servers of their own: the quota is a setting.
describe('three servers on one sqlite database, with a quota of 3', () => {
  it('counts the rate limit per server where servers do not share the count: a key gets its quota from each of them', async () => {
    const windowMs = 10_000;
    const database = await initialisedDatabase('sqlite');
    const env = { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: String(windowMs / 1000) };
    const servers = await startServers(database, { count: 3, workers: 1 }, env);
    try {
      const key = await accountWithKey(database, 'acme');
      // The windows are fixed on the clock, the same for the three servers. Requests after the end of a
      // window count in the next one, so a run that crosses an end can only be taken again in the window after.
      const untilNextWindow = () => setTimeout(windowMs - (Date.now() % windowMs) + 50);
      /** Twelve requests, spread over the three servers; `undefined` if a window ended on the way. */
      const twelve = async () => {
        const answers: { status: number; remaining: string | undefined; reset: number }[] = [];
        for (let i = 0; i < 12; i++) {
          const response = await call(servers, i, '/store/orders', {}, key);
          const [, remaining, reset] = /;r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '') ?? [];
          answers.push({ status: response.status, remaining, reset: Number(reset) });
        }
        const windowEnded = answers.some((answer, i) => i > 0 && answer.reset > (answers[i - 1]?.reset ?? 0));
        return windowEnded ? undefined : answers;
      };
      // Until a run fits in one window, however slow the machine; the suite's time-out is the hang guard.
      let answers = await twelve();
      while (answers === undefined) answers = await untilNextWindow().then(twelve);
      // Requests 0 to 8 are each server's three, the first of each leaving two; 9 to 11 each server's fourth.
      expect(answers.map(({ status }) => status)).toEqual([...Array<number>(9).fill(200), 429, 429, 429]);
      expect(answers.slice(0, 3).map(({ remaining }) => remaining)).toEqual(['2', '2', '2']);
    } finally {
      await stopServers(servers);
      await database.drop();
    }
  });
});
