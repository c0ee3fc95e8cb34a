// The tests' scratch databases (test/support/storeBackends.ts), each a copy of one database its backend
// migrated once per process: each is what a store leaves of a new database, with an identity of its own, so
// that the tests that run on them stay as independent as on databases each migrated for itself.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';
import { listOf } from '../support/storeSuite.js';

describe.each(STORE_BACKENDS)('a scratch database on $kind', (backend) => {
  /** `work` on the databases `made`, each dropped after it. */
  async function withDatabases(made: Promise<ScratchDatabase>[], work: (databases: ScratchDatabase[]) => Promise<void>) {
    const databases = await Promise.all(made);
    try {
      await work(databases);
    } finally {
      await Promise.all(databases.map((database) => database.drop()));
    }
  }

  it.skipIf(!backend.available)('has the schema, and the rows, a store leaves in a new database it opens', async () => {
    await withDatabases([scratchDatabase(backend.kind, { schema: 'empty' }), scratchDatabase(backend.kind)], async ([made, copied]) => {
      await (await made!.open({ create: true })).close();
      const outline = await copied!.outline();
      expect(outline).toEqual(await made!.outline());
      expect(outline).toContainEqual(expect.stringMatching(/^rows of \w+: 1$/));
    });
  });

  it.skipIf(!backend.available)('has an identity of its own: no two share a list version', async () => {
    await withDatabases([scratchDatabase(backend.kind), scratchDatabase(backend.kind), scratchDatabase(backend.kind)], async (databases) => {
      const versions = [];
      for (const database of databases) {
        const store = await database.open();
        try {
          versions.push((await listOf(store)).version);
        } finally {
          await store.close();
        }
      }
      expect(new Set(versions).size).toBe(databases.length);
    });
  });
});

describe('a scratch SQLite database', () => {
  it('is one complete file in WAL mode, which no other file is beside', async () => {
    const database = await scratchDatabase('sqlite');
    try {
      expect(readdirSync(database.folder)).toEqual(['store.db']);
      expect(await database.rows('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect(await database.rows('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      await database.drop();
    }
  });
});
