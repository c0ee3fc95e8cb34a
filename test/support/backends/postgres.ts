// PostgreSQL's entry in the tests' table of backends (storeBackends.ts): a database of its own for each test,
// on the PostgreSQL that TEST_DATABASE_URL names (scripts/throwaway-postgres.sh starts one, and .ci/run always
// does), and what the tests read and write in it past the store. Without TEST_DATABASE_URL the tests that
// need it are skipped (and CI's machine line fails on any skipped test). The one module of test/, besides
// PostgreSQL's own tests (test/postgres/), that knows the backend's internals.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PostgresLocation } from '../../../src/store/postgres/backend.js';
import { MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { pageDialect } from '../../../src/store/postgres/orders.js';
import type { PastTheStore, Statement, TestBackend } from '../storeBackends.js';

/** Unset when empty: CI's lines without PostgreSQL pass an empty value. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

async function connected<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const asAdmin = <T>(work: (client: pg.Client) => Promise<T>) => connected(TEST_DATABASE_URL as string, work);

/** A new, empty database; `drop` removes it, ending whatever connections are still on it. */
async function create(): Promise<{ location: PostgresLocation; drop: () => Promise<void> }> {
  const name = `store_test_${randomBytes(6).toString('hex')}`;
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return {
    location: { kind: 'postgres', url: url.toString() },
    drop: () => asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function pastTheStore({ url }: PostgresLocation): PastTheStore {
  const rows = <T extends object>(sql: string, values: readonly unknown[] = []) =>
    connected(url, async (client) => (await client.query<T>(sql, [...values])).rows);
  return {
    execute: (sql) => connected(url, async (client) => void (await client.query(sql))),
    rows,
    writeOlderSchema: (version) =>
      connected(url, async (client) => {
        await client.query(`CREATE TABLE schema_migrations (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const [index, migration] of MIGRATIONS.slice(0, version).entries()) {
          await client.query(migration);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [index + 1]);
        }
      }),
    stampSchemaVersion: (version) =>
      connected(url, async (client) => {
        await client.query('DELETE FROM schema_migrations WHERE version > $1', [version]);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1) ON CONFLICT DO NOTHING', [version]);
      }),
    async queryPlan({ sql, values }: Statement) {
      // The statistics autovacuum would gather on its own, a little later.
      await rows('ANALYZE orders');
      const lines = (await rows<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).map((row) => row['QUERY PLAN']);
      // PostgreSQL may sort an arm it expects few rows of; what its scans read is counted by rowsReadByScan.
      return { reads: lines.filter((line) => / on orders\b/.test(line)), sorts: [] };
    },
    async rowsReadByScan({ sql, values }: Statement) {
      await rows('ANALYZE orders');
      const [plan] = await rows<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
      // Those its filter dropped included.
      const scans = (node: PlanNode): number[] => [
        ...(node['Relation Name'] === 'orders' ? [node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)] : []),
        ...(node.Plans ?? []).flatMap(scans),
      ];
      return scans(plan!['QUERY PLAN'][0].Plan);
    },
    async rowsSent() {
      const sent = await rows<{ sent: string }>(
        `SELECT tuples_processed AS sent FROM pg_stat_progress_copy WHERE datname = current_database()`,
      );
      if (sent.length !== 1) throw new Error(`expected one COPY in progress, found ${sent.length}`);
      return Number(sent[0]?.sent);
    },
  };
}

export const postgresTests: TestBackend<PostgresLocation> = {
  ...(TEST_DATABASE_URL === undefined && { unavailable: 'TEST_DATABASE_URL is not set' }),
  create,
  pastTheStore,
  migrations: { latest: MIGRATIONS.length, shipDateRange: 6 },
  pageDialect,
  // An index scan, or a bitmap heap scan of what a bitmap index scan found (never Seq Scan).
  indexRead: /(Index|Index Only|Bitmap Heap) Scan/,
  sharedQuotas: true,
};
