// The schema of a new PostgreSQL database is applied once when many processes start on it together.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

const postgres = storeBackend('postgres');
const LATEST = postgres.migrations.latest;

describe.skipIf(!postgres.available)('migrations on PostgreSQL', () => {
  let database: ScratchDatabase<'postgres'>;
  beforeEach(async () => {
    database = await scratchDatabase('postgres', { schema: 'empty' });
  });
  afterEach(() => database.drop());

  const query = <T extends object>(text: string) => database.rows<T>(text);

  it('five processes opening a new database at once: every one opens it, each migration is applied once', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => runCli(['init'], { DATABASE_URL: database.url })));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const applied = await query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map(({ version }) => version)).toEqual(Array.from({ length: LATEST }, (_, index) => index + 1));
    expect(await query('SELECT * FROM store_identity')).toHaveLength(1);
  });

  it('refuses a database whose schema is newer than this build', async () => {
    expect((await runCli(['init'], { DATABASE_URL: database.url })).code).toBe(0);
    await query(`INSERT INTO schema_migrations (version) VALUES (${LATEST + 1})`);
    const result = await runCli(['orders', 'list'], { DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`schema version ${LATEST + 1} is newer than this build knows`);
  });
});
