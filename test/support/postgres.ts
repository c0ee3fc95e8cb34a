// A database of its own for each test, on the PostgreSQL that TEST_DATABASE_URL names:
// scripts/throwaway-postgres.sh starts one, and .ci/run always does. Without it, the tests that need
// PostgreSQL are skipped (and CI fails on any skipped test).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Unset when empty: CI's lines without PostgreSQL pass an empty value. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export interface ScratchPostgres {
  url: string;
  drop(): Promise<void>;
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database; `drop` removes it, ending whatever connections are still on it. */
export async function scratchPostgres(): Promise<ScratchPostgres> {
  const name = `store_test_${randomBytes(6).toString('hex')}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}
