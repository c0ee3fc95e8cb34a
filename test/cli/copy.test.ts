// `store-orders copy --to postgres://…`: a SQLite file a server wrote, moved to PostgreSQL, serves the same.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { scratchPostgres, type ScratchPostgres, TEST_DATABASE_URL } from '../support/postgres.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';

describe('store-orders copy', () => {
  it('needs --to, and a postgres:// URL there', async () => {
    for (const args of [['copy'], ['copy', '--to', 'elsewhere.db'], ['copy', 'postgres://x/y']]) {
      const result = await runCli(args, { DATABASE_URL: '/nonexistent/store.db' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('store-orders copy --help');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('store-orders copy --to a PostgreSQL database', () => {
  let folder: string;
  let dbPath: string;
  let target: ScratchPostgres;
  const servers: ServerProcess[] = [];

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'store-orders-copy-'));
    dbPath = join(folder, 'store.db');
    target = await scratchPostgres();
  });

  afterEach(async () => {
    for (const server of servers.splice(0)) server.child.kill('SIGKILL');
    await target.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  const cli = (args: string[], url = dbPath) => runCli(args, { DATABASE_URL: url });
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

  it('carries everything: the server on PostgreSQL serves the same, byte for byte, and the keys and retries still count', async () => {
    const sqlite = await spawnServer({ DATABASE_URL: dbPath, LOG_LEVEL: 'warn' });
    servers.push(sqlite);
    await cli(['accounts', 'create', 'acme']);
    const key = (await cli(['keys', 'create', '--account', 'acme'])).stdout.trim();
    const revoked = (await cli(['keys', 'create', '--account', 'acme'])).stdout.trim();
    expect((await cli(['keys', 'revoke', revoked])).code).toBe(0);
    const store = await openStore({ kind: 'sqlite', path: dbPath });
    await store.orders.importOrders(Array.from({ length: 25 }, (_, i) => ({ petId: i + 1, quantity: 2, shipDate: '2026-12-01T10:00:00Z' })));
    await store.orders.addOrder({ petId: 99, complete: true });
    await store.orders.shipOrder(3);
    await store.pets.addPet('Rex');
    const account = await store.keys.findAccount('acme');
    await store.telemetry.recordDeprecatedCalls([
      { operationId: 'getPetById', accountId: account?.id ?? 0, firstCallAt: '2026-11-01T00:00:00.000Z', lastCallAt: '2026-11-02T00:00:00.000Z', count: 7 },
    ]);
    await store.close();
    expect((await call(sqlite, '/store/orders/5', key, { method: 'DELETE' })).status).toBe(204);
    const first = await send(sqlite, key, 'moving-day', 'before the move');
    expect(first.status).toBe(202);
    // U+0000 is a string the contract allows: SQLite holds it, and so must PostgreSQL.
    const withNul = await send(sqlite, key, 'nul-day', 'a\u0000b');
    expect(withNul.status).toBe(202);

    // Copied while the SQLite server still runs.
    const copied = await cli(['copy', '--to', target.url]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/^copied .*store\.db to postgres:\/\/.*: 1 accounts, 2 api keys, 1 pets, 26 orders, 2 messages, 2 idempotency keys, 1 deprecated calls\n$/);

    const postgres = await spawnServer({ DATABASE_URL: target.url, LOG_LEVEL: 'warn' }, { init: false });
    servers.push(postgres);
    const lists = await Promise.all([sqlite, postgres].map(async (server) => (await call(server, '/store/orders', key)).text()));
    expect(lists[1]).toBe(lists[0]);
    expect((await call(postgres, '/store/orders', revoked)).status).toBe(401);
    const retry = await send(postgres, key, 'moving-day', 'before the move');
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
    const retryWithNul = await send(postgres, key, 'nul-day', 'a\u0000b');
    expect(retryWithNul.headers.get('idempotent-replayed')).toBe('true');
    expect(await retryWithNul.text()).toBe(await withNul.text());
    const listed = JSON.parse((await cli(['messages', 'list'], target.url)).stdout) as { message: string }[];
    expect(listed.map(({ message }) => message)).toEqual(['before the move', 'a\u0000b']);
    for (const args of [['orders', 'list'], ['keys', 'list'], ['messages', 'list'], ['deprecations']]) {
      const [fromFile, fromPostgres] = await Promise.all([cli(args), cli(args, target.url)]);
      expect(fromPostgres.stdout, args.join(' ')).toBe(fromFile.stdout);
    }
    const added = JSON.parse((await cli(['orders', 'add', '--pet-id', '7', '--quantity', '1'], target.url)).stdout) as { id: number };
    expect(added.id).toBe(27);

    const again = await cli(['copy', '--to', target.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the target database already holds accounts; copy only into an empty one');
  });
});
