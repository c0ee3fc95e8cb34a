// `store-orders copy`: a database a server wrote, copied into a new one of any backend, serves the same,
// byte for byte, for every pair of backends (PostgreSQL's pairs need TEST_DATABASE_URL); a source of any
// backend whose schema is not this build's is refused.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/commandLine.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS, useScratchDatabase } from '../support/storeBackends.js';

describe('store-orders copy', () => {
  const scratch = useScratchDatabase('store-orders-copy-');
  const file = (name: string) => `${scratch.folder}/${name}`;

  it('needs --to, a database of some backend in --to and --from, and two different databases', async () => {
    for (const args of [
      ['copy'],
      ['copy', 'postgres://x/y'],
      ['copy', '--to', 'mysql://db/orders'],
      ['copy', '--from', 'mysql://db/orders', '--to', 'x.db'],
      ['copy', '--from', file('a.db'), '--to', `file://${file('a.db')}`],
    ]) {
      const result = await runCliInProcess(args, { DATABASE_URL: '/nonexistent/store.db' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('store-orders copy --help');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('copies the file at DATABASE_URL with --to alone, as 1.4.0 documented', async () => {
    const source = file('source.db');
    expect((await runCliInProcess(['init'], { DATABASE_URL: source })).code).toBe(0);
    expect((await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: source })).code).toBe(0);
    // As a process: the family's run of the real CLI.
    const copied = await runCli(['copy', '--to', file('target.db')], { DATABASE_URL: source });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/^copied .*source\.db to .*target\.db: 1 accounts, 0 orders, 0 pets, 1 api keys,/);
    const listed = await runCliInProcess(['keys', 'list'], { DATABASE_URL: file('target.db') });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ account: 'acme' }]);
  });
});

describe.each(STORE_BACKENDS)('store-orders copy from $kind', (backend) => {
  let source: ScratchDatabase;
  beforeEach(async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    source = await scratchDatabase(backend.kind);
  });
  afterEach(async () => {
    if (backend.available) await source.drop();
  });

  it("refuses a source whose schema is not this build's, and writes nothing", async () => {
    expect((await runCliInProcess(['init'], { DATABASE_URL: source.url })).code).toBe(0);
    const { latest } = backend.migrations;
    for (const version of [latest - 1, latest + 1]) {
      await source.stampSchemaVersion(version);
      const target = `${source.folder}/copy-${version}.db`;
      const copied = await runCliInProcess(['copy', '--from', source.url, '--to', target], {});
      expect(copied.code).toBe(1);
      expect(copied.stderr).toContain(`the source's schema is version ${version}`);
      expect(existsSync(target)).toBe(false);
    }
  });
});

const PAIRS = STORE_BACKENDS.flatMap((from) => STORE_BACKENDS.map((to) => ({ from, to })));

