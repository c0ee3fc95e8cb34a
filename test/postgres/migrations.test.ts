// The schema of a new PostgreSQL database is applied once when many processes start on it together.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { scratchPostgres, type ScratchPostgres, TEST_DATABASE_URL } from '../support/postgres.js';
import { runCli } from '../support/processes.js';

describe.skipIf(!TEST_DATABASE_URL)('migrations on PostgreSQL', () => {
  let database: ScratchPostgres;
  beforeEach(async () => {
    database = await scratchPostgres();
  });
  afterEach(() => database.drop());

  async function query<T extends object>(text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  it('five processes opening a new database at once: every one opens it, each migration is applied once', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => runCli(['init'], { DATABASE_URL: database.url })));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const applied = await query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map(({ version }) => version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    expect(await query('SELECT * FROM store_identity')).toHaveLength(1);
  });

  it('refuses a database whose schema is newer than this build', async () => {
    expect((await runCli(['init'], { DATABASE_URL: database.url })).code).toBe(0);
    await query(`INSERT INTO schema_migrations (version) VALUES (${MIGRATIONS.length + 1})`);
    const result = await runCli(['orders', 'list'], { DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`schema version ${MIGRATIONS.length + 1} is newer than this build knows`);
  });
});
