import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { AdminStore } from '../../src/store/store.js';
import { DeprecatedCallLog } from '../../src/telemetry/deprecatedCalls.js';

let folder: string;
let dbPath: string;
let store: AdminStore;
let acme: number;
let globex: number;
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-deprecated-'));
  dbPath = join(folder, 'store.db');
  store = await openStore({ kind: 'sqlite', path: dbPath });
  acme = (await store.keys.createAccount('acme')).id;
  globex = (await store.keys.createAccount('globex')).id;
});
afterEach(async () => {
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

const at = (time: string) => new Date(`2026-11-23T${time}Z`);

/** Rows another connection sees in the table: what is on disk, not in the log's memory. */
function rowsOnDisk(): number {
  const reader = new Database(dbPath, { readonly: true });
  try {
    return reader.prepare<[], { n: number }>('SELECT count(*) AS n FROM deprecated_calls').get()?.n ?? 0;
  } finally {
    reader.close();
  }
}

describe('DeprecatedCallLog', () => {
  it('keeps calls in memory until a flush, then writes one row per operation and account', async () => {
    const log = new DeprecatedCallLog(store.telemetry);
    log.record('getPetById', acme, at('10:00:02'));
    log.record('getPetById', acme, at('10:00:01'));
    log.record('getPetById', acme, at('10:00:03'));
    log.record('getPetById', globex, at('10:00:04'));
    expect(await store.telemetry.listDeprecatedCalls()).toEqual([]);
    expect(rowsOnDisk()).toBe(0);

    await log.flush();
    expect(await store.telemetry.listDeprecatedCalls()).toEqual([
      {
        operationId: 'getPetById',
        account: 'globex',
        firstCallAt: '2026-11-23T10:00:04.000Z',
        lastCallAt: '2026-11-23T10:00:04.000Z',
        count: 1,
      },
      {
        operationId: 'getPetById',
        account: 'acme',
        firstCallAt: '2026-11-23T10:00:01.000Z',
        lastCallAt: '2026-11-23T10:00:03.000Z',
        count: 3,
      },
    ]);
  });

  it('adds each flush to what is stored: the first call stays, the last moves, the counts add up', async () => {
    const log = new DeprecatedCallLog(store.telemetry);
    log.record('getPetById', acme, at('10:00:00'));
    await log.flush();
    log.record('getPetById', acme, at('11:00:00'));
    log.record('getPetById', acme, at('12:00:00'));
    await log.flush();
    await log.flush();
    // A second server process writing to the same file adds to the same row.
    const other = new DeprecatedCallLog(store.telemetry);
    other.record('getPetById', acme, at('09:00:00'));
    await other.flush();
    expect(await store.telemetry.listDeprecatedCalls()).toEqual([
      {
        operationId: 'getPetById',
        account: 'acme',
        firstCallAt: '2026-11-23T09:00:00.000Z',
        lastCallAt: '2026-11-23T12:00:00.000Z',
        count: 4,
      },
    ]);
  });

  it('keeps the counts for the next flush when a write fails, and loses none', async () => {
    const log = new DeprecatedCallLog(store.telemetry);
    log.record('getPetById', acme, at('10:00:00'));
    // A real failure of the real database: another connection makes every insert into the table abort.
    const admin = new Database(dbPath);
    admin.exec(
      `CREATE TRIGGER refuse BEFORE INSERT ON deprecated_calls BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    await expect(log.flush()).rejects.toThrow(/refused/);
    log.record('getPetById', acme, at('10:00:05'));
    admin.exec('DROP TRIGGER refuse');
    admin.close();

    await log.flush();
    expect(await store.telemetry.listDeprecatedCalls()).toMatchObject([
      { firstCallAt: '2026-11-23T10:00:00.000Z', lastCallAt: '2026-11-23T10:00:05.000Z', count: 2 },
    ]);
  });

  it('writes what is left when closed', async () => {
    const log = new DeprecatedCallLog(store.telemetry);
    log.start(3_600_000, (error) => {
      throw error;
    });
    log.record('getPetById', globex, at('10:00:00'));
    await log.close();
    expect(await store.telemetry.listDeprecatedCalls()).toMatchObject([{ account: 'globex', count: 1 }]);
  });
});
