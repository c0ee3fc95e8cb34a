// A transaction whose connection PostgreSQL ends between two of its statements (a restart, an operator's
// pg_terminate_backend): the transaction fails as the store's passing failures do (503), and the process
// goes on. A pg client that hears of its end with no statement running emits 'error'; unheard, that event
// would take the server down, as a clean CI run's PostgreSQL restarts once did.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { storeErrorFor } from '../../src/store/postgres/errors.js';
import { inTransaction } from '../../src/store/postgres/transaction.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

describe.skipIf(!storeBackend('postgres').available)('a transaction whose connection PostgreSQL ends between statements', () => {
  let database: ScratchDatabase<'postgres'> | undefined;
  let pool: pg.Pool | undefined;

  afterEach(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('fails as a busy database does, and the pool serves the next call on a new connection', async () => {
    database = await scratchDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => {});
    const other = pool;
    const failure = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Ended from the other connection while this one waits between statements; 'end' once it has heard.
      // (events.once would listen to 'error' too, and so hear what the transaction must.)
      const ended = new Promise((resolve) => client.once('end', resolve));
      await other.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await ended;
      await client.query('SELECT 1');
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(storeErrorFor(failure)).toBeInstanceOf(StoreUnavailableError);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