describe.each(PAIRS)('store-orders copy from $from.kind to $to.kind', ({ from, to }) => {
  let source: ScratchDatabase;
  let target: ScratchDatabase;
  const servers: ServerProcess[] = [];

  beforeEach(async ({ skip }) => {
    if (!from.available || !to.available) skip(from.unavailable ?? to.unavailable);
    source = await scratchDatabase(from.kind);
    // Empty: the copy makes the target's schema.
    target = await scratchDatabase(to.kind, { schema: 'empty' });
  });

  afterEach(async () => {
    if (!from.available || !to.available) return;
    for (const server of servers.splice(0)) server.child.kill('SIGKILL');
    await Promise.all([source.drop(), target.drop()]);
  });

  const cli = (args: string[], on: ScratchDatabase) => runCliInProcess(args, { DATABASE_URL: on.url });
  const call = (server: ServerProcess, path: string, key: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
    });
  const send = (server: ServerProcess, key: string, idempotencyKey: string, message: string) =>
    call(server, '/messages', key, {
      method: 'POST',
      headers: { 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify({ message }),
    });

  /** A server on the source, and what it and the CLI wrote: keys, orders, a pet, messages, deprecated calls. */
  async function fillSource() {
    const server = await spawnServer({ DATABASE_URL: source.url, LOG_LEVEL: 'warn' });
    servers.push(server);
    await cli(['accounts', 'create', 'acme'], source);
    const key = (await cli(['keys', 'create', '--account', 'acme'], source)).stdout.trim();
    const revoked = (await cli(['keys', 'create', '--account', 'acme'], source)).stdout.trim();
    expect((await cli(['keys', 'revoke', revoked], source)).code).toBe(0);
    // An endpoint of the order events, disabled by its client: they are written for it, never sent meanwhile.
    const v2 = (path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}/v2/webhook-endpoints${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
    const body = JSON.stringify({ url: 'https://hooks.example.com/in', events: ['order.cancelled', 'order.shipped'] });
    const endpoint = (await (await v2('', { method: 'POST', body })).json()) as { id: string };
    expect((await v2(`/${endpoint.id}`, { method: 'PATCH', body: '{"status":"disabled"}' })).status).toBe(200);
    const store = await source.open();
    await store.orders.importOrders(Array.from({ length: 25 }, (_, i) => ({ petId: i + 1, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z' })));
    await store.orders.addOrder({ petId: 99, complete: true });
    await store.orders.shipOrder(3);
    await store.pets.addPet('Rex');
    const account = await store.keys.findAccount('acme');
    await store.telemetry.recordDeprecatedCalls([
      { operationId: 'getPetById', accountId: account?.id ?? 0, firstCallAt: '2026-11-01T00:00:00.000Z', lastCallAt: '2026-11-02T00:00:00.000Z', count: 7 },
    ]);
    await store.close();
    expect((await call(server, '/store/orders/5', key, { method: 'DELETE' })).status).toBe(204);
    const first = await send(server, key, 'moving-day', 'before the move');
    expect(first.status).toBe(202);
    // Both order events again for the endpoint, and one attempt of it.
    const replay = await v2(`/${endpoint.id}/replay`, { method: 'POST', body: JSON.stringify({ since: '2026-01-01T00:00:00Z' }) });
    expect(await replay.json()).toEqual({ queued: 2 });
    const attempt = { endpointId: endpoint.id, eventId: `evt_${'1'.repeat(22)}`, eventType: 'order.shipped' as const };
    const attemptStore = await source.open();
    await attemptStore.webhooks.recordAttempt({ ...attempt, attempt: 1, outcome: 'failed', statusCode: 503, attemptedAt: '2026-12-06T10:00:00.000Z' });
    await attemptStore.close();
    // U+0000 is a string the contract allows: each backend holds it, and so must the copy.
    const withNul = await send(server, key, 'nul-day', 'a\u0000b');
    expect(withNul.status).toBe(202);
    return { server, key, revoked, endpoint: endpoint.id, answers: { first: await first.text(), withNul: await withNul.text() } };
  }

  it('carries everything: a server on the copy serves the same, byte for byte, and the keys and retries still count', async () => {
    const { server, key, revoked, endpoint, answers } = await fillSource();

    // Copied while the source's server still runs; DATABASE_URL names neither.
    const copy = ['copy', '--from', source.url, '--to', target.url];
    const copied = await runCliInProcess(copy, { DATABASE_URL: '/nonexistent/store.db' });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(
      /^copied .* to .*: 1 accounts, 26 orders, 1 pets, 2 api keys, 1 deprecated calls, 2 events, 2 idempotency keys, 2 messages, 1 webhook endpoints, 1 webhook attempts, 2 webhook replays\n$/,
    );

    // The keys as copied, their last use included: a server on the copy then notes uses of its own.
    const keysListed = await Promise.all([cli(['keys', 'list'], source), cli(['keys', 'list'], target)]);
    expect(keysListed[1].stdout).toBe(keysListed[0].stdout);
    expect(keysListed[0].stdout).toContain('"lastUsedAt"');

    const copyServer = await spawnServer({ DATABASE_URL: target.url, LOG_LEVEL: 'warn' }, { init: false });
    servers.push(copyServer);
    const lists = await Promise.all([server, copyServer].map(async (on) => (await call(on, '/store/orders', key)).text()));
    expect(lists[1]).toBe(lists[0]);
    expect((await call(copyServer, '/store/orders', revoked)).status).toBe(401);
    // The endpoint and its attempts, as v2 answers them: it is disabled, so no server attempts anything.
    for (const path of ['/v2/webhook-endpoints', `/v2/webhook-endpoints/${endpoint}/deliveries`]) {
      const read = await Promise.all([server, copyServer].map(async (on) => (await fetch(`${on.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } })).text()));
      expect(read[1], path).toBe(read[0]);
    }
    for (const [idempotencyKey, message, answer] of [
      ['moving-day', 'before the move', answers.first],
      ['nul-day', 'a\u0000b', answers.withNul],
    ] as const) {
      const retry = await send(copyServer, key, idempotencyKey, message);
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.text()).toBe(answer);
    }
    const listed = JSON.parse((await cli(['messages', 'list'], target)).stdout) as { message: string }[];
    expect(listed.map(({ message }) => message)).toEqual(['before the move', 'a\u0000b']);
    for (const args of [['orders', 'list'], ['messages', 'list'], ['deprecations']]) {
      const [fromSource, fromCopy] = await Promise.all([cli(args, source), cli(args, target)]);
      expect(fromCopy.stdout, args.join(' ')).toBe(fromSource.stdout);
    }
    // Enabled on the copy, it is sent its two replays and then a cancel made there: the copied events stand
    // in the order of the copy's own.
    const enable = await fetch(`${copyServer.baseUrl}/v2/webhook-endpoints/${endpoint}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"status":"enabled"}',
    });
    expect(enable.status).toBe(200);
    expect((await call(copyServer, '/store/orders/7', key, { method: 'DELETE' })).status).toBe(204);
    const onCopy = await target.open();
    expect((await onCopy.telemetry.pendingEvents()).count).toBe(3);
    await onCopy.close();
    // Ids issued on the copy follow the copied ones.
    const added = JSON.parse((await cli(['orders', 'add', '--pet-id', '7', '--quantity', '1'], target)).stdout) as { id: number };
    expect(added.id).toBe(27);
    const pet = JSON.parse((await cli(['pets', 'add', '--name', 'Fido'], target)).stdout) as { id: number };
    expect(pet.id).toBe(2);

    const again = await runCliInProcess(copy, {});
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the target database already holds accounts; copy only into an empty one');
  });
});
